package agent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// Stepping pauses at the four checkpoints, in the loop's order, and each
// pause shows what may be edited there. Nothing happens before the user
// steps: the request is not sent, the tool does not run.
func TestPauseHookAtEachCheckpoint(t *testing.T) {
	r := newRig(t, echo("look"), echo("peek"))
	p := newStepper(stepping)
	r.pauser = p
	r.model.say(asks(tc("c1", "look", `{"x":"a"}`), tc("c2", "peek", `{"x":"b"}`)), text("Done."))
	done := r.start(t.Context(), "Go")
	var got []string
	for range 8 {
		c := p.next(t)
		got = append(got, c.Point+"/"+c.CallID)
		switch c.Point {
		case trace.PointBeforeRequest:
			if c.Request == nil || c.Request.System != "sys" || c.Request.Model != "m" || len(c.Request.Messages) == 0 || c.Request.Messages[0].Content != "Go" {
				t.Fatalf("pause before a request shows %+v", c)
			}
			if n := len(r.model.sent()); n != c.Round-1 {
				t.Fatalf("round %d was sent before the user stepped (%d requests)", c.Round, n)
			}
		case trace.PointBeforeTool:
			if string(c.Args) != map[string]string{"c1": `{"x":"a"}`, "c2": `{"x":"b"}`}[c.CallID] {
				t.Fatalf("pause before %s shows args %s", c.CallID, c.Args)
			}
			if r.log.has(trace.KindToolResult, c.CallID, "") || r.log.has(trace.KindPermission, c.CallID, "") {
				t.Fatalf("%s was decided or ran before the user stepped", c.CallID)
			}
		case trace.PointAfterResult:
			// The result the pause is after is the event just before it.
			evs := r.log.all()
			if res, err := trace.Decode[trace.ToolResult](evs[c.Seq-2]); err != nil || res.CallID != c.CallID {
				t.Fatalf("pause after a result does not follow its result: %s", evs[c.Seq-2].Payload)
			}
		}
		if err := p.send(t, Command{Action: trace.ActionStep}); err != nil {
			t.Fatal(err)
		}
	}
	want := "before_request/ after_response/ before_tool/c1 after_result/c1 before_tool/c2 after_result/c2 before_request/ after_response/"
	if strings.Join(got, " ") != want {
		t.Fatalf("checkpoints:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if end := wait(t, done); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	evs := r.log.all()
	// Each pause is a checkpoint event, and one before a call carries its
	// arguments.
	var paused []string
	for _, cp := range payloads[trace.Checkpoint](t, evs) {
		if cp.State == trace.Paused {
			paused = append(paused, cp.Point+"/"+cp.CallID)
			if cp.Point == trace.PointBeforeTool && len(cp.Args) == 0 || cp.Point == trace.PointBeforeRequest && (cp.Request == nil || cp.Request.Options.NumCtx == 0) {
				t.Errorf("paused checkpoint without what may be edited: %+v", cp)
			}
		}
	}
	if strings.Join(paused, " ") != want {
		t.Fatalf("paused events: %v", paused)
	}
	invariants.Check(t, evs)
}

// When nobody steps, the loop asks the hook at every checkpoint and builds
// no preview.
func TestNoPauseWhenTheHookSaysNo(t *testing.T) {
	r := newRig(t)
	p := newStepper(func(Checkpoint) bool { return false })
	r.pauser = p
	r.model.say(asks(tc("c1", "look", `{"x":"a"}`)), text("ok"))
	r.run(t.Context(), "Go")
	want := []string{"before_request/", "after_response/", "before_tool/c1", "after_result/c1", "before_request/", "after_response/"}
	if !slices.Equal(p.asked, want) {
		t.Fatalf("the hook was asked at %v, want %v", p.asked, want)
	}
	if len(p.waits) != 0 || len(payloads[trace.Checkpoint](t, r.log.all())) != 0 {
		t.Fatal("a run paused that the hook did not stop")
	}
}

// A breakpoint on one tool pauses that call only: the others of the same
// answer are decided and run meanwhile, and the results still go back in
// call order.
func TestPausedCallDoesNotBlockTheOthers(t *testing.T) {
	ran := make(chan string, 3)
	tool := func(name string) fn {
		return fn{name: name, readOnly: true, run: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
			var in struct{ X string }
			_ = json.Unmarshal(args, &in)
			ran <- in.X
			return tools.Result{Content: name + " " + string(args)}, nil
		}}
	}
	r := newRig(t, tool("look"), tool("risky"))
	p := newStepper(func(c Checkpoint) bool { return c.Point == trace.PointBeforeTool && c.Tool == "risky" })
	r.pauser = p
	r.model.say(asks(tc("a", "look", `{"x":"1"}`), tc("b", "risky", `{"x":"2"}`), tc("c", "look", `{"x":"3"}`)), text("ok"))
	done := r.start(t.Context(), "Go")
	if c := p.next(t); c.CallID != "b" {
		t.Fatalf("paused at %+v", c)
	}
	// While b waits, a and c are decided and run (b is still paused: it
	// has not been sent a command).
	var whilePaused []string
	for range 2 {
		select {
		case x := <-ran:
			whilePaused = append(whilePaused, x)
		case <-time.After(10 * time.Second):
			t.Fatalf("while b was paused only %v ran; a paused call held the others up", whilePaused)
		}
	}
	slices.Sort(whilePaused)
	if !slices.Equal(whilePaused, []string{"1", "3"}) {
		t.Fatalf("while b was paused, ran %v; want a and c", whilePaused)
	}
	if !r.log.has(trace.KindPermission, "a", trace.Allow) || !r.log.has(trace.KindPermission, "c", trace.Allow) || r.log.has(trace.KindPermission, "b", "") {
		t.Fatal("a and c should be decided, b not yet")
	}
	// No result is recorded ahead of b's: they go back in call order.
	if r.log.has(trace.KindToolResult, "c", "") {
		t.Fatal("c's result was recorded before b's")
	}
	if err := p.send(t, Command{Action: trace.ActionContinue}); err != nil {
		t.Fatal(err)
	}
	wait(t, done)
	evs := r.log.all()
	if got := resultsOf(t, evs); !slices.Equal(got, []string{"a:ok", "b:ok", "c:ok"}) {
		t.Fatalf("results = %v", got)
	}
	invariants.Check(t, evs)
}

// A paused run's log, cut where the app exited at each checkpoint, resumes
// there: it waits at that checkpoint again without recording it twice,
// then goes on to the end, and no call runs twice.
func TestRestoredRunResumesAtItsCheckpoint(t *testing.T) {
	order := []string{"before_request/", "after_response/", "before_tool/c1", "after_result/c1", "before_tool/c2", "after_result/c2", "before_request/", "after_response/"}
	for stopAt := range order {
		t.Run(order[stopAt], func(t *testing.T) {
			var mu sync.Mutex
			runs := map[string]int{}
			counted := func(name string) fn {
				return fn{name: name, readOnly: true, run: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
					var in struct{ X string }
					_ = json.Unmarshal(args, &in)
					mu.Lock()
					runs[in.X]++
					mu.Unlock()
					return tools.Result{Content: "saw " + in.X}, nil
				}}
			}
			replies := []func(context.Context, llm.Request, func(llm.Chunk)) (llm.Response, error){
				asks(tc("c1", "look", `{"x":"c1"}`), tc("c2", "peek", `{"x":"c2"}`)), text("Done."),
			}
			// The first app: steps to the checkpoint, and exits there.
			first := newRig(t, counted("look"), counted("peek"))
			p := newStepper(stepping)
			first.pauser = p
			first.model.say(replies...)
			ctx, exit := context.WithCancel(t.Context())
			done := first.start(ctx, "Go")
			for i := range stopAt {
				if c := p.next(t); c.Point+"/"+c.CallID != order[i] {
					t.Fatalf("paused at %s/%s, want %s", c.Point, c.CallID, order[i])
				}
				if err := p.send(t, Command{Action: trace.ActionStep}); err != nil {
					t.Fatal(err)
				}
			}
			p.next(t)
			log := first.log.all() // what the database holds when the app dies
			exit()
			wait(t, done)

			// The second app: the same log, resumed.
			second := newRig(t, counted("look"), counted("peek"))
			second.log.events = log
			p2 := newStepper(stepping)
			second.pauser = p2
			answered := 0
			for _, e := range log {
				if e.Kind == trace.KindModelResponse {
					answered++
				}
			}
			second.model.say(replies[answered:]...)
			resumed := make(chan trace.RunEnd, 1)
			go func() {
				end, err := second.agent().Resume(t.Context())
				if err != nil {
					t.Error(err)
				}
				resumed <- end
			}()
			var got []string
			for range len(order) - stopAt {
				c := p2.next(t)
				got = append(got, c.Point+"/"+c.CallID)
				if err := p2.send(t, Command{Action: trace.ActionStep}); err != nil {
					t.Fatal(err)
				}
			}
			if want := order[stopAt:]; !slices.Equal(got, want) {
				t.Fatalf("after the restart:\n got %v\nwant %v", got, want)
			}
			if end := wait(t, resumed); end.Reason != trace.EndAnswered || end.FinalText != "Done." {
				t.Fatalf("end = %+v", end)
			}
			evs := second.log.all()
			invariants.Check(t, evs)
			paused := 0
			for _, cp := range payloads[trace.Checkpoint](t, evs) {
				if cp.State == trace.Paused {
					paused++
				}
			}
			if paused != len(order) {
				t.Fatalf("%d paused checkpoints, want %d (the restored one is not recorded twice)", paused, len(order))
			}
			if runs["c1"] != 1 || runs["c2"] != 1 {
				t.Fatalf("tool runs = %v, want each call once", runs)
			}
			// The resumed run's requests are the ones the log describes.
			for i, e := range evs {
				if e.Kind == trace.KindModelRequest {
					if _, err := trace.Rebuild(evs, i, second.tools.Specs()); err != nil {
						t.Fatalf("request %d: %v", e.Seq, err)
					}
				}
			}
		})
	}
}

