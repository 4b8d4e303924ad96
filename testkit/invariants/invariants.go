// Package invariants checks the rules every session event log must keep,
// whatever happened in the run. Scenario tests over the fake Ollama
// (backend/session) and the real one (testkit/realscenarios) share it.
package invariants

import (
	"testing"

	"github.com/loupe-dev/loupe/backend/trace"
)

// Check asserts what every log must keep: each call of a complete
// message has exactly one result with its id, after its call; no call of an
// incomplete message is taken up; every run has exactly one run_end. A
// sub-agent's nested run (trace.Event.Agent) is a log of its own, and keeps
// the same rules.
func Check(t testing.TB, evs []trace.Event) {
	t.Helper()
	check(t, trace.Own(evs, ""))
	for _, id := range trace.SubAgents(evs) {
		check(t, trace.Own(evs, id))
	}
}

func check(t testing.TB, evs []trace.Event) {
	t.Helper()
	results := map[string]int{}
	calls := map[string]bool{}
	incompleteCalls := map[string]bool{}
	runs, ends := map[int]bool{}, map[int]int{}
	for _, e := range evs {
		switch e.Kind {
		case trace.KindUserMessage:
			runs[e.Run] = true
		case trace.KindRunEnd:
			ends[e.Run]++
		case trace.KindModelResponse:
			p := decode[trace.ModelResponse](t, e)
			for _, c := range p.ToolCalls {
				if p.Incomplete {
					incompleteCalls[c.ID] = true
				} else {
					calls[c.ID] = true
				}
			}
		case trace.KindToolCall:
			if p := decode[trace.ToolCall](t, e); incompleteCalls[p.CallID] {
				t.Errorf("call %s of an incomplete message was taken up", p.CallID)
			}
		case trace.KindToolResult:
			p := decode[trace.ToolResult](t, e)
			if !calls[p.CallID] {
				t.Errorf("result for %s comes before (or without) its call", p.CallID)
			}
			results[p.CallID]++
		}
	}
	for id := range calls {
		if results[id] != 1 {
			t.Errorf("call %s has %d results, want exactly 1", id, results[id])
		}
	}
	for r := range runs {
		if ends[r] != 1 {
			t.Errorf("run %d has %d run_end events, want 1", r, ends[r])
		}
	}
}

func decode[T trace.Payload](t testing.TB, e trace.Event) T {
	t.Helper()
	p, err := trace.Decode[T](e)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
