//go:build unix

package hands

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A workspace with the files a link could lead to: a protected one
// (.git/config) and one outside the workspace.
type fixture struct {
	ws, out string
	keep    map[string][]byte // absolute path -> content that must stay
}

const (
	configText = "[core]\n\trepositoryformatversion = 0\n"
	secretText = "outside, not Loupe's to touch\n"
)

func newFixture(t *testing.T) *fixture {
	t.Helper()
	top := t.TempDir()
	f := &fixture{ws: filepath.Join(top, "ws"), out: filepath.Join(top, "out"), keep: map[string][]byte{}}
	for _, d := range []string{f.ws + "/.git", f.out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.put(t, f.ws+"/.git/config", configText)
	// Outside: the same names the operations use, so that following a
	// link to this folder would find something to change.
	for _, n := range []string{"config", "name", "secret", "moved"} {
		f.put(t, f.out+"/"+n, secretText)
	}
	return f
}

func (f *fixture) put(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	f.keep[p] = []byte(s)
}

func (f *fixture) link(t *testing.T, target, at string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(f.ws, at)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(f.ws, at)); err != nil {
		t.Fatal(err)
	}
}

// unchanged fails unless every file kept is there with its bytes, and
// the outside folder holds nothing new.
func (f *fixture) unchanged(t *testing.T) {
	t.Helper()
	for p, want := range f.keep {
		got, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s changed: %q, %v (want %q)", p, got, err, want)
		}
		fi, err := os.Lstat(p)
		if err == nil && !fi.Mode().IsRegular() {
			t.Errorf("%s is no longer a regular file (%s)", p, fi.Mode())
		}
	}
	ents, _ := os.ReadDir(f.out)
	if len(ents) != 4 {
		t.Errorf("the outside folder holds %d entries, want the 4 it had", len(ents))
	}
	gits, _ := os.ReadDir(f.ws + "/.git")
	if len(gits) != 1 {
		var names []string
		for _, e := range gits {
			names = append(names, e.Name())
		}
		t.Errorf(".git holds %v, want only config", names)
	}
}

func protectGit(_ Look, rel string) (string, bool) {
	if rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return "**/.git/config", true
	}
	return "", false
}

// Every operation of the layer, each on path p (one with a link at some
// component). ok says the operation may succeed: acting on a link itself
// (removing, renaming or describing it), never on what it leads to.
type op struct {
	name string
	run  func(r *Root, p string) error
	// onFinalLink: what acting on a final-component link may do.
	linkItselfOK bool
}

