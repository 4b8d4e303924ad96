package session_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/trace"
)

// pidsOf are the processes running the program at path.
func pidsOf(t *testing.T, path string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && exe == path {
			out = append(out, e.Name())
		}
	}
	return out
}

// The user deletes the project and makes it again (a fresh clone) between
// two runs of a session: the next run's tool servers are started afresh
// in the folder as it is now; the servers of the first run, which served
// the folder that is gone, are stopped.
func TestToolServersStartAgainInAFolderMadeAgain(t *testing.T) {
	bin := faultServer(t)
	h := newHarness(t, permission.ModeAuto, nil)
	addServers(t, h, `{"mcpServers": {"fault": {"command": "`+bin+`"}}}`)
	echo := func(text string) {
		t.Helper()
		h.srv.Script(calls(call("c1", "fault.echo", `{"text":"`+text+`"}`)), ollamatest.Text("done"))
		go func() {
			for a := range h.asks {
				_ = h.answer(a.CallID, true)
			}
		}()
		if end := h.run("echo " + text); end.Reason != trace.EndAnswered {
			t.Fatalf("run ended %+v", end)
		}
	}
	echo("one")
	first := pidsOf(t, bin)
	if len(first) != 1 {
		t.Fatalf("%d servers run after the first run, want 1", len(first))
	}
	if err := os.Rename(h.ws, h.ws+".gone"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(h.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	echo("two")
	now := pidsOf(t, bin)
	if len(now) != 1 || slices.Contains(now, first[0]) {
		t.Fatalf("servers before %v, after the folder was made again %v: want the first one stopped and one new", first, now)
	}
	h.m.Close()
}
