package trace

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
)

// WithEdit applies each kind of edit to the pause it belongs to, and
// refuses one that does not fit the pause, leaving the pause as it was.
func TestWithEditAppliesEachTargetToItsPause(t *testing.T) {
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	request := Checkpoint{Point: PointBeforeRequest, State: Paused, Request: &Pending{System: "sys", Options: llm.Options{NumCtx: 8192, Temperature: 0.5},
		Messages: []PendingMessage{{Seq: 1, Role: "user", Content: "hi"}, {Seq: 3, Role: "tool", Content: "out"}},
		Tools:    []string{"read_file", "list_dir", "run_command"}, Offer: []string{"read_file", "write_file", "list_dir", "run_command"},
		Withheld: map[string]string{"write_file": "set to never", "run_command": "set to never"}}}
	tool := Checkpoint{Point: PointBeforeTool, State: Paused, CallID: "c1", Tool: "read_file", Args: json.RawMessage(`{"path":"a"}`)}
	result := Checkpoint{Point: PointAfterResult, State: Paused, CallID: "c1", Tool: "read_file"}
	for _, c := range []struct {
		name  string
		cp    Checkpoint
		ed    Edit
		check func(Checkpoint) bool
		bad   string
	}{
		{name: "system", cp: request, ed: Edit{Target: EditSystem, After: str("new")}, check: func(p Checkpoint) bool { return p.Request.System == "new" }},
		{name: "options", cp: request, ed: Edit{Target: EditOptions, After: json.RawMessage(`{"num_ctx":4096,"temperature":0}`)},
			check: func(p Checkpoint) bool { return p.Request.Options == llm.Options{NumCtx: 4096} }},
		{name: "message", cp: request, ed: Edit{Target: EditMessage, Seq: 3, After: str("edited")},
			check: func(p Checkpoint) bool {
				return p.Request.Messages[1].Content == "edited" && p.Request.Messages[0].Content == "hi"
			}},
		// Tools come out in the order the run offers them, whatever the
		// order of the edit; a withheld tool already offered may stay.
		{name: "tools", cp: request, ed: Edit{Target: EditTools, After: json.RawMessage(`["run_command","read_file"]`)},
			check: func(p Checkpoint) bool { return strings.Join(p.Request.Tools, " ") == "read_file run_command" }},
		{name: "no tools", cp: request, ed: Edit{Target: EditTools, After: json.RawMessage(`[]`)},
			check: func(p Checkpoint) bool { return p.Request.Tools != nil && len(p.Request.Tools) == 0 }},
		{name: "args", cp: tool, ed: Edit{Target: EditArgs, CallID: "c1", After: json.RawMessage(`{"path":"b"}`)},
			check: func(p Checkpoint) bool { return string(p.Args) == `{"path":"b"}` }},
		{name: "result", cp: result, ed: Edit{Target: EditResult, CallID: "c1", After: str("mine")},
			check: func(p Checkpoint) bool { return p.Result != nil && *p.Result == "mine" }},
		{name: "message not in the request", cp: request, ed: Edit{Target: EditMessage, Seq: 2, After: str("x")}, bad: "message 2 is not part of this request"},
		{name: "a tool the run does not have", cp: request, ed: Edit{Target: EditTools, After: json.RawMessage(`["read_file","web.fetch"]`)},
			bad: "this run has no tool named web.fetch (choose among read_file, write_file, list_dir, run_command"},
		{name: "switching on a tool set to never", cp: request, ed: Edit{Target: EditTools, After: json.RawMessage(`["read_file","write_file"]`)},
			bad: "write_file (set to never) cannot be switched on in this run"},
		{name: "tools not a list", cp: request, ed: Edit{Target: EditTools, After: json.RawMessage(`"read_file"`)}, bad: "a list of tool names"},
		{name: "tools at a call", cp: tool, ed: Edit{Target: EditTools, After: json.RawMessage(`[]`)}, bad: "only the request before it is sent"},
		{name: "system as a number", cp: request, ed: Edit{Target: EditSystem, After: json.RawMessage(`7`)}, bad: "system edit"},
		{name: "system at a call", cp: tool, ed: Edit{Target: EditSystem, After: str("x")}, bad: "only the request before it is sent"},
		{name: "args of another call", cp: tool, ed: Edit{Target: EditArgs, CallID: "c2", After: json.RawMessage(`{}`)}, bad: "arguments of call c2"},
		{name: "args not an object", cp: tool, ed: Edit{Target: EditArgs, CallID: "c1", After: json.RawMessage(`[1]`)}, bad: "not a JSON object"},
		{name: "result before the call", cp: tool, ed: Edit{Target: EditResult, CallID: "c1", After: str("x")}, bad: "result of call c1 at a before_tool pause"},
		{name: "unknown target", cp: tool, ed: Edit{Target: "colour"}, bad: `unknown edit target "colour"`},
		{name: "a pause that is over", cp: Checkpoint{Point: PointBeforeTool, State: Resumed, CallID: "c1"}, ed: Edit{Target: EditArgs, CallID: "c1", After: json.RawMessage(`{}`)}, bad: "not paused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, _ := json.Marshal(c.cp)
			got, err := c.cp.WithEdit(c.ed)
			after, _ := json.Marshal(c.cp)
			if string(before) != string(after) {
				t.Fatalf("the pause given changed: %s → %s", before, after)
			}
			if c.bad != "" {
				if err == nil || !strings.Contains(err.Error(), c.bad) {
					t.Fatalf("err = %v, want one saying %q", err, c.bad)
				}
				return
			}
			if err != nil || !c.check(got) {
				t.Fatalf("WithEdit = %+v, %v", got, err)
			}
		})
	}
}