var ops = []op{
	{"ReadFile", func(r *Root, p string) error { _, _, err := r.ReadFile(p, 1<<20); return err }, false},
	{"WriteFile", func(r *Root, p string) error { return r.WriteFile(p, []byte("core.fsmonitor = ./evil\n")) }, false},
	{"RemoveFile", func(r *Root, p string) error { return r.RemoveFile(p) }, false},
	{"RemoveAll", func(r *Root, p string) error { return r.RemoveAll(p) }, true},
	{"Rename from", func(r *Root, p string) error { return r.Rename(p, "moved") }, true},
	{"Rename to", func(r *Root, p string) error {
		if err := os.WriteFile(filepath.Join(r.Dir(), "src.txt"), []byte("src"), 0o644); err != nil {
			return err
		}
		return r.Rename("src.txt", p)
	}, false},
	{"Lstat", func(r *Root, p string) error { _, err := r.Lstat(p); return err }, true},
	{"OpenDir", func(r *Root, p string) error {
		d, err := r.OpenDir(p)
		if err == nil {
			d.Close()
		}
		return err
	}, false},
	{"OpenDir+ReadDir", func(r *Root, p string) error {
		d, err := r.OpenDir(filepath.Dir(p))
		if err != nil {
			return err
		}
		defer d.Close()
		sub, err := d.OpenDir(filepath.Base(p))
		if err != nil {
			return err
		}
		defer sub.Close()
		_, err = sub.ReadDir()
		return err
	}, false},
	{"MkdirAll", func(r *Root, p string) error {
		d, err := r.MkdirAll(p + "/new")
		if err == nil {
			d.Close()
		}
		return err
	}, false},
	// A fork's copy makes folders and links by name (an entry there is
	// an error, never followed), and writes inside a folder it made,
	// held as a root of its own.
	{"Dir.Mkdir", func(r *Root, p string) error {
		d, name, err := r.OpenParent(p)
		if err != nil {
			return err
		}
		defer d.Close()
		sub, err := d.Mkdir(name, 0o755)
		if err == nil {
			sub.Close()
		}
		return err
	}, true},
	{"Dir.Symlink", func(r *Root, p string) error {
		d, name, err := r.OpenParent(p)
		if err != nil {
			return err
		}
		defer d.Close()
		return d.Symlink("/etc/passwd", name)
	}, true},
	{"Dir.Root+WriteFile", func(r *Root, p string) error {
		d, err := r.OpenDir(p)
		if err != nil {
			return err
		}
		defer d.Close()
		sub, err := d.Root(p, nil)
		if err != nil {
			return err
		}
		defer sub.Close()
		return sub.WriteFile("config", []byte("core.fsmonitor = ./evil\n"))
	}, false},
	{"Dir.Remove", func(r *Root, p string) error {
		d, name, err := r.OpenParent(p)
		if err != nil {
			return err
		}
		defer d.Close()
		return d.Remove(name)
	}, true},
	{"Dir.ReadFile", func(r *Root, p string) error {
		d, name, err := r.OpenParent(p)
		if err != nil {
			return err
		}
		defer d.Close()
		_, _, err = d.ReadFile(name, 1<<20)
		return err
	}, false},
	{"Dir.WriteFile", func(r *Root, p string) error {
		d, name, err := r.OpenParent(p)
		if err != nil {
			return err
		}
		defer d.Close()
		return d.WriteFile(name, []byte("x"), 0o644)
	}, false},
}

// Where the link is, and what it leads to.
type placement struct {
	name  string
	setup func(t *testing.T, f *fixture)
	path  string // the path given to the operation
	final bool   // the link is the last component
}

func placements() []placement {
	return []placement{
		{"final, to the protected file", func(t *testing.T, f *fixture) { f.link(t, ".git/config", "name") }, "name", true},
		{"final, to the protected file by absolute path", func(t *testing.T, f *fixture) { f.link(t, f.ws+"/.git/config", "name") }, "name", true},
		{"final, to a file outside", func(t *testing.T, f *fixture) { f.link(t, f.out+"/secret", "name") }, "name", true},
		{"final, to the protected folder", func(t *testing.T, f *fixture) { f.link(t, ".git", "name") }, "name", true},
		{"final in a folder, to outside", func(t *testing.T, f *fixture) { f.link(t, "../../out/secret", "a/name") }, "a/name", true},
		{"parent, to the protected folder", func(t *testing.T, f *fixture) { f.link(t, ".git", "a") }, "a/config", false},
		{"parent, to outside", func(t *testing.T, f *fixture) { f.link(t, f.out, "a") }, "a/name", false},
		{"first of two parents, to outside", func(t *testing.T, f *fixture) {
			if err := os.MkdirAll(f.out+"/b", 0o755); err != nil {
				t.Fatal(err)
			}
			f.put(t, f.out+"/b/name", secretText)
			f.link(t, f.out, "a")
		}, "a/b/name", false},
		{"second of two parents, to the protected folder", func(t *testing.T, f *fixture) { f.link(t, "../.git", "a/b") }, "a/b/config", false},
		{"second of two parents, to outside", func(t *testing.T, f *fixture) { f.link(t, "../../out", "a/b") }, "a/b/name", false},
		{"parent through a chain of links", func(t *testing.T, f *fixture) {
			f.link(t, "c", "a")
			f.link(t, ".git", "c")
		}, "a/config", false},
	}
}

