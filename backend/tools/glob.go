package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/sandbox"
)

const globMaxMatches = 1000

//go:embed glob.md
var globDoc string

type globInput struct {
	Pattern string `json:"pattern" jsonschema:"glob pattern relative to the workspace, e.g. **/*.go"`
}

var globSpec = llm.ToolSpec{
	Name:        "glob",
	Description: describe("glob", globDoc, map[string]any{"MaxMatches": globMaxMatches}),
	Parameters:  schemaFor[globInput](nil),
}

type globTool struct{ ws *Workspace }

func (globTool) Spec() llm.ToolSpec { return globSpec }
func (globTool) ReadOnly() bool     { return true }

func (t globTool) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	in, err := decode[globInput]("glob", args)
	if err != nil {
		return Result{}, err
	}
	pattern, err := t.ws.relPattern(in.Pattern)
	if err != nil {
		return Result{}, err
	}
	var matches []string
	base, _ := doublestar.SplitPattern(pattern)
	err = t.ws.walk(ctx, base, func(p string, d fs.DirEntry) {
		if !d.IsDir() && doublestar.MatchUnvalidated(pattern, p) {
			matches = append(matches, p)
		}
	})
	if err != nil {
		return Result{}, err
	}
	if len(matches) == 0 {
		return Result{Content: fmt.Sprintf("no files match %s", in.Pattern)}, nil
	}
	slices.Sort(matches)
	var res Result
	shown := matches
	if len(matches) > globMaxMatches {
		shown = matches[:globMaxMatches]
		res.Truncated = true
	}
	res.Content = strings.Join(shown, "\n") + "\n"
	if res.Truncated {
		res.Content += fmt.Sprintf("[showing the first %d of %d matches; use a narrower pattern]\n", globMaxMatches, len(matches))
	}
	return res, nil
}

// relPattern makes a glob pattern from the model relative to the
// workspace and checks it.
func (w *Workspace) relPattern(pattern string) (string, error) {
	if !doublestar.ValidatePattern(filepath.ToSlash(pattern)) {
		return "", fmt.Errorf("invalid glob pattern %q", pattern)
	}
	p := filepath.ToSlash(pattern)
	if filepath.IsAbs(filepath.FromSlash(p)) {
		// An absolute pattern is fine if its fixed part is inside.
		base, rest := doublestar.SplitPattern(p)
		rel, err := w.rel(base)
		if err != nil {
			return "", err
		}
		if rel == "." {
			return rest, nil
		}
		return rel + "/" + rest, nil
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return "", &outsideError{path: pattern}
		}
	}
	p = strings.TrimPrefix(path.Clean(p), "./")
	return p, nil
}

// walk calls fn for every entry under the relative directory base (base
// itself excluded), skipping .git directories and not following symlinks.
// A base that does not exist or is not a directory yields nothing.
// Unreadable directories are skipped.
func (w *Workspace) walk(ctx context.Context, base string, fn func(p string, d fs.DirEntry)) error {
	fsys := w.root.FS()
	if fi, err := fs.Stat(fsys, base); err != nil || !fi.IsDir() {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return explain(base, err)
		}
		return nil
	}
	n := 0
	holding := sandbox.HoldsPaths()
	return fs.WalkDir(fsys, base, func(p string, d fs.DirEntry, err error) error {
		if n++; n%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if p == base {
				return explain(p, err)
			}
			return nil // an unreadable directory: skip it
		}
		if p == base {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		if holding && isPlaceholder(d) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		fn(p, d)
		return nil
	})
}

// withoutPlaceholders drops from entries what the sandbox made to hold a
// path for a running command (sandbox.IsPlaceholder): it is not the
// workspace's, and goes once the command has ended.
func withoutPlaceholders(entries []fs.DirEntry) []fs.DirEntry {
	if !sandbox.HoldsPaths() {
		return entries
	}
	return slices.DeleteFunc(entries, isPlaceholder)
}

func isPlaceholder(d fs.DirEntry) bool {
	fi, err := d.Info()
	return err == nil && sandbox.IsPlaceholder(fi)
}
