package tools

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestUnifiedDiffGolden(t *testing.T) {
	tests := []struct {
		name, old, new string
		created        bool
		want           string
	}{
		{name: "equal", old: "a\n", new: "a\n", want: ""},
		{name: "create", old: "", new: "a\nb\n", created: true,
			want: "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{name: "empty the file", old: "a\n", new: "",
			want: "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-a\n"},
		{name: "change in the middle with context",
			old:  "1\n2\n3\n4\n5\n6\n7\n8\n9\n",
			new:  "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n",
			want: "--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n"},
		{name: "two hunks",
			old:  "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
			new:  "ONE\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\nTWELVE\n",
			want: "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-1\n+ONE\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+TWELVE\n"},
		{name: "close changes share a hunk",
			old:  "1\n2\n3\n4\n5\n6\n7\n8\n",
			new:  "ONE\n2\n3\n4\n5\n6\n7\nEIGHT\n",
			want: "--- a/f\n+++ b/f\n@@ -1,8 +1,8 @@\n-1\n+ONE\n 2\n 3\n 4\n 5\n 6\n 7\n-8\n+EIGHT\n"},
		{name: "insert at start",
			old:  "a\nb\n",
			new:  "x\na\nb\n",
			want: "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n+x\n a\n b\n"},
		{name: "newline added at end",
			old:  "a\nb",
			new:  "a\nb\n",
			want: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{name: "newline removed at end",
			old:  "a\nb\n",
			new:  "a\nb",
			want: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n"},
		{name: "create without a final newline", old: "", new: "x", created: true,
			want: "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n"},
		{name: "lines removed in the middle",
			old:  "1\n2\n3\n4\n5\n6\n7\n8\n",
			new:  "1\n2\n3\n6\n7\n8\n",
			want: "--- a/f\n+++ b/f\n@@ -1,8 +1,6 @@\n 1\n 2\n 3\n-4\n-5\n 6\n 7\n 8\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := unifiedDiff("f", tt.old, tt.new, tt.created)
			if got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// splitLines splits s into lines that keep their "\n"; a last line without
// one is kept as is.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// countEdits counts the removed and added lines of a unified diff.
func countEdits(diff string) int {
	n := 0
	for i, l := range splitLines(diff) {
		if i >= 2 && (l[0] == '-' || l[0] == '+') {
			n++
		}
	}
	return n
}

// applyDiff applies a unified diff made by unifiedDiff, checking every
// context and removed line and every hunk count.
func applyDiff(old, diff string) (string, error) {
	if diff == "" {
		return old, nil
	}
	src := splitLines(old)
	dl := splitLines(diff)
	if len(dl) < 2 || !strings.HasPrefix(dl[0], "--- ") || !strings.HasPrefix(dl[1], "+++ ") {
		return "", fmt.Errorf("bad header")
	}
	dl = dl[2:]
	var out []string
	pos := 0 // next unread line of src, 0-based
	for len(dl) > 0 {
		h := strings.TrimSpace(dl[0])
		parts := strings.Fields(h)
		if len(parts) != 4 || parts[0] != "@@" || parts[3] != "@@" || parts[1][0] != '-' || parts[2][0] != '+' {
			return "", fmt.Errorf("bad hunk header %q", h)
		}
		oldStart, oc := parseRange(parts[1][1:])
		ns, nc := parseRange(parts[2][1:])
		start := oldStart - 1
		if oc == 0 {
			start = oldStart
		}
		if start < pos {
			return "", fmt.Errorf("hunk %q goes back", h)
		}
		out = append(out, src[pos:start]...)
		if len(out) != max(ns-1, 0) && !(nc == 0 && len(out) == ns) {
			return "", fmt.Errorf("hunk %q: new side starts at %d, have %d lines", h, ns, len(out))
		}
		pos = start
		dl = dl[1:]
		gotOld, gotNew := 0, 0
		for len(dl) > 0 && !strings.HasPrefix(dl[0], "@@") {
			l := dl[0]
			dl = dl[1:]
			body := l[1:]
			if len(dl) > 0 && dl[0] == "\\ No newline at end of file\n" {
				body = strings.TrimSuffix(body, "\n")
				dl = dl[1:]
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(src) || src[pos] != body {
					return "", fmt.Errorf("hunk %q: line %d is %q, diff says %q", h, pos+1, at(src, pos), body)
				}
				pos++
				gotOld++
				if l[0] == ' ' {
					out = append(out, body)
					gotNew++
				}
			case '+':
				out = append(out, body)
				gotNew++
			default:
				return "", fmt.Errorf("bad line %q", l)
			}
		}
		if gotOld != oc || gotNew != nc {
			return "", fmt.Errorf("hunk %q: counted -%d +%d", h, gotOld, gotNew)
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, ""), nil
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "<EOF>"
}

func parseRange(r string) (start, count int) {
	s, c, ok := strings.Cut(r, ",")
	start, _ = strconv.Atoi(s)
	count = 1
	if ok {
		count, _ = strconv.Atoi(c)
	}
	return start, count
}

func randomText(r *rand.Rand) string {
	n := r.IntN(25)
	var b strings.Builder
	for i := range n {
		b.WriteByte("abcd"[r.IntN(4)])
		if i < n-1 || r.IntN(4) != 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// lcs is the length of the longest common subsequence of lines, by
// dynamic programming: the reference a minimal diff must match.
func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

func TestDiffRoundTripAndMinimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		old, new := randomText(r), randomText(r)
		d := unifiedDiff("f", old, new, false)
		got, err := applyDiff(old, d)
		if err != nil || got != new {
			t.Fatalf("case %d: old %q new %q\ndiff:\n%s\napplied: %q, %v", i, old, new, d, got, err)
		}
		a, b := splitLines(old), splitLines(new)
		if edits, want := countEdits(d), len(a)+len(b)-2*lcs(a, b); edits != want {
			t.Fatalf("case %d: %d edits, minimal is %d (old %q new %q)", i, edits, want, old, new)
		}
	}
}

// randomEdit changes a few lines of text: replaced, removed or inserted.
func randomEdit(r *rand.Rand, lines []string, n int) []string {
	out := append([]string(nil), lines...)
	for range n {
		i := r.IntN(len(out) + 1)
		switch r.IntN(3) {
		case 0:
			out = append(out[:i], append([]string{fmt.Sprintf("new %d\n", r.IntN(1000))}, out[i:]...)...)
		case 1:
			if i < len(out) {
				out = append(out[:i], out[i+1:]...)
			}
		default:
			if i < len(out) {
				out[i] = fmt.Sprintf("changed %d\n", r.IntN(1000))
			}
		}
	}
	return out
}

// TestDiffLargerFiles edits files of a few hundred lines in a few places,
// as write_file and edit_file do: the diff applies and stays minimal.
func TestDiffLargerFiles(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 200 {
		var lines []string
		for j := range 50 + r.IntN(400) {
			lines = append(lines, fmt.Sprintf("line %d\n", j%37))
		}
		old := strings.Join(lines, "")
		new := strings.Join(randomEdit(r, lines, 1+r.IntN(12)), "")
		d := unifiedDiff("f", old, new, false)
		if got, err := applyDiff(old, d); err != nil || got != new {
			t.Fatalf("case %d: diff does not apply: %v\n%s", i, err, d)
		}
		a, b := splitLines(old), splitLines(new)
		if edits, want := countEdits(d), len(a)+len(b)-2*lcs(a, b); edits != want {
			t.Fatalf("case %d: %d edits, minimal is %d\n%s", i, edits, want, d)
		}
	}
}

func TestDiffTruncated(t *testing.T) {
	old := strings.Repeat("same\n", 10)
	new := strings.Repeat("a fairly long added line of text\n", maxDiffBytes/20)
	d := unifiedDiff("f", old, new, false)
	if len(d) > maxDiffBytes+64 || !strings.HasSuffix(d, "\n… [diff truncated]\n") || !strings.HasPrefix(d, "--- a/f\n+++ b/f\n@@ ") {
		t.Fatalf("len %d, ends %q", len(d), d[max(0, len(d)-60):])
	}
}

func TestDiffFallbackBeyondEditLimit(t *testing.T) {
	// Far more changes than go-udiff searches for the shortest diff: it
	// need not be minimal but must still be correct.
	var a, b strings.Builder
	for i := range 1500 {
		fmt.Fprintf(&a, "old %d\nsame %d\n", i, i)
		fmt.Fprintf(&b, "new %d\nsame %d\n", i, i)
	}
	d := unifiedDiff("f", a.String(), b.String(), false)
	if got, err := applyDiff(a.String(), d); err != nil || got != b.String() {
		t.Fatalf("fallback diff does not apply: %v", err)
	}
}

// TestDiffAppliesWithPatch checks the format against GNU patch.
func TestDiffAppliesWithPatch(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch is not installed; TestDiffRoundTripAndMinimal covers the format with our own applier")
	}
	r := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	for i := range 40 {
		old, new := randomText(r), randomText(r)
		if old == new {
			continue
		}
		oldPath := filepath.Join(dir, "f")
		patchPath := filepath.Join(dir, "d.patch")
		writeTestFile(t, oldPath, old)
		writeTestFile(t, patchPath, unifiedDiff("f", old, new, false))
		out, err := exec.Command("patch", "-s", "-f", oldPath, patchPath).CombinedOutput()
		if err != nil {
			t.Fatalf("case %d: patch: %v\n%s\nold %q new %q", i, err, out, old, new)
		}
		got, _ := os.ReadFile(oldPath)
		if string(got) != new {
			t.Fatalf("case %d: patch produced %q, want %q", i, got, new)
		}
	}
}