func TestEveryOperationAgainstEveryLinkPosition(t *testing.T) {
	bothResolvers(t, func(t *testing.T) {
		for _, o := range ops {
			for _, pl := range placements() {
				t.Run(o.name+"/"+pl.name, func(t *testing.T) {
					f := newFixture(t)
					// "first of two parents" adds to out: count it.
					pl.setup(t, f)
					wantOut := len(mustReadDir(t, f.out))
					r, err := Open(f.ws, nil)
					if err != nil {
						t.Fatal(err)
					}
					defer r.Close()
					err = o.run(r, pl.path)
					var fe *FoundError
					switch {
					case pl.final && o.name == "Rename to" && errors.Is(err, fs.ErrExist):
						// The link is not replaced either.
					case pl.final && o.linkItselfOK:
						// Acting on the link itself is allowed; what it
						// leads to must stay.
					case err == nil:
						t.Errorf("%s(%s) succeeded through a link", o.name, pl.path)
					case !errors.As(err, &fe) || !fe.Link():
						t.Errorf("%s(%s): %v; want a FoundError naming the link", o.name, pl.path, err)
					case !strings.Contains(err.Error(), "symbolic link to"):
						t.Errorf("the refusal does not say what was found: %q", err)
					}
					for p, want := range f.keep {
						got, rerr := os.ReadFile(p)
						if rerr != nil || !bytes.Equal(got, want) {
							t.Errorf("%s changed: %q, %v", p, got, rerr)
						}
					}
					if n := len(mustReadDir(t, f.out)); n != wantOut {
						t.Errorf("the outside folder holds %d entries, want %d", n, wantOut)
					}
					if n := len(mustReadDir(t, f.ws+"/.git")); n != 1 {
						t.Errorf(".git holds %d entries, want 1", n)
					}
				})
			}
		}
	})
}

func mustReadDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ents
}

