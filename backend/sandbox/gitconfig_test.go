package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The config reader takes values as git does: each case is a config file
// and a setting's name, and the value must be what the real
// `git config --file F --get NAME` prints (or, where git refuses the
// file, it must find the setting as well or not at all, never a value git
// would not read).
func TestGitConfigValuesAreReadAsGitReadsThem(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the reader is checked against git itself")
	}
	for _, tc := range []struct{ name, file, key string }{
		{"plain", "[include]\n\tpath = a.inc\n", "include.path"},
		{"trailing hash comment", "[include]\n\tpath = a.inc # was b.inc\n", "include.path"},
		{"trailing semicolon comment", "[include]\n\tpath = a.inc;b.inc\n", "include.path"},
		{"quoted hash", "[include]\n\tpath = \"a #b.inc\"\n", "include.path"},
		{"quoted then comment", "[include]\n\tpath = \"a.inc\" ; c\n", "include.path"},
		{"quotes in the middle", "[include]\n\tpath = a\"b c\"d.inc\n", "include.path"},
		{"escaped quote", "[include]\n\tpath = a\\\"b.inc\n", "include.path"},
		{"escaped backslash", "[include]\n\tpath = a\\\\b.inc\n", "include.path"},
		{"tab escape", "[include]\n\tpath = a\\tb.inc\n", "include.path"},
		{"newline escape", "[core]\n\tfsmonitor = a\\nb\n", "core.fsmonitor"},
		{"line continuation", "[include]\n\tpath = to\\\nols/a.inc\n", "include.path"},
		{"inner blanks kept, outer dropped", "[include]\n\tpath =   a  b.inc   \n", "include.path"},
		{"quoted blanks kept", "[include]\n\tpath = \"  a.inc  \"\n", "include.path"},
		{"no spaces around =", "[include]\npath=a.inc\n", "include.path"},
		{"section in any case", "[INCLUDE]\n\tPath = a.inc\n", "include.path"},
		{"key on the header line", "[include] path = a.inc\n", "include.path"},
		{"includeIf subsection keeps its case", "[includeIf \"gitdir:~/Work/\"]\n\tpath = w.inc\n", "includeif.gitdir:~/Work/.path"},
		{"subsection escapes", "[includeIf \"gitdir:a\\\"b\\\\c\"]\n\tpath = w.inc\n", "includeif.gitdir:a\"b\\c.path"},
		{"onbranch", "[includeIf \"onbranch:feat/*\"]\n\tpath = b.inc\n", "includeif.onbranch:feat/*.path"},
		{"hasconfig", "[includeIf \"hasconfig:remote.*.url:https://x/**\"]\n\tpath = h.inc\n", "includeif.hasconfig:remote.*.url:https://x/**.path"},
		{"old dotted subsection lowercased", "[includeIf.Foo]\n\tpath = f.inc\n", "includeif.foo.path"},
		{"CRLF lines", "[include]\r\n\tpath = a.inc\r\n", "include.path"},
		{"byte order mark", "\xef\xbb\xbf[include]\n\tpath = a.inc\n", "include.path"},
		{"comment lines", "# [include]\n; path = x\n[include]\n  # path = y\n\tpath = a.inc\n", "include.path"},
		{"last value wins for --get", "[include]\n\tpath = a.inc\n\tpath = b.inc\n", "include.path"},
		{"no newline at the end", "[include]\n\tpath = a.inc", "include.path"},
		{"hash right after the value", "[include]\n\tpath = a.inc#x\n", "include.path"},
		{"tilde", "[include]\n\tpath = ~/shared.inc\n", "include.path"},
		{"value with = in it", "[alias]\n\tx = !f() { a=b; }; f\n", "alias.x"},
		{"subsection header with spaces", "[includeIf   \"gitdir:x\"]\n\tpath = w.inc\n", "includeif.gitdir:x.path"},
		{"inner tab reads as a space", "[include]\n\tpath = a\tb.inc\n", "include.path"},
		{"inner lone CR reads as a space", "[include]\n\tpath = a\rb.inc\n", "include.path"},
		{"inner blanks of every kind", "[core]\n\tfsmonitor = sh \t\r tools/w.sh\n", "core.fsmonitor"},
		{"a NUL ends the value", "[include]\n\tpath = a.inc\x00b.inc\n", "include.path"},
		{"a NUL at the end", "[include]\n\tpath = a.inc\x00\n", "include.path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "config")
			if err := os.WriteFile(f, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command("git", "config", "--file", f, "--get", tc.key).Output()
			if err != nil {
				t.Fatalf("git config --get %s: %v (the case must be one git reads)", tc.key, err)
			}
			want := strings.TrimSuffix(string(out), "\n")
			entries, perr := parseGitConfigErr([]byte(tc.file))
			if perr != nil {
				t.Errorf("the reader rejects a file git reads: %v", perr)
			}
			got, found := "", false
			for _, kv := range entries {
				if kv.key == tc.key {
					got, found = kv.value, true
				}
			}
			if !found || got != want {
				t.Errorf("%s: git reads %q, Loupe read %q (found %v) from %q", tc.key, want, got, found, tc.file)
			}
		})
	}
}

// A file git refuses ("bad config line") is not read as less than git
// reads: what comes before the bad line is found, and the error is said.
func TestGitConfigThatGitRefuses(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the reader is checked against git itself")
	}
	for _, tc := range []struct{ name, file string }{
		{"unknown escape", "[include]\n\tpath = a.inc\n[core]\n\tx = a\\qb\n"},
		{"open quote", "[include]\n\tpath = a.inc\n[core]\n\tx = \"ab\n"},
		{"header not closed", "[include]\n\tpath = a.inc\n[core\n"},
		{"key not starting with a letter", "[include]\n\tpath = a.inc\n[core]\n\t1x = y\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "config")
			if err := os.WriteFile(f, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command("git", "config", "--file", f, "--list").CombinedOutput(); err == nil {
				t.Fatalf("git reads the file: %s", out)
			}
			entries, err := parseGitConfigErr([]byte(tc.file))
			if err == nil {
				t.Errorf("no error for a file git refuses")
			}
			if len(entries) == 0 || entries[0].key != "include.path" || entries[0].value != "a.inc" {
				t.Errorf("the settings before the bad line are lost: %+v", entries)
			}
		})
	}
}
