package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// This file is the one path resolver: where a path the model sends really
// leads. The permission policy decides on what it returns, and the tools
// open what it returns, so the two cannot disagree about which file a call
// is about.

// maxLinks bounds the symlinks followed for one path, as the kernel does.
const maxLinks = 40

// Resolution is where a path leads in the workspace.
type Resolution struct {
	// Lexical is the path as given, made workspace-relative and cleaned
	// ("." for the workspace itself), slash-separated.
	Lexical string
	// Real is where opening Lexical leads: every symlink on the way
	// followed as the kernel follows it (a relative target from the
	// directory the link really is in, an absolute one placed in the
	// workspace). The part that does not exist yet is kept as given, so a
	// file about to be created is placed where its parent really is.
	// Slash-separated, workspace-relative, no symlink in the part that
	// exists.
	Real string
	// Exists tells whether Real exists; IsDir whether it is a directory.
	Exists, IsDir bool
}

// Resolve places p in the workspace folder dir and follows it through
// symlinks. A path that leads out of the workspace, lexically or through
// a symlink, fails with an error matching ErrOutsideWorkspace.
func Resolve(dir, p string) (Resolution, error) {
	w, err := OpenWorkspace(dir)
	if err != nil {
		return Resolution{}, err
	}
	defer w.Close()
	return w.Resolve(p)
}

// Resolve places p (as the model sent it) in the workspace and follows it
// through symlinks; see Resolution.
func (w *Workspace) Resolve(p string) (Resolution, error) {
	rel, err := w.rel(p)
	if err != nil {
		return Resolution{}, err
	}
	r, err := w.resolve(p, rel)
	r.Lexical = rel
	return r, err
}

// resolve follows rel (clean, workspace-relative) one component at a time,
// the way the kernel walks a path: a symlink's target replaces it, ".."
// in a target goes up from where the link really is, and a target can
// never lead above the workspace.
func (w *Workspace) resolve(p, rel string) (Resolution, error) {
	todo := splitRel(rel)
	var done []string // real components walked so far: directories, then maybe the end
	links := 0
	var last fs.FileInfo
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return Resolution{}, &outsideError{path: p, via: "a symlink leads out of it"}
			}
			done = done[:len(done)-1]
			last = nil
			continue
		}
		cur := path.Join(append(done, c)...)
		fi, err := w.root.Lstat(native(cur))
		if errors.Is(err, fs.ErrNotExist) {
			// cur does not exist, so nothing below it does either: the
			// rest is where a new file would go.
			rest := append([]string{c}, todo...)
			var clean []string
			for _, r := range rest {
				switch r {
				case "", ".":
				case "..":
					return Resolution{}, fmt.Errorf("%s: a symlink on the way leads through %s, which does not exist", p, cur)
				default:
					clean = append(clean, r)
				}
			}
			return Resolution{Real: path.Join(append(done, clean...)...)}, nil
		}
		if err != nil {
			if len(done) == 0 || errors.Is(err, fs.ErrPermission) {
				return Resolution{}, explain(p, err)
			}
			// Every component in done was a directory a moment ago.
			return Resolution{}, &changedError{path: p}
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			links++
			if links > maxLinks {
				return Resolution{}, fmt.Errorf("%s: too many levels of symbolic links", p)
			}
			target, err := w.root.Readlink(native(cur))
			if err != nil {
				if errors.Is(err, fs.ErrPermission) {
					return Resolution{}, explain(p, err)
				}
				// It was a symlink a moment ago.
				return Resolution{}, &changedError{path: p}
			}
			parts, abs := w.linkTarget(target)
			if abs {
				if parts == nil {
					return Resolution{}, &outsideError{path: p, via: "a symlink leads out of it"}
				}
				done = nil
			}
			todo = append(parts, todo...)
			last = nil
		case fi.IsDir():
			done = append(done, c)
			last = fi
		default:
			for _, r := range todo {
				if r != "" && r != "." {
					return Resolution{}, fmt.Errorf("%s: %s is not a directory", p, cur)
				}
			}
			done = append(done, c)
			last = fi
		}
	}
	r := Resolution{Real: path.Join(done...), Exists: true}
	if r.Real == "" {
		r.Real = "."
	}
	// Without a last entry the walk ended on a directory it had walked
	// through (after ".." or a link to a directory).
	r.IsDir = last == nil || last.IsDir()
	return r, nil
}

// linkTarget splits a symlink's target into components. An absolute
// target is placed in the workspace (abs is true; parts is nil when it
// points elsewhere). Its components are not cleaned: ".." is resolved by
// the walk, after the components before it.
func (w *Workspace) linkTarget(target string) (parts []string, abs bool) {
	native := filepath.FromSlash(target)
	if !filepath.IsAbs(native) {
		return splitRel(filepath.ToSlash(native)), false
	}
	t := splitRel(filepath.ToSlash(native))
	for _, base := range []string{w.real, w.dir} {
		b := splitRel(filepath.ToSlash(base))
		if len(t) >= len(b) && equalFold(t[:len(b)], b) {
			rest := t[len(b):]
			if rest == nil {
				rest = []string{}
			}
			return rest, true
		}
	}
	return nil, true
}

func equalFold(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] && !(os.PathSeparator == '\\' && strings.EqualFold(a[i], b[i])) {
			return false
		}
	}
	return true
}

// splitRel splits a slash path into its components; a leading slash (or
// volume) gives an empty first component that the walk skips.
func splitRel(p string) []string {
	if p == "" || p == "." {
		return []string{}
	}
	return strings.Split(p, "/")
}
