package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

const listMaxEntries = 1000

//go:embed list_dir.md
var listDirDoc string

type listDirInput struct {
	Path string `json:"path" jsonschema:"the directory to list, relative to the workspace (\".\" for the workspace itself)"`
}

var listDirSpec = llm.ToolSpec{
	Name:        "list_dir",
	Description: describe("list_dir", listDirDoc, map[string]any{"MaxEntries": listMaxEntries}),
	Parameters:  schemaFor[listDirInput](nil),
}

type listDir struct{ ws *Workspace }

func (listDir) Spec() llm.ToolSpec { return listDirSpec }
func (listDir) ReadOnly() bool     { return true }

func (t listDir) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	in, err := decode[listDirInput]("list_dir", args)
	if err != nil {
		return Result{}, err
	}
	r, err := t.ws.Resolve(in.Path)
	if err != nil {
		return Result{}, err
	}
	rel := r.Real
	if !r.Exists {
		return Result{}, &notExistError{in.Path}
	}
	if !r.IsDir {
		return Result{}, fmt.Errorf("%s is a file, not a directory; use read_file to read it", in.Path)
	}
	d, err := t.ws.openDir(in.Path, rel, "read")
	if err != nil {
		return Result{}, err
	}
	defer d.Close()
	if err := checkOpened(ctx, rel); err != nil {
		return Result{}, err
	}
	f, err := d.Open(".")
	if err != nil {
		return Result{}, explain(in.Path, err)
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return Result{}, explain(in.Path, err)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	entries = withoutPlaceholders(entries)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })

	display := &trace.Display{Path: rel}
	if len(entries) == 0 {
		return Result{Content: fmt.Sprintf("%s is empty", in.Path), Display: display}, nil
	}
	var b strings.Builder
	for i, e := range entries {
		if i == listMaxEntries {
			break
		}
		name := e.Name()
		switch {
		case e.IsDir():
			name += "/"
		case e.Type()&fs.ModeSymlink != 0:
			if target, err := d.Readlink(name); err == nil {
				name += " -> " + target
			}
		}
		b.WriteString(name)
		b.WriteByte('\n')
	}
	res := Result{Display: display}
	if len(entries) > listMaxEntries {
		res.Truncated = true
		fmt.Fprintf(&b, "[showing the first %d of %d entries; use glob to narrow down]\n", listMaxEntries, len(entries))
	}
	res.Content = b.String()
	return res, nil
}