// The refusal of a link names it and its target, in the words undo shows.
func TestFoundErrorSaysWhatIsThere(t *testing.T) {
	bothResolvers(t, func(t *testing.T) {
		f := newFixture(t)
		f.link(t, ".git/config", "notes.txt")
		f.link(t, ".git", "sub")
		r, err := Open(f.ws, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for p, want := range map[string]string{
			"notes.txt":  "notes.txt is a symbolic link to .git/config",
			"sub/config": "sub is a symbolic link to .git (on the way to sub/config)",
		} {
			_, _, err := r.ReadFile(p, 100)
			if err == nil || err.Error() != want {
				t.Errorf("ReadFile(%s): %v, want %q", p, err, want)
			}
		}
	})
}

// Protected paths are refused for every change, and nothing is made on
// the way.
func TestProtectedPathsAreRefused(t *testing.T) {
	bothResolvers(t, func(t *testing.T) {
		f := newFixture(t)
		r, err := Open(f.ws, protectGit)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		changes := map[string]func() error{
			"WriteFile":     func() error { return r.WriteFile(".git/config", []byte("x")) },
			"WriteFile new": func() error { return r.WriteFile(".git/hooks/pre-commit", []byte("x")) },
			"RemoveFile":    func() error { return r.RemoveFile(".git/config") },
			"RemoveAll":     func() error { return r.RemoveAll(".git") },
			"Rename from":   func() error { return r.Rename(".git/config", "config") },
			"Rename to": func() error {
				if err := os.WriteFile(f.ws+"/x", []byte("x"), 0o644); err != nil {
					return err
				}
				defer os.Remove(f.ws + "/x")
				return r.Rename("x", ".git/x")
			},
			"MkdirAll": func() error { _, err := r.MkdirAll(".git/hooks"); return err },
		}
		for name, change := range changes {
			err := change()
			var pe *ProtectedError
			if !errors.As(err, &pe) {
				t.Errorf("%s: %v, want a ProtectedError", name, err)
			}
		}
		f.unchanged(t)
		if _, _, err := r.ReadFile(".git/config", 100); err != nil {
			t.Errorf("reading a protected file is not a change: %v", err)
		}
	})
}

// Reads are of regular files only, bounded, and do not hang on a pipe.
func TestReadFileRefusesWhatIsNotAFile(t *testing.T) {
	bothResolvers(t, func(t *testing.T) {
		f := newFixture(t)
		if err := mkfifo(f.ws + "/pipe"); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(f.ws+"/dir", 0o755); err != nil {
			t.Fatal(err)
		}
		f.put(t, f.ws+"/big", strings.Repeat("x", 101))
		r, err := Open(f.ws, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for p, kind := range map[string]string{"pipe": "named pipe", "dir": "directory"} {
			_, _, err := r.ReadFile(p, 100)
			var fe *FoundError
			if !errors.As(err, &fe) || fe.Kind != kind {
				t.Errorf("ReadFile(%s): %v, want a FoundError for a %s", p, err, kind)
			}
		}
		var tl *TooLargeError
		if _, _, err := r.ReadFile("big", 100); !errors.As(err, &tl) {
			t.Errorf("ReadFile(big): %v, want TooLargeError", err)
		}
		if _, ok, err := r.ReadFile("none/x", 100); ok || err != nil {
			t.Errorf("missing: %v %v", ok, err)
		}
	})
}

// What the layer does when nothing is in the way: the ordinary cases
// work (so the refusals above are not of everything).
func TestOrdinaryOperations(t *testing.T) {
	bothResolvers(t, func(t *testing.T) {
		f := newFixture(t)
		r, err := Open(f.ws, protectGit)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if err := r.WriteFile("a/b/c.txt", []byte("one")); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(f.ws+"/a/b/c.txt", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteFile("a/b/c.txt", []byte("two")); err != nil {
			t.Fatal(err)
		}
		if b, ok, err := r.ReadFile("a/b/c.txt", 10); string(b) != "two" || !ok || err != nil {
			t.Fatalf("read back %q %v %v", b, ok, err)
		}
		if fi, err := r.Lstat("a/b/c.txt"); err != nil || fi.Mode().Perm() != 0o755 {
			t.Errorf("the mode is not kept: %v %v", fi, err)
		}
		if err := r.Rename("a/b/c.txt", "a/d.txt"); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteFile("a/e.txt", []byte("e")); err != nil {
			t.Fatal(err)
		}
		if err := r.Rename("a/e.txt", "a/d.txt"); !errors.Is(err, fs.ErrExist) {
			t.Errorf("a rename replaced a file: %v", err)
		}
		d, err := r.OpenDir("a")
		if err != nil {
			t.Fatal(err)
		}
		ents, err := d.ReadDir()
		d.Close()
		if err != nil || len(ents) != 3 {
			t.Errorf("ReadDir(a): %v %v", ents, err)
		}
		if err := r.RemoveFile("a/d.txt"); err != nil {
			t.Fatal(err)
		}
		if err := r.RemoveFile("a/d.txt"); err != nil {
			t.Errorf("removing a missing file: %v", err)
		}
		if err := r.RemoveAll("a"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(f.ws + "/a"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a is still there: %v", err)
		}
		f.unchanged(t)
	})
}

// RemoveAll removes links inside a tree as links.
func TestRemoveAllDoesNotFollowLinksInside(t *testing.T) {
	bothResolvers(t, func(t *testing.T) {
		f := newFixture(t)
		if err := os.MkdirAll(f.ws+"/tree/deep", 0o755); err != nil {
			t.Fatal(err)
		}
		f.link(t, f.out, "tree/deep/out")
		f.link(t, "../../.git", "tree/deep/git")
		f.link(t, f.out+"/secret", "tree/s")
		r, err := Open(f.ws, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if err := r.RemoveAll("tree"); err != nil {
			t.Fatal(err)
		}
		f.unchanged(t)
	})
}
