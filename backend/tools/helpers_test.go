package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// newWorkspace makes a workspace in a temp dir with the given files
// (slash paths; parents created).
func newWorkspace(t *testing.T, files map[string]string) (*Workspace, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		writeTestFile(t, filepath.Join(dir, filepath.FromSlash(name)), content)
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, dir
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readTestFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func args(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// call checks and runs a built-in tool as the agent would.
func call(t *testing.T, ws *Workspace, name string, a map[string]any) (Result, error) {
	t.Helper()
	return callWith(t, ws, sandbox.Local{}, name, a)
}

func callWith(t *testing.T, ws *Workspace, run sandbox.Runner, name string, a map[string]any) (Result, error) {
	t.Helper()
	tool, cerr := Builtins(ws, run).Check(name, args(t, a))
	if cerr != nil {
		t.Fatalf("Check(%s, %v): %s", name, a, cerr.Message)
	}
	return tool.Run(context.Background(), args(t, a))
}

// mustRun calls a tool that must succeed.
func mustRun(t *testing.T, ws *Workspace, name string, a map[string]any) Result {
	t.Helper()
	res, err := call(t, ws, name, a)
	if err != nil {
		t.Fatalf("%s %v: %v", name, a, err)
	}
	return res
}
