package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

//go:embed edit_file.md
var editFileDoc string

type editFileInput struct {
	Path       string `json:"path" jsonschema:"the file to edit, relative to the workspace"`
	OldString  string `json:"old_string" jsonschema:"the exact text to replace"`
	NewString  string `json:"new_string" jsonschema:"the text to put in its place"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every match instead of exactly one (default false)"`
}

var editFileSpec = llm.ToolSpec{
	Name:        "edit_file",
	Description: describe("edit_file", editFileDoc, nil),
	Parameters:  schemaFor[editFileInput](nil),
}

type editFile struct{ ws *Workspace }

func (editFile) Spec() llm.ToolSpec { return editFileSpec }
func (editFile) ReadOnly() bool     { return false }

// plan works out the edit without writing; it fails, leaving the file as
// it is, unless old_string matches as required.
func (t editFile) plan(ctx context.Context, args json.RawMessage) (c change, count, line int, err error) {
	in, err := decode[editFileInput]("edit_file", args)
	if err != nil {
		return c, 0, 0, err
	}
	if in.OldString == "" {
		return c, 0, 0, errors.New("old_string is empty; to create or replace a whole file use write_file")
	}
	if in.OldString == in.NewString {
		return c, 0, 0, errors.New("old_string and new_string are the same; there is nothing to change")
	}
	r, err := t.ws.Resolve(in.Path)
	if err != nil {
		return c, 0, 0, err
	}
	rel := r.Real
	if err := checkOpened(ctx, rel); err != nil {
		return c, 0, 0, err
	}
	old, mode, existed, err := t.ws.current(in.Path, rel)
	if err != nil {
		return c, 0, 0, err
	}
	if !existed {
		return c, 0, 0, fmt.Errorf("%s does not exist; use write_file to create it", in.Path)
	}
	if t.ws.seen.changedSince(rel, []byte(old)) {
		return c, 0, 0, fmt.Errorf("%s changed on disk since you last read it; read it again before editing", in.Path)
	}
	from, to := in.OldString, in.NewString
	count = strings.Count(old, from)
	if count == 0 && strings.Contains(old, "\r\n") && !strings.Contains(from, "\r\n") {
		// The file has Windows line endings that read_file does not
		// show; match the text the model saw.
		from = strings.ReplaceAll(from, "\n", "\r\n")
		to = strings.ReplaceAll(to, "\n", "\r\n")
		count = strings.Count(old, from)
	}
	switch {
	case count == 0:
		return c, 0, 0, fmt.Errorf("old_string not found in %s; read the file again and copy the text exactly", in.Path)
	case count > 1 && !in.ReplaceAll:
		return c, 0, 0, fmt.Errorf("old_string matches %d times in %s; add more context or set replace_all", count, in.Path)
	}
	line = strings.Count(old[:strings.Index(old, from)], "\n") + 1
	n := 1
	if in.ReplaceAll {
		n = -1
	}
	c = change{rel: rel, old: old, new: strings.Replace(old, from, to, n), mode: mode, existed: true}
	return c, count, line, nil
}

func (t editFile) Preview(ctx context.Context, args json.RawMessage) (trace.Display, error) {
	c, _, _, err := t.plan(ctx, args)
	if err != nil {
		return trace.Display{}, err
	}
	return trace.Display{Path: c.rel, Diff: c.diff()}, nil
}

func (t editFile) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	t.ws.writeMu.Lock()
	defer t.ws.writeMu.Unlock()
	c, count, line, err := t.plan(ctx, args)
	if err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if err := t.ws.writeAtomic(c.rel, c.rel, []byte(c.new), c.mode, guardOf(ctx)); err != nil {
		return Result{}, err
	}
	t.ws.seen.remember(c.rel, []byte(c.new))
	what := fmt.Sprintf("replaced 1 occurrence at line %d", line)
	if count > 1 {
		what = fmt.Sprintf("replaced %d occurrences (the first at line %d)", count, line)
	}
	return Result{
		Content: fmt.Sprintf("edited %s: %s", c.rel, what),
		Display: &trace.Display{Path: c.rel, Diff: c.diff()},
		Changes: []trace.FileChange{c.fileChange()},
	}, nil
}