// Edits at a pause reach the model and are events: the system prompt and
// a message before a request, a call's arguments (checked again) before
// it runs, a result before it goes back.
func TestEditsAtPauses(t *testing.T) {
	r := newRig(t, echo("look"))
	p := newStepper(stepping)
	r.pauser = p
	r.model.say(asks(tc("c1", "look", `{"x":"a"}`)), text("ok"))
	done := r.start(t.Context(), "Go")

	c := p.next(t)
	system := "Be brief."
	if err := p.send(t, Command{Action: ActionEdit, Request: &RequestEdit{System: &system, Messages: []MessageEdit{{Seq: c.Request.Messages[0].Seq, Content: "Go now"}}}}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(editsOf(t, r.log.all()), " "); got != `system:"Be brief." message:"Go now"` {
		t.Fatalf("after the edit the log holds %s", got)
	}
	if err := p.send(t, Command{Action: ActionEdit, Request: &RequestEdit{Messages: []MessageEdit{{Seq: 99, Content: "x"}}}}); err == nil {
		t.Fatal("an edit of a message that is not in the request was taken")
	}
	p.send(t, Command{Action: trace.ActionStep})
	p.next(t) // after_response
	p.send(t, Command{Action: trace.ActionStep})

	p.next(t) // before_tool
	if err := p.send(t, Command{Action: ActionEdit, Args: json.RawMessage(`{"x":7}`)}); err == nil || !strings.Contains(err.Error(), "invalid arguments") {
		t.Fatalf("bad args edit: %v", err)
	}
	if err := p.send(t, Command{Action: ActionEdit, Args: json.RawMessage(`{ "x": "b" }`)}); err != nil {
		t.Fatal(err)
	}
	if got := editsOf(t, r.log.all()); len(got) != 3 || got[2] != `args:{"x":"b"}` {
		t.Fatalf("after the args edit the log holds %v", got)
	}
	if err := p.send(t, Command{Action: trace.ActionSkip + "x"}); err == nil {
		t.Fatal("an unknown command was taken")
	}
	p.send(t, Command{Action: trace.ActionStep})

	p.next(t) // after_result
	if res := resultFor(t, r.log.all(), "c1"); res == nil || res.Content != "look:b" {
		t.Fatalf("the call ran with %+v", res)
	}
	edited := "look: edited"
	if err := p.send(t, Command{Action: ActionEdit, Result: &edited}); err != nil {
		t.Fatal(err)
	}
	if err := p.send(t, Command{Action: trace.ActionSkip}); err != ErrNotHere {
		t.Fatalf("skip after a result: %v", err)
	}
	p.send(t, Command{Action: trace.ActionContinue})
	for range 2 {
		p.next(t)
		p.send(t, Command{Action: trace.ActionContinue})
	}
	wait(t, done)

	sent := r.model.sent()
	first, second := sent[0].Messages, sent[1].Messages
	if first[0].Content != system || first[1].Content != "Go now" {
		t.Fatalf("first request = %+v", first)
	}
	if string(second[2].ToolCalls[0].Args) != `{"x":"b"}` || second[3].Content != edited || second[0].Content != system {
		t.Fatalf("second request = %+v", second)
	}
	var targets []string
	for _, ed := range payloads[trace.Edit](t, r.log.all()) {
		targets = append(targets, ed.Target)
	}
	if strings.Join(targets, " ") != "system message args result" {
		t.Fatalf("edit events = %v", targets)
	}
	invariants.Check(t, r.log.all())
}

// Stop while paused ends the run; the paused call is answered "cancelled"
// and never runs.
func TestStopWhilePaused(t *testing.T) {
	r := newRig(t, fn{name: "look", run: func(context.Context, json.RawMessage) (tools.Result, error) {
		t.Error("the paused call ran after Stop")
		return tools.Result{}, nil
	}})
	p := newStepper(func(c Checkpoint) bool { return c.Point == trace.PointBeforeTool })
	r.pauser = p
	r.model.say(asks(tc("c1", "look", `{"x":"a"}`)))
	ctx, cancel := context.WithCancel(t.Context())
	done := r.start(ctx, "Go")
	p.next(t)
	cancel()
	if end := wait(t, done); end.Reason != trace.EndCancelled {
		t.Fatalf("end = %+v", end)
	}
	if got := resultsOf(t, r.log.all()); !slices.Equal(got, []string{"c1:cancelled"}) {
		t.Fatalf("results = %v", got)
	}
	invariants.Check(t, r.log.all())
}

// Closing Loupe while a run waits at any of its checkpoints writes
// nothing: the paused checkpoint stays the log's last word on the run, so
// it waits there again when Loupe opens, and the run says it was left
// paused rather than stopped.
func TestClosingWhilePausedLeavesThePause(t *testing.T) {
	order := []string{"before_request/", "after_response/", "before_tool/c1", "after_result/c1"}
	for stopAt := range order {
		t.Run(order[stopAt], func(t *testing.T) {
			r := newRig(t, echo("look"))
			p := newStepper(stepping)
			r.pauser = p
			r.model.say(asks(tc("c1", "look", `{"x":"a"}`)), text("Done."))
			ctx, closeApp := context.WithCancelCause(t.Context())
			type result struct {
				end trace.RunEnd
				err error
			}
			done := make(chan result, 1)
			go func() {
				end, err := r.agent().Run(ctx, "Go")
				done <- result{end, err}
			}()
			for range stopAt {
				p.next(t)
				if err := p.send(t, Command{Action: trace.ActionStep}); err != nil {
					t.Fatal(err)
				}
			}
			at := p.next(t)
			before := r.log.all()
			closeApp(ErrClosing)
			got := <-done
			if !errors.Is(got.err, ErrLeftPaused) {
				t.Fatalf("run returned %+v, %v; want ErrLeftPaused", got.end, got.err)
			}
			after := r.log.all()
			if len(after) != len(before) {
				t.Fatalf("closing while paused wrote %v", kinds(after[len(before):]))
			}
			st := trace.StateOf(after)
			if !st.Open || st.PausedSeq != at.Seq {
				t.Fatalf("after closing the log says open %v, paused at %d; want paused at %d", st.Open, st.PausedSeq, at.Seq)
			}
		})
	}
}

// Closing Loupe while a run works ends it as interrupted because Loupe was
// closed, not as stopped by the user: the running call and the calls that
// had not started say so.
func TestClosingWhileWorkingInterrupts(t *testing.T) {
	started := make(chan struct{})
	slow := fn{name: "slow", readOnly: true, run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		close(started)
		<-ctx.Done()
		return tools.Result{Content: "half", IsError: true}, ctx.Err()
	}}
	r := newRig(t, slow)
	r.cfg.MaxParallel = 1
	r.model.say(asks(tc("c1", "slow", `{"x":"a"}`), tc("c2", "slow", `{"x":"b"}`)))
	ctx, closeApp := context.WithCancelCause(t.Context())
	done := r.start(ctx, "Go")
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the call never started")
	}
	closeApp(ErrClosing)
	end := wait(t, done)
	if end.Reason != trace.EndInterrupted || !strings.Contains(end.Detail, "Loupe was closed") {
		t.Fatalf("end = %+v, want interrupted because Loupe was closed", end)
	}
	if got := resultsOf(t, r.log.all()); !slices.Equal(got, []string{"c1:interrupted", "c2:interrupted"}) {
		t.Fatalf("results = %v", got)
	}
	for _, res := range payloads[trace.ToolResult](t, r.log.all()) {
		if !strings.Contains(res.Content, "Loupe was closed") {
			t.Errorf("result of %s says %q", res.CallID, res.Content)
		}
	}
	invariants.Check(t, r.log.all())
}

