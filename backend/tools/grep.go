package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/loupe-dev/loupe/backend/llm"
)

const (
	grepMaxMatches   = 250
	grepMaxLineBytes = 300
	// grepMaxFileBytes: larger files are not searched (logs, dumps).
	grepMaxFileBytes = 16 << 20
)

//go:embed grep.md
var grepDoc string

type grepInput struct {
	Pattern string `json:"pattern" jsonschema:"regular expression (Go RE2 syntax) to search for"`
	Path    string `json:"path,omitempty" jsonschema:"file or directory to search, relative to the workspace (default: the whole workspace)"`
	Include string `json:"include,omitempty" jsonschema:"only search files whose name matches this glob, e.g. *.go"`
}

var grepSpec = llm.ToolSpec{
	Name: "grep",
	Description: describe("grep", grepDoc, map[string]any{
		"MaxMatches": grepMaxMatches, "MaxLineBytes": grepMaxLineBytes,
	}),
	Parameters: schemaFor[grepInput](nil),
}

type grepTool struct{ ws *Workspace }

func (grepTool) Spec() llm.ToolSpec { return grepSpec }
func (grepTool) ReadOnly() bool     { return true }

func (t grepTool) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	in, err := decode[grepInput]("grep", args)
	if err != nil {
		return Result{}, err
	}
	re, err := regexp.Compile(in.Pattern)
	if err != nil {
		return Result{}, fmt.Errorf("invalid regular expression: %v", err)
	}
	if in.Include != "" && !doublestar.ValidatePattern(in.Include) {
		return Result{}, fmt.Errorf("invalid include pattern %q", in.Include)
	}
	where := in.Path
	if where == "" {
		where = "."
	}
	r, err := t.ws.Resolve(where)
	if err != nil {
		return Result{}, err
	}
	rel := r.Lexical
	if !r.Exists {
		return Result{}, &notExistError{where}
	}

	s := &grepSearch{ws: t.ws, re: re}
	if r.IsDir {
		err = t.ws.walk(ctx, rel, func(p string, d fs.DirEntry) {
			if s.full() || !d.Type().IsRegular() || !includes(in.Include, p) {
				return
			}
			s.file(p)
		})
		if err != nil {
			return Result{}, err
		}
	} else {
		// One file: opened and checked like read_file's.
		f, _, exists, err := t.ws.openResolved(where, r.Real)
		if err != nil {
			return Result{}, err
		}
		if !exists {
			return Result{}, &notExistError{where}
		}
		defer f.Close()
		if err := checkOpened(ctx, r.Real); err != nil {
			return Result{}, err
		}
		s.search(rel, f)
	}
	if s.err != nil {
		return Result{}, s.err
	}

	if s.count == 0 {
		msg := fmt.Sprintf("no matches for %s in %s", in.Pattern, where)
		if in.Include != "" {
			msg += " (files matching " + in.Include + ")"
		}
		return Result{Content: msg}, nil
	}
	res := Result{Content: s.out.String()}
	if s.full() {
		res.Truncated = true
		res.Content += fmt.Sprintf("[stopped after %d matches; narrow the pattern, path or include]\n", grepMaxMatches)
	} else if s.cut {
		res.Truncated = true
	}
	if s.cut {
		res.Content += fmt.Sprintf("[lines longer than %d bytes were cut]\n", grepMaxLineBytes)
	}
	return res, nil
}

// includes reports whether the file at p passes the include filter: a
// pattern without "/" is matched against the file name, one with "/"
// against the workspace-relative path.
func includes(include, p string) bool {
	if include == "" {
		return true
	}
	if strings.Contains(include, "/") {
		return doublestar.MatchUnvalidated(include, p)
	}
	return doublestar.MatchUnvalidated(include, path.Base(p))
}

type grepSearch struct {
	ws    *Workspace
	re    *regexp.Regexp
	out   strings.Builder
	count int
	cut   bool
	err   error
}

// full means one more match than is shown was found: there are more.
func (s *grepSearch) full() bool { return s.count > grepMaxMatches }

// file searches one file. Files that cannot be read, binary files and very
// large files are skipped.
func (s *grepSearch) file(rel string) {
	f, err := s.ws.root.Open(native(rel))
	if err != nil {
		return
	}
	defer f.Close()
	s.search(rel, f)
}

// search searches the open file f, found at rel.
func (s *grepSearch) search(rel string, f *os.File) {
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > grepMaxFileBytes {
		return
	}
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(binarySniff); bytes.IndexByte(head, 0) >= 0 {
		return
	}
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			if s.re.Match(line) {
				s.count++
				if s.full() {
					return
				}
				text := string(line)
				if len(text) > grepMaxLineBytes {
					text = cutUTF8(text, grepMaxLineBytes) + "…"
					s.cut = true
				}
				fmt.Fprintf(&s.out, "%s:%d:%s\n", rel, n, text)
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			return
		}
	}
}
