package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

//go:embed write_file.md
var writeFileDoc string

type writeFileInput struct {
	Path    string `json:"path" jsonschema:"the file to write, relative to the workspace"`
	Content string `json:"content" jsonschema:"the complete new content of the file"`
}

var writeFileSpec = llm.ToolSpec{
	Name:        "write_file",
	Description: describe("write_file", writeFileDoc, nil),
	Parameters:  schemaFor[writeFileInput](nil),
}

type writeFile struct{ ws *Workspace }

func (writeFile) Spec() llm.ToolSpec { return writeFileSpec }
func (writeFile) ReadOnly() bool     { return false }

// change is a planned write: the file's path (resolved: symlinks
// followed), its content before and after, and the mode to keep.
type change struct {
	rel      string
	old, new string
	mode     fs.FileMode
	existed  bool
}

func (c change) diff() string { return unifiedDiff(c.rel, c.old, c.new, !c.existed) }

func (t writeFile) plan(ctx context.Context, args json.RawMessage) (change, error) {
	in, err := decode[writeFileInput]("write_file", args)
	if err != nil {
		return change{}, err
	}
	r, err := t.ws.Resolve(in.Path)
	if err != nil {
		return change{}, err
	}
	if r.Lexical == "." || r.Real == "." {
		return change{}, fmt.Errorf("%s is the workspace directory, not a file", in.Path)
	}
	if err := checkOpened(ctx, r.Real); err != nil {
		return change{}, err
	}
	old, mode, existed, err := t.ws.current(in.Path, r.Real)
	if err != nil {
		return change{}, err
	}
	return change{rel: r.Real, old: old, new: in.Content, mode: mode, existed: existed}, nil
}

func (t writeFile) Preview(ctx context.Context, args json.RawMessage) (trace.Display, error) {
	c, err := t.plan(ctx, args)
	if err != nil {
		return trace.Display{}, err
	}
	return trace.Display{Path: c.rel, Diff: c.diff()}, nil
}

func (t writeFile) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	t.ws.writeMu.Lock()
	defer t.ws.writeMu.Unlock()
	c, err := t.plan(ctx, args)
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
	how := "created"
	if c.existed {
		how = "overwrote"
	}
	return Result{
		Content: fmt.Sprintf("wrote %d bytes to %s (%s)", len(c.new), c.rel, how),
		Display: &trace.Display{Path: c.rel, Diff: c.diff()},
		Changes: []trace.FileChange{c.fileChange()},
	}, nil
}
