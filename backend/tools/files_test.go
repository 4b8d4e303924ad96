package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEditRefusesAFileChangedSinceItWasRead(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ws.Track(NewSeen())
	reg := Builtins(ws, nil)
	run := func(name, args string) (Result, error) {
		tool, cerr := reg.Check(name, json.RawMessage(args))
		if cerr != nil {
			t.Fatal(cerr)
		}
		return tool.Run(context.Background(), json.RawMessage(args))
	}
	if _, err := run("read_file", `{"path":"a.txt"}`); err != nil {
		t.Fatal(err)
	}
	// Someone else changes the file.
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\nTWO\n"), 0o644)
	_, err = run("edit_file", `{"path":"a.txt","old_string":"one","new_string":"1"}`)
	if err == nil || !strings.Contains(err.Error(), "changed on disk since you last read it") {
		t.Fatalf("edit of a changed file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "one\nTWO\n" {
		t.Fatalf("file changed by a refused edit: %q", b)
	}
	// After reading it again the edit goes through, and the change is
	// recorded with the content before and after.
	run("read_file", `{"path":"a.txt"}`)
	res, err := run("edit_file", `{"path":"a.txt","old_string":"one","new_string":"1"}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 || *res.Changes[0].Before != "one\nTWO\n" || *res.Changes[0].After != "1\nTWO\n" {
		t.Fatalf("changes = %+v", res.Changes)
	}
	// Its own writes count as seen: a second edit needs no new read.
	if _, err := run("edit_file", `{"path":"a.txt","old_string":"TWO","new_string":"2"}`); err != nil {
		t.Fatal(err)
	}
	// A new file records that it did not exist before.
	res, err = run("write_file", `{"path":"new/b.txt","content":"b"}`)
	if err != nil || len(res.Changes) != 1 || res.Changes[0].Before != nil || *res.Changes[0].After != "b" {
		t.Fatalf("write of a new file: %+v %v", res.Changes, err)
	}
}
