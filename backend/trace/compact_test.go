package trace

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
)

// logGen writes random but well-formed session logs: runs of rounds whose
// answers ask for zero to three parallel calls, results in any order,
// notices, empty and incomplete answers, user messages, edits, and
// earlier compactions.
type logGen struct {
	// h is fed every event as it is added, as the loop feeds its own.
	h    *History
	rng  *rand.Rand
	evs  []Event
	seq  int64
	run  int
	rnd  int
	call int
	// late are results held back to arrive after a later message: the
	// loop never writes them so, but a log from elsewhere may, and the
	// cut must not part them from their calls either.
	late []ToolResult
}

func (g *logGen) add(kind Kind, payload any) Event {
	g.seq++
	e := New(kind, g.run, g.rnd, payload)
	e.Seq = g.seq
	g.evs = append(g.evs, e)
	if err := g.h.Add(e); err != nil {
		panic(err)
	}
	return e
}

// request is a round's request as the loop records it.
func (g *logGen) request(mr ModelRequest) Event {
	mr.HistoryBase, mr.HistoryAdded = g.h.Delta()
	mr.HistoryAdded = slices.Clone(mr.HistoryAdded)
	return g.add(KindModelRequest, mr)
}

func (g *logGen) user() {
	g.run++
	g.rnd = 0
	g.add(KindUserMessage, UserMessage{Text: fmt.Sprintf("task %d: %s", g.run, strings.Repeat("x", g.rng.IntN(200)))})
}

// round records a request and its answer; the answer's calls get their
// results unless open is set (the last round may still be running).
func (g *logGen) round(open bool) {
	g.rnd++
	req := g.request(ModelRequest{Model: "m"})
	n := g.rng.IntN(4)
	var calls []llm.ToolCall
	for range n {
		g.call++
		calls = append(calls, llm.ToolCall{ID: fmt.Sprintf("c%d", g.call), Name: "read_file", Args: json.RawMessage(fmt.Sprintf(`{"path":"f%d"}`, g.call))})
	}
	resp := ModelResponse{RequestSeq: req.Seq, Content: strings.Repeat("thought ", g.rng.IntN(20)), ToolCalls: calls, DoneReason: "stop"}
	switch g.rng.IntN(12) {
	case 0:
		resp.Content, resp.ToolCalls = "", nil // an empty answer: no message
	case 1:
		resp.Incomplete = true // its calls never enter the history
	}
	g.add(KindModelResponse, resp)
	if resp.Incomplete || resp.ToolCalls == nil {
		return
	}
	order := g.rng.Perm(len(calls))
	for _, i := range order {
		if g.rng.IntN(5) == 0 {
			g.add(KindNotice, Notice{Code: "retry", Message: "again"})
		}
		if open && g.rng.IntN(2) == 0 {
			continue
		}
		res := ToolResult{CallID: calls[i].ID, Name: calls[i].Name, Content: strings.Repeat("line\n", g.rng.IntN(60))}
		if !open && g.rng.IntN(8) == 0 {
			g.late = append(g.late, res)
			continue
		}
		g.add(KindToolResult, res)
	}
	if len(g.late) > 0 && g.rng.IntN(3) == 0 {
		for _, res := range g.late {
			g.add(KindToolResult, res)
		}
		g.late = nil
	}
	if g.rng.IntN(6) == 0 && len(calls) > 0 {
		g.add(KindEdit, Edit{Target: EditResult, CallID: calls[0].ID, After: json.RawMessage(`"edited"`)})
	}
}

// compact records a whole compaction the way the loop does, when the
// history has something to replace. It returns the conversation as it
// was and the estimate predicted for after.
func (g *logGen) compact(keep int) (old []llm.Message, plan CompactPlan, predicted int, ok bool) {
	plan, ok = g.h.PlanCompaction(keep)
	if !ok {
		return nil, plan, 0, false
	}
	old = slices.Clone(g.h.Messages("sys")[1:])
	summary := fmt.Sprintf("summary %d", g.seq)
	predicted = g.h.CompactedBytes(plan.Through, summary, "sys", 100)
	req := g.request(ModelRequest{Model: "m", Purpose: PurposeCompaction, Compact: plan.Through, System: "summarise"})
	g.add(KindModelResponse, ModelResponse{RequestSeq: req.Seq, Content: summary, DoneReason: "stop"})
	g.add(KindCompaction, Compaction{RequestSeq: req.Seq, Summary: summary, From: plan.From, Through: plan.Through, Messages: plan.Messages})
	return old, plan, predicted, true
}

