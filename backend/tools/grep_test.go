package tools

import (
	"fmt"
	"strings"
	"testing"
)

func TestGrep(t *testing.T) {
	ws, _ := newWorkspace(t, map[string]string{
		"main.go":          "package main\n\nfunc main() {\n\tTODO()\n}\n",
		"lib/util.go":      "package lib\n// TODO: tidy\n",
		"lib/notes.md":     "TODO list\n",
		"web/app.ts":       "// todo lower\n",
		"image.png":        "\x89PNG\x00\x00TODO binary\n",
		".git/config":      "TODO in git\n",
		"crlf.txt":         "TODO crlf\r\n",
		"lib/deep/more.go": "x\ny TODO\n",
	})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"whole workspace", map[string]any{"pattern": "TODO"},
			"crlf.txt:1:TODO crlf\nlib/deep/more.go:2:y TODO\nlib/notes.md:1:TODO list\nlib/util.go:2:// TODO: tidy\nmain.go:4:\tTODO()\n"},
		{"include by name", map[string]any{"pattern": "TODO", "include": "*.go"},
			"lib/deep/more.go:2:y TODO\nlib/util.go:2:// TODO: tidy\nmain.go:4:\tTODO()\n"},
		{"include by path", map[string]any{"pattern": "TODO", "include": "lib/*.go"},
			"lib/util.go:2:// TODO: tidy\n"},
		{"include braces", map[string]any{"pattern": "TODO", "include": "*.{md,ts}"},
			"lib/notes.md:1:TODO list\n"},
		{"path dir", map[string]any{"pattern": "TODO", "path": "lib/deep"},
			"lib/deep/more.go:2:y TODO\n"},
		{"path file", map[string]any{"pattern": "^package", "path": "main.go"},
			"main.go:1:package main\n"},
		{"case-insensitive", map[string]any{"pattern": "(?i)todo lower"},
			"web/app.ts:1:// todo lower\n"},
		{"regexp", map[string]any{"pattern": `func \w+\(\)`}, "main.go:3:func main() {\n"},
		{"no match", map[string]any{"pattern": "FIXME"}, "no matches for FIXME in ."},
		{"no match with include", map[string]any{"pattern": "FIXME", "path": "lib", "include": "*.go"},
			"no matches for FIXME in lib (files matching *.go)"},
		{"binary file named directly", map[string]any{"pattern": "TODO", "path": "image.png"},
			"no matches for TODO in image.png"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustRun(t, ws, "grep", tt.args)
			if res.Content != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", res.Content, tt.want)
			}
			if res.Truncated {
				t.Error("Truncated")
			}
		})
	}
	for _, a := range []map[string]any{
		{"pattern": "("},
		{"pattern": "x", "include": "[a-"},
		{"pattern": "x", "path": "missing"},
	} {
		if _, err := call(t, ws, "grep", a); err == nil {
			t.Errorf("grep %v: no error", a)
		}
	}
}

func TestGrepCaps(t *testing.T) {
	var many strings.Builder
	for i := range grepMaxMatches + 10 {
		fmt.Fprintf(&many, "hit %d\n", i)
	}
	ws, _ := newWorkspace(t, map[string]string{
		"many.txt": many.String(),
		"wide.txt": "hit " + strings.Repeat("w", 1000) + "\n",
	})
	res := mustRun(t, ws, "grep", map[string]any{"pattern": "hit", "path": "many.txt"})
	lines := strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
	if len(lines) != grepMaxMatches+1 || lines[grepMaxMatches-1] != "many.txt:250:hit 249" {
		t.Errorf("%d lines; last match %q", len(lines), lines[len(lines)-2])
	}
	if want := "[stopped after 250 matches; narrow the pattern, path or include]"; lines[len(lines)-1] != want || !res.Truncated {
		t.Errorf("note %q (Truncated %v)", lines[len(lines)-1], res.Truncated)
	}

	res = mustRun(t, ws, "grep", map[string]any{"pattern": "hit", "path": "wide.txt"})
	want := "wide.txt:1:hit " + strings.Repeat("w", grepMaxLineBytes-4) + "…\n[lines longer than 300 bytes were cut]\n"
	if res.Content != want || !res.Truncated {
		t.Errorf("wide:\n%q\nwant:\n%q", res.Content, want)
	}
}
