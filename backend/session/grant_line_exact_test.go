package session_test

// "Approve for this session" of one command line never covers a different
// command that bash runs.
//
// Steps: the model runs `touch built.txt`; the user answers "Approve for
// this session" (the card shows exactly that line). Later the model runs
// "touch built.txt\r# ; rm -f victim.txt" (a carriage return before a `#`).
// It is not asked about: the grant covers it, and bash deletes victim.txt.
//
// Mechanism: a grant for run_command is an exact-line rule, compared by
// canonicalCommand, the line as mvdan.cc/sh prints it back. The parser
// splits words at \r (bash does not), so to it `\r#` starts a comment and
// the whole line prints as `touch built.txt`, equal to the grant. Bash
// reads `built.txt\r#` as one word (a `#` inside a word is no comment), so
// `;` ends the command and `rm -f victim.txt` runs. The classifier notes
// the control character and marks the command opaque, but an exact-line
// rule is checked first and "vouches" for the line whatever the analysis
// says. The same holds for \v (a space to the parser) and \f (a newline).

import (
	"context"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
)

func TestASessionGrantOfALineNeverCoversALineBashReadsApart(t *testing.T) {
	h := newHarness(t, permission.ModeAsk, nil)
	h.write("victim.txt", "keep me\n")
	asked := make(chan string, 8)
	go func() {
		for a := range h.asks {
			asked <- a.CallID
			if a.CallID == "c1" { // the card's "Approve for this session"
				if _, err := h.m.Do(context.Background(), session.Answer{Session: h.id, CallID: a.CallID, Allow: true, Scope: string(permission.ScopeSession)}); err != nil {
					t.Errorf("answering the question: %v", err)
				}
				continue
			}
			// Any other question: the user says no.
			if _, err := h.m.Do(context.Background(), session.Answer{Session: h.id, CallID: a.CallID, Allow: false, Scope: string(permission.ScopeOnce)}); err != nil {
				t.Errorf("answering the question: %v", err)
			}
		}
	}()
	h.srv.Script(
		calls(call("c1", "run_command", `{"command":"touch built.txt"}`)),
		ollamatest.Text("built"),
	)
	h.run("build")
	h.srv.Script(
		calls(call("c2", "run_command", `{"command":"touch built.txt\r# ; rm -f victim.txt"}`)),
		ollamatest.Text("built again"),
	)
	h.run("build again")
	close(asked)
	var ids []string
	for id := range asked {
		ids = append(ids, id)
	}
	if s, ok := h.read("victim.txt"); !ok || s != "keep me\n" {
		var by string
		for _, e := range h.events() {
			if e.Kind == trace.KindPermission {
				if p, _ := trace.Decode[trace.Permission](e); p.CallID == "c2" {
					by = string(p.Decision) + " by " + p.By
				}
			}
		}
		t.Fatalf("victim.txt was deleted by a command the user never saw (c2 decided %s; questions asked: %v)", by, ids)
	}
}