func randomLog(t *testing.T, rng *rand.Rand) *logGen {
	g := &logGen{rng: rng, h: NewHistory()}
	runs := 1 + rng.IntN(4)
	for r := range runs {
		g.user()
		rounds := rng.IntN(12)
		for i := range rounds {
			g.round(r == runs-1 && i == rounds-1 && rng.IntN(3) == 0)
			if rng.IntN(10) == 0 {
				g.add(KindNotice, Notice{Code: "context_cut", Message: "cut"})
			}
			if rng.IntN(15) == 0 {
				g.compact(1 + rng.IntN(3))
			}
		}
		for _, res := range g.late {
			g.add(KindToolResult, res)
		}
		g.late = nil
		g.add(KindRunEnd, RunEnd{Reason: EndAnswered})
	}
	return g
}

// owners maps each call id in msgs to where its call is and where its
// results are.
func owners(msgs []llm.Message) (calls map[string]int, results map[string][]int) {
	calls, results = map[string]int{}, map[string][]int{}
	for i, m := range msgs {
		for _, c := range m.ToolCalls {
			calls[c.ID] = i
		}
		if m.Role == llm.RoleTool {
			results[m.ToolCallID] = append(results[m.ToolCallID], i)
		}
	}
	return calls, results
}

// Over thousands of random histories, a compaction never separates a call
// from its results, keeps the system prompt and the latest rounds as they
// were, keeps the user's latest message, and replays from the log to
// exactly the history the loop had.
func TestCompactionPropertiesOverRandomHistories(t *testing.T) {
	const iterations = 2000
	compacted := 0
	for it := range iterations {
		rng := rand.New(rand.NewPCG(uint64(it), 7))
		g := randomLog(t, rng)
		keep := 1 + rng.IntN(3)
		old, plan, wantAfter, ok := g.compact(keep)
		if !ok {
			continue
		}
		compacted++
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("seed %d, keep %d: %s", it, keep, fmt.Sprintf(format, args...))
		}
		after, err := Replay(g.evs)
		if err != nil {
			fail("replay: %v", err)
		}
		msgs := after.Messages("sys")
		if msgs[0].Role != llm.RoleSystem || msgs[0].Content != "sys" {
			fail("system prompt lost: %+v", msgs[0])
		}
		conv := msgs[1:]
		if len(conv) != len(old)-plan.Messages+1 {
			fail("%d messages after replacing %d of %d", len(conv), plan.Messages, len(old))
		}
		if !strings.Contains(conv[0].Content, "summary ") || conv[0].Role != llm.RoleUser {
			fail("first message is not the summary: %+v", conv[0])
		}
		// The latest keep rounds, and all after them, are as they were.
		start, seen := -1, 0
		for i := len(old) - 1; i >= 0; i-- {
			if old[i].Role == llm.RoleAssistant {
				if seen++; seen == keep {
					start = i
					break
				}
			}
		}
		if start < 0 || !reflect.DeepEqual(conv[len(conv)-(len(old)-start):], old[start:]) {
			fail("the latest %d rounds were not kept as they were", keep)
		}
		// No call is parted from its results: each id's call and results
		// are all kept or all replaced.
		oc, or := owners(old)
		nc, nr := owners(conv)
		for id := range oc {
			_, keptCall := nc[id]
			if keptCall && len(nr[id]) != len(or[id]) {
				fail("call %s kept with %d of its %d results", id, len(nr[id]), len(or[id]))
			}
			if !keptCall && len(nr[id]) > 0 {
				fail("result of %s kept without its call", id)
			}
		}
		for id, at := range nr {
			if c, ok := nc[id]; !ok || c > at[0] {
				fail("result of %s has no call before it", id)
			}
		}
		// The task survives word for word.
		var task string
		for _, m := range old {
			if m.Role == llm.RoleUser && !strings.HasPrefix(m.Content, "[Loupe compacted") {
				task = m.Content
			}
		}
		found := false
		for _, m := range conv {
			if strings.Contains(m.Content, task) {
				found = true
			}
		}
		if task != "" && !found {
			fail("the user's latest message %.30q is gone", task)
		}
		// The size bookkeeping agrees with the request built from it, and
		// with the estimate made before.
		req := BuildRequest(after, ModelRequest{Model: "m", System: "sys"}, nil)
		if got, want := after.PromptBytes("sys", len("null")), PromptBytesOf(req); got != want {
			fail("estimate %d, request %d", got, want)
		}
		if got := after.PromptBytes("sys", 100); got != wantAfter {
			fail("estimate after %d, predicted %d", got, wantAfter)
		}
		// A request after the compaction is rebuilt from the log as sent.
		if !reflect.DeepEqual(g.h.Messages("sys"), msgs) {
			fail("the history fed event by event differs from the replayed one")
		}
		g.request(ModelRequest{Model: "m", System: "sys"})
		rebuilt, err := Rebuild(g.evs, len(g.evs)-1, nil)
		if err != nil {
			fail("rebuild: %v", err)
		}
		if !reflect.DeepEqual(rebuilt.Messages, msgs) {
			fail("rebuilt request differs from the history")
		}
	}
	if compacted < iterations/3 {
		t.Fatalf("only %d of %d histories had something to compact: the generator is too tame", compacted, iterations)
	}
}
