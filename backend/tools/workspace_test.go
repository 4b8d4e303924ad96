package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorkspaceRel(t *testing.T) {
	ws, dir := newWorkspace(t, nil)
	tests := []struct {
		in, want string
		outside  bool
	}{
		{in: "a.txt", want: "a.txt"},
		{in: "./a/b/../c.txt", want: "a/c.txt"},
		{in: ".", want: "."},
		{in: "a//b/", want: "a/b"},
		{in: filepath.Join(dir, "x", "y.go"), want: "x/y.go"},
		{in: dir, want: "."},
		{in: "..", outside: true},
		{in: "../x", outside: true},
		{in: "a/../../x", outside: true},
		{in: "/etc/passwd", outside: true},
		{in: dir + "-sibling/x", outside: true},
		{in: filepath.Dir(dir), outside: true},
	}
	for _, tt := range tests {
		got, err := ws.rel(tt.in)
		if tt.outside {
			if !errors.Is(err, ErrOutsideWorkspace) {
				t.Errorf("rel(%q) = %q, %v; want outside", tt.in, got, err)
			} else if want := `path "` + tt.in + `" is outside the workspace`; err.Error() != want {
				t.Errorf("rel(%q) error %q, want %q", tt.in, err, want)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("rel(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := ws.rel(""); err == nil {
		t.Error("empty path accepted")
	}
}

func TestWorkspaceAbsolutePathThroughSymlinkedDir(t *testing.T) {
	// The workspace is opened through a symlink; absolute paths under the
	// real directory are inside it too.
	real := t.TempDir()
	writeTestFile(t, filepath.Join(real, "f.txt"), "hi\n")
	link := filepath.Join(t.TempDir(), "ws")
	symlink(t, real, link)
	ws, err := OpenWorkspace(link)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for _, p := range []string{filepath.Join(link, "f.txt"), filepath.Join(real, "f.txt")} {
		res := mustRun(t, ws, "read_file", map[string]any{"path": p})
		if !strings.Contains(res.Content, "hi") {
			t.Errorf("read %s: %q", p, res.Content)
		}
	}
}

func TestOpenWorkspaceMissingDir(t *testing.T) {
	if _, err := OpenWorkspace(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("no error for a missing directory")
	}
}

// escapeFixture is a workspace with symlinks that lead out of it, next to
// a directory outside holding a secret.
type escapeFixture struct {
	ws      *Workspace
	dir     string
	outside string
}

func newEscapeFixture(t *testing.T) escapeFixture {
	t.Helper()
	ws, dir := newWorkspace(t, map[string]string{"inside.txt": "inside\n", "sub/keep.txt": "keep\n"})
	outside := t.TempDir()
	writeTestFile(t, filepath.Join(outside, "secret.txt"), "SECRET\n")
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link-out"))
	symlink(t, "../../"+filepath.Base(outside)+"/secret.txt", filepath.Join(dir, "rel-link-out"))
	symlink(t, outside, filepath.Join(dir, "dir-out"))
	symlink(t, "inside.txt", filepath.Join(dir, "link-in"))
	return escapeFixture{ws: ws, dir: dir, outside: outside}
}

// unchanged fails if anything outside the workspace was touched.
func (f escapeFixture) unchanged(t *testing.T) {
	t.Helper()
	entries, err := os.ReadDir(f.outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "secret.txt" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("outside dir now holds %v", names)
	}
	if got := readTestFile(t, filepath.Join(f.outside, "secret.txt")); got != "SECRET\n" {
		t.Errorf("outside secret changed to %q", got)
	}
}

func TestEscapesAreRefused(t *testing.T) {
	f := newEscapeFixture(t)
	paths := []string{
		"../secret.txt",
		"sub/../../x.txt",
		filepath.Join(f.outside, "secret.txt"), // absolute, outside
		"link-out",                             // symlink file, absolute target
		"rel-link-out",                         // symlink file, relative target
		"dir-out/secret.txt",                   // symlinked parent dir
		"dir-out/new.txt",                      // new file under a symlinked parent
		"dir-out/deeper/new.txt",               // parent dirs would be created outside
	}
	tools := []struct {
		name string
		args func(p string) map[string]any
	}{
		{"read_file", func(p string) map[string]any { return map[string]any{"path": p} }},
		{"write_file", func(p string) map[string]any { return map[string]any{"path": p, "content": "PWNED\n"} }},
		{"edit_file", func(p string) map[string]any {
			return map[string]any{"path": p, "old_string": "SECRET", "new_string": "PWNED"}
		}},
	}
	for _, tool := range tools {
		for _, p := range paths {
			t.Run(tool.name+" "+p, func(t *testing.T) {
				res, err := call(t, f.ws, tool.name, tool.args(p))
				if err == nil {
					t.Fatalf("no error; result %q", res.Content)
				}
				if !errors.Is(err, ErrOutsideWorkspace) || !strings.Contains(err.Error(), "is outside the workspace") {
					t.Errorf("error %q does not say the path is outside the workspace", err)
				}
				if strings.Contains(err.Error(), "SECRET") {
					t.Errorf("error leaks the secret: %q", err)
				}
				f.unchanged(t)
			})
		}
	}
}

func TestEscapesRefusedByPreview(t *testing.T) {
	f := newEscapeFixture(t)
	reg := Builtins(f.ws, nil)
	for _, name := range []string{"write_file", "edit_file"} {
		tool, _ := reg.Get(name)
		a := args(t, map[string]any{"path": "link-out", "old_string": "SECRET", "new_string": "x"})
		if name == "write_file" {
			a = args(t, map[string]any{"path": "link-out", "content": "x"})
		}
		d, err := tool.(Previewer).Preview(t.Context(), a)
		if !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("%s preview: %+v, %v; want outside", name, d, err)
		}
	}
	f.unchanged(t)
}

func TestEscapesRefusedByListGlobGrep(t *testing.T) {
	f := newEscapeFixture(t)
	refused := []struct {
		tool string
		args map[string]any
	}{
		{"list_dir", map[string]any{"path": "dir-out"}},
		{"list_dir", map[string]any{"path": ".."}},
		{"list_dir", map[string]any{"path": f.outside}},
		{"glob", map[string]any{"pattern": "../*"}},
		{"glob", map[string]any{"pattern": "dir-out/*"}},
		{"glob", map[string]any{"pattern": f.outside + "/*"}},
		{"grep", map[string]any{"pattern": "SECRET", "path": "dir-out"}},
		{"grep", map[string]any{"pattern": "SECRET", "path": "link-out"}},
		{"grep", map[string]any{"pattern": "SECRET", "path": "../"}},
	}
	for _, tt := range refused {
		res, err := call(t, f.ws, tt.tool, tt.args)
		if !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("%s %v: %q, %v; want outside", tt.tool, tt.args, res.Content, err)
		}
	}
	// Walking the workspace does not follow links out of it.
	if res := mustRun(t, f.ws, "grep", map[string]any{"pattern": "SECRET"}); !strings.HasPrefix(res.Content, "no matches") {
		t.Errorf("grep found the outside secret: %q", res.Content)
	}
	if res := mustRun(t, f.ws, "glob", map[string]any{"pattern": "**/secret.txt"}); !strings.HasPrefix(res.Content, "no files match") {
		t.Errorf("glob found the outside secret: %q", res.Content)
	}
}

func TestSymlinkInsideIsFollowed(t *testing.T) {
	f := newEscapeFixture(t)
	res := mustRun(t, f.ws, "read_file", map[string]any{"path": "link-in"})
	if !strings.Contains(res.Content, "inside") {
		t.Errorf("read through link-in: %q", res.Content)
	}
	mustRun(t, f.ws, "write_file", map[string]any{"path": "link-in", "content": "rewritten\n"})
	if got := readTestFile(t, filepath.Join(f.dir, "inside.txt")); got != "rewritten\n" {
		t.Errorf("inside.txt = %q; writing the link should write its target", got)
	}
	if fi, err := os.Lstat(filepath.Join(f.dir, "link-in")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link-in is no longer a symlink: %v %v", fi, err)
	}
	mustRun(t, f.ws, "edit_file", map[string]any{"path": "link-in", "old_string": "rewritten", "new_string": "edited"})
	if got := readTestFile(t, filepath.Join(f.dir, "inside.txt")); got != "edited\n" {
		t.Errorf("inside.txt = %q after edit through the link", got)
	}
}
