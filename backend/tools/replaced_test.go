package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The workspace's path swapped for a link to another project mid-run (by
// a command of a session in the folder above): what the policy judges by
// that path would be of the other project, the write done in the folder
// held open. Every file tool stops, saying why, and nothing is written in
// either folder.
func TestFileToolsStopWhenTheWorkspaceIsReplaced(t *testing.T) {
	base := t.TempDir()
	dir, other := filepath.Join(base, "ws"), filepath.Join(base, "other")
	for _, d := range []string{dir, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	reg := Builtins(ws, nil)
	run := func(name, args string) error {
		tool, cerr := reg.Check(name, json.RawMessage(args))
		if cerr != nil {
			return cerr
		}
		_, err := tool.Run(context.Background(), json.RawMessage(args))
		return err
	}
	if err := run("write_file", `{"path":"a.txt","content":"x"}`); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir, dir+".real"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, dir); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string]string{
		"write_file": `{"path":"b.txt","content":"y"}`,
		"read_file":  `{"path":"a.txt"}`,
		"list_dir":   `{"path":"."}`,
		"edit_file":  `{"path":"a.txt","old_string":"x","new_string":"z"}`,
	} {
		if err := run(name, args); err == nil || !strings.Contains(err.Error(), "no longer the folder this run works in") {
			t.Errorf("%s after the workspace was replaced: %v", name, err)
		}
	}
	for _, f := range []string{filepath.Join(dir+".real", "b.txt"), filepath.Join(other, "b.txt")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s was written", f)
		}
	}
}
