package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestEditFile(t *testing.T) {
	const src = "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n"
	tests := []struct {
		name    string
		file    string // content before; default src
		args    map[string]any
		want    string // content after, on success
		content string // Result.Content
		err     string // error substring, file must be unchanged
	}{
		{name: "one match",
			args:    map[string]any{"old_string": "func a() {\n\treturn 1", "new_string": "func a() {\n\treturn 2"},
			want:    "func a() {\n\treturn 2\n}\n\nfunc b() {\n\treturn 1\n}\n",
			content: "edited f.go: replaced 1 occurrence at line 1"},
		{name: "one match later in the file",
			args:    map[string]any{"old_string": "func b", "new_string": "func c"},
			want:    strings.Replace(src, "func b", "func c", 1),
			content: "edited f.go: replaced 1 occurrence at line 5"},
		{name: "no match",
			args: map[string]any{"old_string": "return 3", "new_string": "return 4"},
			err:  "old_string not found in f.go"},
		{name: "several matches",
			args: map[string]any{"old_string": "return 1", "new_string": "return 2"},
			err:  "old_string matches 2 times in f.go; add more context or set replace_all"},
		{name: "several matches, replace_all false",
			args: map[string]any{"old_string": "return 1", "new_string": "return 2", "replace_all": false},
			err:  "old_string matches 2 times in f.go"},
		{name: "replace_all",
			args:    map[string]any{"old_string": "return 1", "new_string": "return 2", "replace_all": true},
			want:    strings.ReplaceAll(src, "return 1", "return 2"),
			content: "edited f.go: replaced 2 occurrences (the first at line 2)"},
		{name: "replace_all with one match",
			args:    map[string]any{"old_string": "func a", "new_string": "func z", "replace_all": true},
			want:    strings.Replace(src, "func a", "func z", 1),
			content: "edited f.go: replaced 1 occurrence at line 1"},
		{name: "delete text",
			args: map[string]any{"old_string": "\nfunc b() {\n\treturn 1\n}\n", "new_string": ""},
			want: "func a() {\n\treturn 1\n}\n"},
		{name: "same strings",
			args: map[string]any{"old_string": "func a", "new_string": "func a"},
			err:  "old_string and new_string are the same"},
		{name: "empty old_string",
			args: map[string]any{"old_string": "", "new_string": "x"},
			err:  "old_string is empty"},
		{name: "crlf file",
			file:    "one\r\ntwo\r\nthree\r\n",
			args:    map[string]any{"old_string": "one\ntwo\n", "new_string": "1\n2\n"},
			want:    "1\r\n2\r\nthree\r\n",
			content: "edited f.go: replaced 1 occurrence at line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.file
			if before == "" {
				before = src
			}
			ws, dir := newWorkspace(t, map[string]string{"f.go": before})
			a := map[string]any{"path": "f.go"}
			for k, v := range tt.args {
				a[k] = v
			}
			res, err := call(t, ws, "edit_file", a)
			got := readTestFile(t, filepath.Join(dir, "f.go"))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("err = %v, want %q", err, tt.err)
				}
				if got != before {
					t.Errorf("file changed on error: %q", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
			if tt.content != "" && res.Content != tt.content {
				t.Errorf("Content = %q, want %q", res.Content, tt.content)
			}
			if res.Display == nil || res.Display.Path != "f.go" || res.Display.Diff != unifiedDiff("f.go", before, tt.want, false) {
				t.Errorf("Display = %+v", res.Display)
			}
			assertNoTempFiles(t, dir)
		})
	}
}

func TestEditFileMissingOrNotAFile(t *testing.T) {
	ws, dir := newWorkspace(t, map[string]string{"d/x.txt": "x"})
	for path, want := range map[string]string{
		"nope.txt": "nope.txt does not exist; use write_file to create it",
		"d":        "d is a directory",
	} {
		_, err := call(t, ws, "edit_file", map[string]any{"path": path, "old_string": "a", "new_string": "b"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nope.txt")); !os.IsNotExist(err) {
		t.Error("edit_file created a file")
	}
}

func TestEditFilePreview(t *testing.T) {
	ws, dir := newWorkspace(t, map[string]string{"f.txt": "a\nb\nc\n"})
	tool, _ := Builtins(ws, nil).Get("edit_file")
	p := tool.(Previewer)
	d, err := p.Preview(t.Context(), args(t, map[string]any{"path": "f.txt", "old_string": "b", "new_string": "B"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"; d.Diff != want {
		t.Errorf("diff:\n%s\nwant:\n%s", d.Diff, want)
	}
	if got := readTestFile(t, filepath.Join(dir, "f.txt")); got != "a\nb\nc\n" {
		t.Errorf("preview changed the file: %q", got)
	}
	if _, err := p.Preview(t.Context(), args(t, map[string]any{"path": "f.txt", "old_string": "zzz", "new_string": "B"})); err == nil {
		t.Error("preview of a failing edit: no error")
	}
}

// TestParallelEditsAreAllApplied runs edits of one file concurrently, as
// the agent does with parallel calls: none may be lost.
func TestParallelEditsAreAllApplied(t *testing.T) {
	const n = 16
	var src strings.Builder
	for i := range n {
		fmt.Fprintf(&src, "slot %02d: empty\n", i)
	}
	ws, dir := newWorkspace(t, map[string]string{"f.txt": src.String()})
	tool, _ := Builtins(ws, nil).Get("edit_file")
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, err := tool.Run(t.Context(), args(t, map[string]any{
				"path": "f.txt", "old_string": fmt.Sprintf("slot %02d: empty", i), "new_string": fmt.Sprintf("slot %02d: done", i),
			}))
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := readTestFile(t, filepath.Join(dir, "f.txt")); strings.Count(got, "done") != n {
		t.Errorf("%d of %d edits survived:\n%s", strings.Count(got, "done"), n, got)
	}
}