// StateOf reads the pause as its edits leave it, and says when one of them
// does not fit it.
func TestStateOfFoldsThePausesEdits(t *testing.T) {
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	ev := func(seq int64, kind Kind, p any) Event { e := New(kind, 1, 1, p); e.Seq = seq; return e }
	log := []Event{
		ev(1, KindUserMessage, UserMessage{Text: "hi"}),
		ev(2, KindCheckpoint, Checkpoint{Point: PointBeforeRequest, State: Paused, Request: &Pending{System: "sys", Messages: []PendingMessage{{Seq: 1, Content: "hi"}},
			Tools: []string{"read_file", "grep"}, Offer: []string{"read_file", "grep"}}}),
		ev(3, KindEdit, Edit{Target: EditSystem, After: str("one")}),
		ev(4, KindEdit, Edit{Target: EditMessage, Seq: 1, After: str("hello")}),
		ev(5, KindEdit, Edit{Target: EditTools, Before: json.RawMessage(`["grep","read_file"]`), After: json.RawMessage(`["read_file"]`)}),
	}
	st := StateOf(log)
	if st.BadEdit != nil || st.Paused.Request.System != "one" || st.Paused.Request.Messages[0].Content != "hello" || strings.Join(st.Paused.Request.Tools, " ") != "read_file" {
		t.Fatalf("paused %+v, %v", st.Paused.Request, st.BadEdit)
	}
	// A tool switched off at the pause may be switched on again there.
	back := StateOf(append(log, ev(6, KindEdit, Edit{Target: EditTools, After: json.RawMessage(`["grep","read_file"]`)})))
	if back.BadEdit != nil || strings.Join(back.Paused.Request.Tools, " ") != "read_file grep" {
		t.Fatalf("switched on again: %+v, %v", back.Paused.Request.Tools, back.BadEdit)
	}
	st = StateOf(append(log, ev(6, KindEdit, Edit{Target: EditArgs, CallID: "c1", After: json.RawMessage(`{}`)})))
	if st.BadEdit == nil || !strings.Contains(st.BadEdit.Error(), "event 6") || st.Paused.Request.System != "one" {
		t.Fatalf("an edit that does not fit: %v, %+v", st.BadEdit, st.Paused.Request)
	}
}

// An edit event of a log written before edits carried their pause gets the
// pause the fold gives; one that carries it is left byte for byte.
func TestFillEditPausesGivesOldEditsTheirPause(t *testing.T) {
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	ev := func(seq int64, kind Kind, p any) Event { e := New(kind, 1, 1, p); e.Seq = seq; return e }
	log := []Event{
		ev(1, KindUserMessage, UserMessage{Text: "hi"}),
		ev(2, KindCheckpoint, Checkpoint{Point: PointBeforeRequest, State: Paused, Request: &Pending{System: "sys"}}),
		ev(3, KindEdit, Edit{Target: EditSystem, After: str("one")}),
		ev(4, KindEdit, Edit{Target: EditSystem, After: str("two")}),
	}
	FillEditPauses(log)
	for i, want := range []string{"one", "two"} {
		ed, err := Decode[Edit](log[2+i])
		if err != nil || ed.Pause == nil || ed.Pause.Request.System != want {
			t.Fatalf("edit %d: %+v %v", 3+i, ed.Pause, err)
		}
	}
	kept := string(log[3].Payload)
	FillEditPauses(log)
	if string(log[3].Payload) != kept {
		t.Fatal("an edit that carries its pause was written again")
	}
}
