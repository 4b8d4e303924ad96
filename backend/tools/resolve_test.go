package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// chainFixture is a workspace with symlink chains of every kind next to a
// directory outside it.
//
//	sub/deep/           a directory
//	d -> sub/deep       a link to a directory
//	sub/deep/m  -> ../loupe.db     from sub/deep: sub/loupe.db
//	sub/deep/m2 -> ../../loupe.db  from sub/deep: ./loupe.db
//	loupe.db            stands for Loupe's database
func chainFixture(t *testing.T) (ws *Workspace, dir, outside string) {
	t.Helper()
	ws, dir = newWorkspace(t, map[string]string{
		"loupe.db":       "DB",
		"file.txt":       "file",
		"sub/deep/f.txt": "deep",
		".git/config":    "[core]",
	})
	outside = t.TempDir()
	writeTestFile(t, filepath.Join(outside, "secret.txt"), "SECRET")
	links := [][2]string{
		{"sub/deep", "d"},
		{"../loupe.db", "sub/deep/m"},
		{"../../loupe.db", "sub/deep/m2"},
		{"missing.txt", "dangling"},
		{"nodir/x.txt", "dangling-deep"},
		{"nodir/../file.txt", "dangling-up"},
		{"sub", "ld"},
		{filepath.Join(dir, "sub", "deep"), "abs-in"},
		{"c2", "c1"},
		{"sub/c3", "c2"},
		{"deep/f.txt", "sub/c3"},
		{".git", "g"},
		{"loop2", "loop1"},
		{"loop1", "loop2"},
		{"../../..", "sub/deep/up"},
		{filepath.Join(outside, "secret.txt"), "out-abs"},
		{"../" + filepath.Base(outside) + "/secret.txt", "out-rel"},
		{outside, "out-dir"},
	}
	for _, l := range links {
		symlink(t, filepath.FromSlash(l[0]), filepath.Join(dir, filepath.FromSlash(l[1])))
	}
	return ws, dir, outside
}

func TestResolve(t *testing.T) {
	ws, dir, _ := chainFixture(t)
	tests := []struct {
		in, real      string
		exists, isDir bool
	}{
		{in: "file.txt", real: "file.txt", exists: true},
		{in: "new.txt", real: "new.txt"},
		{in: "a/b/new.txt", real: "a/b/new.txt"},
		{in: ".", real: ".", exists: true, isDir: true},
		// A link to a directory, then a relative link from where the
		// second link really is (sub/deep), not from d.
		{in: "d/m", real: "sub/loupe.db"},
		{in: "d/m2", real: "loupe.db", exists: true},
		{in: "d", real: "sub/deep", exists: true, isDir: true},
		{in: "d/f.txt", real: "sub/deep/f.txt", exists: true},
		{in: "d/new/x.txt", real: "sub/deep/new/x.txt"},
		{in: "ld/deep/m2", real: "loupe.db", exists: true},
		{in: "abs-in/f.txt", real: "sub/deep/f.txt", exists: true},
		// Dangling links lead where a new file would be created.
		{in: "dangling", real: "missing.txt"},
		{in: "dangling-deep", real: "nodir/x.txt"},
		// A chain of three links.
		{in: "c1", real: "sub/deep/f.txt", exists: true},
		{in: "g/config", real: ".git/config", exists: true},
		{in: "g/hooks/pre-commit", real: ".git/hooks/pre-commit"},
		{in: filepath.Join(dir, "d", "m2"), real: "loupe.db", exists: true},
	}
	for _, tt := range tests {
		r, err := ws.Resolve(tt.in)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.in, err)
			continue
		}
		if r.Real != tt.real || r.Exists != tt.exists || r.IsDir != tt.isDir {
			t.Errorf("Resolve(%q) = %+v; want real %q exists=%v dir=%v", tt.in, r, tt.real, tt.exists, tt.isDir)
		}
		// The package-level Resolve, which the policy uses, agrees.
		if r2, err := Resolve(dir, tt.in); err != nil || r2 != r {
			t.Errorf("Resolve(dir, %q) = %+v, %v; want %+v", tt.in, r2, err, r)
		}
		if want := kernelResolve(t, dir, r.Lexical); want != "" && want != r.Real {
			t.Errorf("Resolve(%q) = %q, but the kernel opens %q", tt.in, r.Real, want)
		}
	}
}

