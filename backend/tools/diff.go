package tools

import (
	"fmt"
	"strings"
)

// The diffs shown for write_file and edit_file are ordinary unified diffs
// of lines, computed with Myers' algorithm after trimming the common start
// and end. Only the UI sees them.

const (
	diffContext = 3
	// maxDiffEdits bounds the work of the line diff. Past it, the changed
	// middle of the file is shown as removed and re-added: still a correct
	// diff, just not a minimal one.
	maxDiffEdits = 1000
	// maxDiffBytes bounds the diff text kept for display.
	maxDiffBytes = 512 << 10
)

type opKind byte

const (
	opEqual  opKind = ' '
	opDelete opKind = '-'
	opInsert opKind = '+'
)

type diffOp struct {
	kind opKind
	line string // with its "\n", if it has one
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

// unifiedDiff returns the unified diff from old to new for path, or "" if
// they are equal. created labels the old side /dev/null.
func unifiedDiff(path, old, new string, created bool) string {
	if old == new {
		return ""
	}
	ops := diffLines(splitLines(old), splitLines(new))
	var b strings.Builder
	from := "a/" + path
	if created {
		from = "/dev/null"
	}
	fmt.Fprintf(&b, "--- %s\n+++ b/%s\n", from, path)
	writeHunks(&b, ops)
	if b.Len() > maxDiffBytes {
		s := b.String()[:maxDiffBytes]
		return s[:strings.LastIndexByte(s, '\n')+1] + "… [diff truncated]\n"
	}
	return b.String()
}

// diffLines returns the edit script turning a into b.
func diffLines(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]diffOp, 0, len(a)+len(b))
	for _, l := range a[:pre] {
		ops = append(ops, diffOp{opEqual, l})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, diffOp{opEqual, l})
	}
	return ops
}

// myers is Myers' O(ND) diff. trace[d] keeps the furthest-reaching x for
// diagonals -d-1..d+1 before step d, which is what backtracking needs.
func myers(a, b []string) []diffOp {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return replaceAll(a, b)
	}
	limit := min(n+m, maxDiffEdits)
	off := limit + 1
	v := make([]int, 2*off+1)
	var trace [][]int
	for d := 0; d <= limit; d++ {
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: insert
			} else {
				x = v[off+k-1] + 1 // right: delete
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(a, b, trace)
			}
		}
	}
	return replaceAll(a, b)
}

func backtrack(a, b []string, trace [][]int) []diffOp {
	x, y := len(a), len(b)
	var rev []diffOp
	for d := len(trace) - 1; d >= 0; d-- {
		at := func(k int) int { return trace[d][k+d+1] }
		k := x - y
		var prevK int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			rev = append(rev, diffOp{opEqual, a[x-1]})
			x--
			y--
		}
		if d > 0 {
			if x == prevX {
				rev = append(rev, diffOp{opInsert, b[y-1]})
			} else {
				rev = append(rev, diffOp{opDelete, a[x-1]})
			}
		}
		x, y = prevX, prevY
	}
	ops := make([]diffOp, len(rev))
	for i, op := range rev {
		ops[len(rev)-1-i] = op
	}
	return ops
}

func replaceAll(a, b []string) []diffOp {
	ops := make([]diffOp, 0, len(a)+len(b))
	for _, l := range a {
		ops = append(ops, diffOp{opDelete, l})
	}
	for _, l := range b {
		ops = append(ops, diffOp{opInsert, l})
	}
	return ops
}

// writeHunks groups the changes with diffContext lines around them.
func writeHunks(b *strings.Builder, ops []diffOp) {
	// oldLine[i]/newLine[i]: 1-based line numbers before ops[i].
	oldLine := make([]int, len(ops)+1)
	newLine := make([]int, len(ops)+1)
	oldLine[0], newLine[0] = 1, 1
	for i, op := range ops {
		oldLine[i+1], newLine[i+1] = oldLine[i], newLine[i]
		if op.kind != opInsert {
			oldLine[i+1]++
		}
		if op.kind != opDelete {
			newLine[i+1]++
		}
	}
	i := 0
	for i < len(ops) {
		if ops[i].kind == opEqual {
			i++
			continue
		}
		// A hunk starts diffContext lines before this change and runs
		// until a stretch of more than 2*diffContext equal lines.
		start := max(0, i-diffContext)
		end := i
		for end < len(ops) {
			if ops[end].kind != opEqual {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == opEqual {
				run++
			}
			if run == len(ops) || run-end > 2*diffContext {
				end = min(end+diffContext, run)
				break
			}
			end = run
		}
		oldCount := oldLine[end] - oldLine[start]
		newCount := newLine[end] - newLine[start]
		fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(oldLine[start], oldCount), hunkRange(newLine[start], newCount))
		for _, op := range ops[start:end] {
			b.WriteByte(byte(op.kind))
			b.WriteString(op.line)
			if !strings.HasSuffix(op.line, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
}

// hunkRange formats one side of a hunk header as diff -u does: an empty
// range names the line before it, and a count of 1 is left out.
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start-1)
	case 1:
		return fmt.Sprintf("%d", start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}
