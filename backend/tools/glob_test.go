package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestGlob(t *testing.T) {
	ws, dir := newWorkspace(t, map[string]string{
		"main.go":              "",
		"README.md":            "",
		"cmd/app/app.go":       "",
		"cmd/app/app_test.go":  "",
		"internal/x/x.go":      "",
		"internal/x/data.json": "",
		".git/hooks/pre.go":    "",
		".github/ci.yaml":      "",
		"vendor.go/keep.txt":   "", // a directory whose name matches *.go
	})
	tests := []struct {
		pattern string
		want    []string
	}{
		{"**/*.go", []string{"cmd/app/app.go", "cmd/app/app_test.go", "internal/x/x.go", "main.go"}},
		{"*.go", []string{"main.go"}},
		{"cmd/**/*_test.go", []string{"cmd/app/app_test.go"}},
		{"**/*.{json,md}", []string{"README.md", "internal/x/data.json"}},
		{"./cmd/app/app.go", []string{"cmd/app/app.go"}},
		{filepath.Join(dir, "cmd") + "/*/*.go", []string{"cmd/app/app.go", "cmd/app/app_test.go"}},
		{"**/*.yaml", []string{".github/ci.yaml"}},
		{"**/pre.go", nil}, // only in .git
		{"nope/**", nil},
	}
	for _, tt := range tests {
		res := mustRun(t, ws, "glob", map[string]any{"pattern": tt.pattern})
		want := "no files match " + tt.pattern
		if tt.want != nil {
			want = strings.Join(tt.want, "\n") + "\n"
		}
		if res.Content != want {
			t.Errorf("glob %s:\n%s\nwant:\n%s", tt.pattern, res.Content, want)
		}
	}
	if _, err := call(t, ws, "glob", map[string]any{"pattern": "[a-"}); err == nil || !strings.Contains(err.Error(), "invalid glob pattern") {
		t.Errorf("bad pattern: %v", err)
	}
}

func TestGlobCap(t *testing.T) {
	files := map[string]string{}
	for i := range globMaxMatches + 3 {
		files[fmt.Sprintf("d/f%04d.txt", i)] = ""
	}
	ws, _ := newWorkspace(t, files)
	res := mustRun(t, ws, "glob", map[string]any{"pattern": "**/*.txt"})
	lines := strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
	if len(lines) != globMaxMatches+1 || lines[globMaxMatches-1] != "d/f0999.txt" {
		t.Errorf("%d lines; entry %d is %q", len(lines), globMaxMatches-1, lines[globMaxMatches-1])
	}
	if want := "[showing the first 1000 of 1003 matches; use a narrower pattern]"; lines[len(lines)-1] != want || !res.Truncated {
		t.Errorf("note %q (Truncated %v)", lines[len(lines)-1], res.Truncated)
	}
}