// Switching tools off at a pause before a request holds for the rest of
// the run: the model gets only the schemas left, in this request and the
// next, a call of a tool switched off is an unknown tool and never runs,
// and each request names a stored tool set that rebuilds what was sent.
// A tool the run does not have, or one set to never, cannot be switched
// on, and such a refusal writes nothing.
func TestToolsSwitchedOffAtAPause(t *testing.T) {
	ran := map[string]int{}
	var mu sync.Mutex
	counted := func(name string) fn {
		f := echo(name)
		inner := f.run
		f.run = func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
			mu.Lock()
			ran[name]++
			mu.Unlock()
			return inner(ctx, args)
		}
		return f
	}
	r := newRig(t, counted("look"), counted("peek"), counted("risky"))
	r.cfg.Policy.Tools = map[string]permission.ToolSetting{"risky": permission.ToolNever}
	sets := map[int][]llm.ToolSpec{1: r.tools.Specs()}
	r.cfg.ToolSets = func(_ context.Context, specs []llm.ToolSpec) (int, error) {
		id := len(sets) + 1
		sets[id] = specs
		return id, nil
	}
	p := newStepper(func(c Checkpoint) bool { return c.Point == trace.PointBeforeRequest })
	r.pauser = p
	r.model.say(asks(tc("c1", "peek", `{"x":"a"}`), tc("c2", "look", `{"x":"b"}`)), text("Done."))
	done := r.start(t.Context(), "Go")

	c := p.next(t)
	if got := c.Request; !slices.Equal(got.Offer, []string{"look", "peek", "risky"}) || got.Withheld["risky"] == "" || len(got.Withheld) != 1 {
		t.Fatalf("the pause offers %v, withholds %v", got.Offer, got.Withheld)
	}
	only := []string{"look"}
	if err := p.send(t, Command{Action: ActionEdit, Request: &RequestEdit{Tools: &only}}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(editsOf(t, r.log.all()), " "); got != `tools:["look"]` {
		t.Fatalf("after switching tools off the log holds %s", got)
	}
	logged := len(r.log.all())
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"look", "web"}, "no tool named web"},
		{[]string{"look", "risky"}, "risky (set to never) cannot be switched on"},
	} {
		err := p.send(t, Command{Action: ActionEdit, Request: &RequestEdit{Tools: &c.names}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("switching on %v: %v, want an error saying %q", c.names, err, c.want)
		}
	}
	if n := len(r.log.all()); n != logged {
		t.Fatalf("refused edits wrote %v", kinds(r.log.all()[logged:]))
	}
	p.send(t, Command{Action: trace.ActionContinue})

	// The next request's pause still offers what the run can offer, and
	// keeps the choice.
	c = p.next(t)
	if !slices.Equal(c.Request.Tools, only) || !slices.Equal(c.Request.Offer, []string{"look", "peek", "risky"}) {
		t.Fatalf("the second pause offers %v of %v", c.Request.Tools, c.Request.Offer)
	}
	p.send(t, Command{Action: trace.ActionContinue})
	wait(t, done)

	sent := r.model.sent()
	if len(sent) != 2 {
		t.Fatalf("%d requests sent, want 2", len(sent))
	}
	for i, req := range sent {
		var names []string
		for _, s := range req.Tools {
			names = append(names, s.Name)
		}
		if !slices.Equal(names, only) {
			t.Errorf("request %d offered %v, want only %v", i+1, names, only)
		}
	}
	if got := resultsOf(t, r.log.all()); !slices.Equal(got, []string{"c1:" + trace.ErrUnknownTool, "c2:ok"}) {
		t.Fatalf("results = %v", got)
	}
	if ran["peek"] != 0 || ran["look"] != 1 {
		t.Fatalf("tools ran %v", ran)
	}
	evs := r.log.all()
	k := 0
	for i, e := range evs {
		if e.Kind != trace.KindModelRequest {
			continue
		}
		mr, _ := trace.Decode[trace.ModelRequest](e)
		if !slices.Equal(mr.ToolNames, only) || len(sets[mr.ToolSet]) != 1 {
			t.Fatalf("request %d names tool set %d (%v)", e.Seq, mr.ToolSet, mr.ToolNames)
		}
		req, err := trace.Rebuild(evs, i, sets[mr.ToolSet])
		want, _ := json.Marshal(sent[k])
		if got, _ := json.Marshal(req); err != nil || string(got) != string(want) {
			t.Fatalf("request %d rebuilt from the log (%v):\n%s\nsent:\n%s", e.Seq, err, got, want)
		}
		k++
	}
	invariants.Check(t, evs)
}
