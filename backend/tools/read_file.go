package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

const (
	readMaxLines     = 2000
	readMaxBytes     = 100 << 10
	readMaxLineBytes = 2000
	// binarySniff is how much of a file is checked for a NUL byte to
	// decide that it is binary.
	binarySniff = 8 << 10
)

//go:embed read_file.md
var readFileDoc string

type readFileInput struct {
	Path   string `json:"path" jsonschema:"the file to read, relative to the workspace"`
	Offset int    `json:"offset,omitempty" jsonschema:"1-based line number to start reading at (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many lines to read at most (default and maximum 2000)"`
}

var readFileSpec = llm.ToolSpec{
	Name: "read_file",
	Description: describe("read_file", readFileDoc, map[string]any{
		"MaxLines": readMaxLines, "MaxKB": readMaxBytes >> 10, "MaxLineBytes": readMaxLineBytes,
	}),
	Parameters: schemaFor[readFileInput](func(p map[string]*jsonschema.Schema) {
		p["offset"].Minimum = jsonschema.Ptr(0.0) // 0 is read as 1: models send it
		p["limit"].Minimum = jsonschema.Ptr(1.0)
	}),
}

type readFile struct{ ws *Workspace }

func (readFile) Spec() llm.ToolSpec { return readFileSpec }
func (readFile) ReadOnly() bool     { return true }

func (t readFile) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	in, err := decode[readFileInput]("read_file", args)
	if err != nil {
		return Result{}, err
	}
	r, err := t.ws.Resolve(in.Path)
	if err != nil {
		return Result{}, err
	}
	rel := r.Real
	f, fi, exists, err := t.ws.openResolved(in.Path, rel)
	if err != nil {
		return Result{}, err
	}
	if !exists {
		return Result{}, &notExistError{in.Path}
	}
	defer f.Close()
	if err := checkOpened(ctx, rel); err != nil {
		return Result{}, err
	}
	defer t.ws.rememberOpen(rel, f)

	display := &trace.Display{Path: rel}
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(binarySniff) // fewer bytes at EOF is fine
	if bytes.IndexByte(head, 0) >= 0 {
		return Result{Content: fmt.Sprintf("binary file, %d bytes; not shown", fi.Size()), Display: display}, nil
	}

	first := max(in.Offset, 1)
	limit := in.Limit
	if limit <= 0 || limit > readMaxLines {
		limit = readMaxLines
	}
	var out strings.Builder
	last := first - 1 // last line shown
	full := false     // the byte budget stopped the output
	cut := false      // some line was cut
	n := 0            // lines so far
	for {
		if n%4096 == 0 && ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		want := n+1 >= first && n+1 < first+limit && !full
		keep := 0
		if want {
			keep = readMaxLineBytes + 2 // room for "\r\n"
		}
		line, size, err := readLine(br, keep)
		if size == 0 && err == io.EOF {
			break
		}
		n++
		if want {
			text := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
			if len(text) > readMaxLineBytes || size > len(line) {
				text = cutUTF8(text, readMaxLineBytes) + fmt.Sprintf("… [line cut; it has %d bytes]", lineSize(size, err))
				cut = true
			}
			entry := fmt.Sprintf("%6d\t%s\n", n, text)
			if out.Len()+len(entry) > readMaxBytes {
				full = true
			} else {
				out.WriteString(entry)
				last = n
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return Result{}, explain(in.Path, err)
		}
	}

	if n == 0 {
		return Result{Content: fmt.Sprintf("%s is empty (0 bytes)", in.Path), Display: display}, nil
	}
	if first > n {
		return Result{}, fmt.Errorf("offset %d is past the end of %s, which has %d lines", first, in.Path, n)
	}
	res := Result{Display: display, Truncated: cut}
	if first > 1 || last < n {
		res.Truncated = true
		fmt.Fprintf(&out, "\n[showing lines %d–%d of %d", first, last, n)
		if last < n {
			fmt.Fprintf(&out, "; use offset=%d to read on", last+1)
		}
		out.WriteString("]\n")
	}
	if cut {
		fmt.Fprintf(&out, "[lines longer than %d bytes were cut]\n", readMaxLineBytes)
	}
	res.Content = out.String()
	return res, nil
}

// readLine reads one line (with its "\n") and returns at most keep bytes of
// it, and its full size. At the end of the input it returns io.EOF, with
// the last line if that had no "\n".
func readLine(br *bufio.Reader, keep int) (line []byte, size int, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		size += len(chunk)
		if room := keep - len(line); room > 0 {
			line = append(line, chunk[:min(room, len(chunk))]...)
		}
		if err != bufio.ErrBufferFull {
			return line, size, err
		}
	}
}

// lineSize is a line's size without its "\n" (a line read without error
// ended with one).
func lineSize(size int, err error) int {
	if err == nil {
		return size - 1
	}
	return size
}

// cutUTF8 shortens s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