// kernelResolve asks the kernel where a path leads: for an existing path
// by resolving it, for a new one by creating it through the path and
// looking where it appeared. "" when the kernel cannot create it (a
// missing parent directory).
func kernelResolve(t *testing.T, dir, rel string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if got, err := filepath.EvalSymlinks(p); err == nil {
		r, _ := filepath.Rel(real, got)
		return filepath.ToSlash(r)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if _, lerr := os.Lstat(p); lerr == nil {
			// A dangling link: O_EXCL refuses it; the kernel creates its
			// target without O_EXCL.
			f, err = os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o644)
		}
		if err != nil {
			return ""
		}
	}
	f.Close()
	got, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(got); err != nil {
		t.Fatal(err)
	}
	r, _ := filepath.Rel(real, got)
	return filepath.ToSlash(r)
}

func TestResolveRefuses(t *testing.T) {
	ws, _, _ := chainFixture(t)
	outside := []string{"out-abs", "out-rel", "out-dir/secret.txt", "out-dir/new.txt", "d/up", "d/up/x", "../x"}
	for _, p := range outside {
		if r, err := ws.Resolve(p); !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("Resolve(%q) = %+v, %v; want outside", p, r, err)
		}
	}
	for p, want := range map[string]string{
		"loop1":          "too many levels of symbolic links",
		"file.txt/x":     "file.txt is not a directory",
		"dangling-up":    "which does not exist",
		"d/f.txt/m/x.go": "is not a directory",
	} {
		if r, err := ws.Resolve(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Resolve(%q) = %+v, %v; want an error containing %q", p, r, err, want)
		}
	}
}

// The tools open what Resolve returns: writing through the chain d/m2
// writes ./loupe.db, and writing d/m writes sub/loupe.db and leaves
// ./loupe.db alone (the lexical join of d and ../loupe.db would name it).
func TestToolsWriteWhereResolveLeads(t *testing.T) {
	ws, dir, _ := chainFixture(t)
	mustRun(t, ws, "write_file", map[string]any{"path": "d/m", "content": "new"})
	if got := readTestFile(t, filepath.Join(dir, "sub", "loupe.db")); got != "new" {
		t.Errorf("sub/loupe.db = %q", got)
	}
	if got := readTestFile(t, filepath.Join(dir, "loupe.db")); got != "DB" {
		t.Errorf("loupe.db = %q; writing d/m must not reach it", got)
	}
	res := mustRun(t, ws, "write_file", map[string]any{"path": "d/m2", "content": "DB2"})
	if res.Display.Path != "loupe.db" || readTestFile(t, filepath.Join(dir, "loupe.db")) != "DB2" {
		t.Errorf("write d/m2: %+v", res.Display)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "sub", "deep", "m2")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link d/m2 was replaced: %v %v", fi, err)
	}
	res = mustRun(t, ws, "read_file", map[string]any{"path": "c1"})
	if res.Display.Path != "sub/deep/f.txt" || !strings.Contains(res.Content, "deep") {
		t.Errorf("read c1: %+v", res)
	}
	res = mustRun(t, ws, "list_dir", map[string]any{"path": "ld/deep"})
	if res.Display.Path != "sub/deep" || !strings.Contains(res.Content, "m2 -> ../../loupe.db") {
		t.Errorf("list ld/deep: %+v", res)
	}
	assertNoTempFiles(t, dir)
}

// approveOnly is a guard that allows exactly the listed files, as the
// policy's guard does for a decision taken on them.
type approveOnly struct {
	files []string
	seen  *[]string
}

func (a approveOnly) Check(rel string) error {
	if a.seen != nil {
		*a.seen = append(*a.seen, rel)
	}
	if slices.Contains(a.files, rel) {
		return nil
	}
	return fmt.Errorf("refused: %s was not approved", rel)
}

