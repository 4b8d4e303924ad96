package tools

import (
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// The diffs shown for write_file and edit_file are ordinary unified diffs
// of lines with three lines of context, as diff -u writes them. go-udiff
// (a copy of the Go team's golang.org/x/tools/internal/diff) computes and
// formats them. It bounds its own work: past about a hundred changes it
// settles for a correct diff that is not the shortest. Only the UI sees
// these diffs.

// maxDiffBytes bounds the diff text kept for display.
const maxDiffBytes = 512 << 10

// unifiedDiff returns the unified diff from old to new for path, or "" if
// they are equal. created labels the old side /dev/null.
func unifiedDiff(path, old, new string, created bool) string {
	if old == new {
		return ""
	}
	from := "a/" + path
	if created {
		from = "/dev/null"
	}
	to := "b/" + path
	// Not udiff.Unified: it ends the process (log.Fatalf) should the
	// library ever disagree with itself.
	d, err := udiff.ToUnified(from, to, old, udiff.Lines(old, new), udiff.DefaultContextLines)
	if err != nil {
		return "--- " + from + "\n+++ " + to + "\n… [no diff: " + err.Error() + "]\n"
	}
	if len(d) > maxDiffBytes {
		s := d[:maxDiffBytes]
		return s[:strings.LastIndexByte(s, '\n')+1] + "… [diff truncated]\n"
	}
	return d
}
