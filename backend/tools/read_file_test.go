package tools

import (
	"fmt"
	"strings"
	"testing"
)

func numbered(from, to int, line func(int) string) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i, line(i))
	}
	return b.String()
}

func lines(n int, line func(int) string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(line(i))
		b.WriteByte('\n')
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	short := func(i int) string { return fmt.Sprintf("line %d", i) }
	long := func(i int) string { return fmt.Sprintf("%04d ", i) + strings.Repeat("x", 95) } // 100 bytes
	ws, _ := newWorkspace(t, map[string]string{
		"small.txt":    "alpha\nbeta\n",
		"nonl.txt":     "alpha\nbeta",
		"crlf.txt":     "a\r\nb\r\n",
		"3000.txt":     lines(3000, short),
		"wide.txt":     lines(2000, long),
		"longline.txt": "short\n" + strings.Repeat("é", 3000) + "\nend\n",
		"empty.txt":    "",
	})
	tests := []struct {
		name      string
		args      map[string]any
		want      string // whole content, or "" to skip
		prefix    string
		suffix    string
		truncated bool
	}{
		{name: "whole small file", args: map[string]any{"path": "small.txt"},
			want: "     1\talpha\n     2\tbeta\n"},
		{name: "no final newline", args: map[string]any{"path": "nonl.txt"},
			want: "     1\talpha\n     2\tbeta\n"},
		{name: "crlf shown without \\r", args: map[string]any{"path": "crlf.txt"},
			want: "     1\ta\n     2\tb\n"},
		{name: "offset 0 means 1", args: map[string]any{"path": "small.txt", "offset": 0},
			want: "     1\talpha\n     2\tbeta\n"},
		{name: "default limit 2000", args: map[string]any{"path": "3000.txt"},
			want:      numbered(1, 2000, short) + "\n[showing lines 1–2000 of 3000; use offset=2001 to read on]\n",
			truncated: true},
		{name: "offset to the end", args: map[string]any{"path": "3000.txt", "offset": 2990},
			want:      numbered(2990, 3000, short) + "\n[showing lines 2990–3000 of 3000]\n",
			truncated: true},
		{name: "offset and limit", args: map[string]any{"path": "3000.txt", "offset": 10, "limit": 3},
			want:      numbered(10, 12, short) + "\n[showing lines 10–12 of 3000; use offset=13 to read on]\n",
			truncated: true},
		{name: "limit over 2000 is capped", args: map[string]any{"path": "3000.txt", "limit": 5000},
			suffix: "[showing lines 1–2000 of 3000; use offset=2001 to read on]\n", truncated: true},
		{name: "limit covering the file", args: map[string]any{"path": "small.txt", "limit": 2},
			want: "     1\talpha\n     2\tbeta\n"},
		{name: "byte cap", args: map[string]any{"path": "wide.txt"},
			// each numbered line is 6+1+100+1 = 108 bytes: 948 fit in 100 KB
			want:      numbered(1, 948, long) + "\n[showing lines 1–948 of 2000; use offset=949 to read on]\n",
			truncated: true},
		{name: "long line cut", args: map[string]any{"path": "longline.txt"},
			prefix:    "     1\tshort\n     2\t" + strings.Repeat("é", 1000) + "… [line cut; it has 6000 bytes]\n     3\tend\n",
			suffix:    "[lines longer than 2000 bytes were cut]\n",
			truncated: true},
		{name: "empty", args: map[string]any{"path": "empty.txt"}, want: "empty.txt is empty (0 bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustRun(t, ws, "read_file", tt.args)
			if tt.want != "" && res.Content != tt.want {
				t.Errorf("content:\n%s\nwant:\n%s", clip(res.Content), clip(tt.want))
			}
			if !strings.HasPrefix(res.Content, tt.prefix) || !strings.HasSuffix(res.Content, tt.suffix) {
				t.Errorf("content:\n%s\nwant prefix %q suffix %q", clip(res.Content), clip(tt.prefix), tt.suffix)
			}
			if res.Truncated != tt.truncated {
				t.Errorf("Truncated = %v, want %v", res.Truncated, tt.truncated)
			}
			if len(res.Content) > readMaxBytes+200 {
				t.Errorf("content is %d bytes", len(res.Content))
			}
			if res.IsError {
				t.Error("IsError")
			}
		})
	}
}

// clip keeps failure messages readable.
func clip(s string) string {
	if len(s) > 600 {
		return s[:300] + "\n…\n" + s[len(s)-300:]
	}
	return s
}

func TestReadFileErrors(t *testing.T) {
	ws, _ := newWorkspace(t, map[string]string{"small.txt": "a\nb\n", "sub/x.txt": "x"})
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "sub"}, "sub is a directory; use list_dir"},
		{map[string]any{"path": "."}, ". is a directory; use list_dir"},
		{map[string]any{"path": "missing.txt"}, "missing.txt does not exist"},
		{map[string]any{"path": "small.txt", "offset": 3}, "offset 3 is past the end of small.txt, which has 2 lines"},
	}
	for _, tt := range tests {
		res, err := call(t, ws, "read_file", tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %q, %v; want error containing %q", tt.args, res.Content, err, tt.want)
		}
	}
}

func TestReadFileBinary(t *testing.T) {
	text := strings.Repeat("a", binarySniff) + "\x00 late NUL\n"
	ws, _ := newWorkspace(t, map[string]string{
		"bin.dat":  "\x7fELF\x00\x01\x02garbage\n",
		"late.txt": text,
	})
	res := mustRun(t, ws, "read_file", map[string]any{"path": "bin.dat"})
	if want := "binary file, 15 bytes; not shown"; res.Content != want {
		t.Errorf("binary: %q, want %q", res.Content, want)
	}
	// Only the first 8 KB decide: a NUL after them is shown as text.
	res = mustRun(t, ws, "read_file", map[string]any{"path": "late.txt"})
	if !strings.HasPrefix(res.Content, "     1\taaaa") {
		t.Errorf("late NUL: %q", clip(res.Content))
	}
}

func TestCutUTF8(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abc", 2, "ab"},
		{"ééé", 3, "é"},  // would split the second é
		{"ééé", 4, "éé"}, // exact boundary
		{"a€b", 2, "a"},  // inside a 3-byte rune
		{"a€b", 3, "a"},
		{"a€b", 4, "a€"},
	}
	for _, tt := range tests {
		if got := cutUTF8(tt.s, tt.n); got != tt.want {
			t.Errorf("cutUTF8(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
