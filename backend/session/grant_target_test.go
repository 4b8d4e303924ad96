package session_test

import (
	"context"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
)

// "Approve for this session" on a write to the file x covers x: after a
// command turns x into a directory, a write to x/y asks again.
func TestSessionGrantForAFileDoesNotCoverADirectoryOfItsName(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, nil)
	h.write("x", "a file\n")
	go func() {
		for a := range h.asks {
			scope := permission.ScopeOnce
			if a.CallID == "c1" {
				scope = permission.ScopeSession // the card's "for this session"
			}
			_, _ = h.m.Do(context.Background(), session.Answer{Session: h.id, CallID: a.CallID, Allow: true, Scope: string(scope)})
		}
	}()
	h.srv.Script(
		calls(call("c1", "write_file", `{"path":"x","content":"granted\n"}`)),
		ollamatest.Text("wrote x"),
		calls(call("c2", "write_file", `{"path":"x","content":"again\n"}`)),
		ollamatest.Text("wrote x again"),
	)
	h.run("one")
	h.run("two")
	// The command that turns the file into a directory (asked and
	// approved once; the grant is for writes, not for commands).
	h.srv.Script(
		calls(call("c3", "run_command", `{"command":"rm x && mkdir x"}`)),
		ollamatest.Text("x is a folder"),
		calls(call("c4", "write_file", `{"path":"x/y","content":"under it\n"}`)),
		ollamatest.Text("wrote x/y"),
	)
	h.run("three")
	h.run("four")
	byCall := map[string]trace.Permission{} // each call's decision
	asked := map[string]bool{}
	for _, e := range h.events() {
		if e.Kind != trace.KindPermission {
			continue
		}
		p, err := trace.Decode[trace.Permission](e)
		if err != nil {
			t.Fatal(err)
		}
		if p.Decision == "ask" {
			asked[p.CallID] = true
		} else {
			byCall[p.CallID] = p
		}
	}
	if p := byCall["c2"]; asked["c2"] || p.By != "you (for this session)" {
		t.Fatalf("the grant did not cover the file itself: %+v", p)
	}
	if !asked["c4"] {
		t.Fatalf("the write to x/y was not asked about: %+v", byCall["c4"])
	}
	if s, _ := h.read("x/y"); s != "under it\n" {
		t.Fatalf("x/y = %q", s)
	}
}