// Each file tool checks the path it opened with the call's guard, and a
// refusal leaves nothing behind: not a file, not a directory, not a
// temporary file.
func TestToolsCheckTheOpenedPathWithTheGuard(t *testing.T) {
	ws, dir, _ := chainFixture(t)
	reg := Builtins(ws, nil)
	run := func(files []string, name string, a map[string]any) ([]string, error) {
		var seen []string
		tool, cerr := reg.Check(name, args(t, a))
		if cerr != nil {
			t.Fatal(cerr.Message)
		}
		ctx := WithGuard(context.Background(), approveOnly{files: files, seen: &seen})
		_, err := tool.Run(ctx, args(t, a))
		return seen, err
	}
	for _, tt := range []struct {
		name string
		args map[string]any
		real string
	}{
		{"read_file", map[string]any{"path": "c1"}, "sub/deep/f.txt"},
		{"list_dir", map[string]any{"path": "d"}, "sub/deep"},
		{"grep", map[string]any{"pattern": "deep", "path": "c1"}, "sub/deep/f.txt"},
		{"write_file", map[string]any{"path": "g/config", "content": "x"}, ".git/config"},
		{"edit_file", map[string]any{"path": "g/config", "old_string": "core", "new_string": "x"}, ".git/config"},
		{"write_file", map[string]any{"path": "g/hooks/pre-commit", "content": "x"}, ".git/hooks/pre-commit"},
	} {
		seen, err := run([]string{"something/else"}, tt.name, tt.args)
		if err == nil || !strings.Contains(err.Error(), "refused: "+tt.real) {
			t.Errorf("%s %v: %v; want the guard's refusal of %s", tt.name, tt.args, err, tt.real)
		}
		if len(seen) == 0 || seen[len(seen)-1] != tt.real {
			t.Errorf("%s %v: the guard saw %q, want %q", tt.name, tt.args, seen, tt.real)
		}
		if _, err := run([]string{tt.real}, tt.name, tt.args); err != nil {
			t.Errorf("%s %v approved: %v", tt.name, tt.args, err)
		}
		if strings.HasSuffix(tt.name, "_file") && tt.name != "read_file" {
			// Undo what the approved run wrote, for the next case.
			writeTestFile(t, filepath.Join(dir, ".git", "config"), "[core]")
			os.RemoveAll(filepath.Join(dir, ".git", "hooks"))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "hooks")); !os.IsNotExist(err) {
		t.Errorf("a refused write created .git/hooks: %v", err)
	}
	assertNoTempFiles(t, dir)
}

// onlyFirst approves the first check of a call and refuses the next, as
// when the path changed between the tool's resolving it and opening its
// directory.
type onlyFirst struct{ n *int }

func (o onlyFirst) Check(rel string) error {
	*o.n++
	if *o.n > 1 {
		return fmt.Errorf("refused: %s changed", rel)
	}
	return nil
}

// A write refused once its directory is open takes back the directories
// it made for the file.
func TestRefusedWriteRemovesTheDirectoriesItMade(t *testing.T) {
	ws, dir := newWorkspace(t, map[string]string{"keep/a.txt": "a"})
	tool, _ := Builtins(ws, nil).Get("write_file")
	for _, p := range []string{"new1/new2/f.txt", "keep/new3/f.txt"} {
		n := 0
		ctx := WithGuard(context.Background(), onlyFirst{&n})
		_, err := tool.Run(ctx, args(t, map[string]any{"path": p, "content": "x"}))
		if err == nil || !strings.Contains(err.Error(), "refused") || n != 2 {
			t.Fatalf("write %s: %v after %d checks; want the second check's refusal", p, err, n)
		}
	}
	for _, gone := range []string{"new1", "keep/new3"} {
		if _, err := os.Lstat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
			t.Errorf("%s was left behind: %v", gone, err)
		}
	}
	if got := readTestFile(t, filepath.Join(dir, "keep", "a.txt")); got != "a" {
		t.Errorf("keep/a.txt = %q", got)
	}
	assertNoTempFiles(t, dir)
}
