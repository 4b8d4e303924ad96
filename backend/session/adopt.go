package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/backend/demo"
	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Adopt keeps a try: a fork of the session whose log is the parent's
// through the event before the request tried, then the request the try
// sent and its answer, and which goes on from there with the try's model
// and host.
type Adopt struct {
	// Try is the try as Manager.Try returned it (the window passes it
	// back): its session and request, the body it sent, its answer.
	Try TryResult `json:"try"`
	// Files and Folder are a Fork's: where the fork works.
	Files  string `json:"files,omitempty"`
	Folder string `json:"folder,omitempty"`
}

// Adopt forks the session of a try with the try's answer as the answer to
// the request it tried. The log must say what was sent, so the fork's
// model_request is the try's request, not the recorded one: the model,
// options and host of the try, and what an edited body changed of the
// system prompt and of messages' text as edit events at a pause before it
// (what a person stepping the run could have done there; an edited
// message stays edited for the rest of the run, as such an edit does). A
// body whose other changes no log can hold (messages added or taken out,
// tools, other options) is refused, and so is one whose request, rebuilt
// from the fork's log as the Raw view rebuilds it, is not the JSON that
// was sent. Nothing of the parent is written.
func (m *Manager) Adopt(ctx context.Context, a Adopt) (Forked, error) {
	t := a.Try
	parent, err := m.store.GetSession(ctx, t.Session)
	if err != nil {
		return Forked{}, err
	}
	evs, err := m.store.Events(ctx, t.Session)
	if err != nil {
		return Forked{}, err
	}
	if t.At < 1 || t.At > int64(len(evs)) || evs[t.At-1].Kind != trace.KindModelRequest {
		return Forked{}, fmt.Errorf("an answer is adopted at the request it answers: event %d of “%s” is not a request to the model", t.At, parent.Title)
	}
	reqEv := evs[t.At-1]
	mr, err := trace.Decode[trace.ModelRequest](reqEv)
	if err != nil {
		return Forked{}, err
	}
	if mr.Purpose == trace.PurposeCompaction {
		return Forked{}, errors.New("a summarising request's answer becomes the compaction that follows it, so it cannot be adopted: try a round's request")
	}
	sent := []byte(t.Body)
	facts, err := ollama.ReadChatBody(sent)
	if err != nil {
		return Forked{}, fmt.Errorf("the try's body: %w", err)
	}
	if demo.Is(facts.Model) {
		return Forked{}, errors.New("the demo model answers only its own script: adopt a try on an Ollama model")
	}
	if facts.Model != t.Alternative.Model {
		return Forked{}, fmt.Errorf("the try's body names model %q, and its answer came from %q: adopt the try as Try returned it", facts.Model, t.Alternative.Model)
	}
	specs, err := requestTools(ctx, m, t.Session, mr)
	if err != nil {
		return Forked{}, err
	}
	before := evs[:t.At-1]
	hist, err := trace.Replay(before)
	if err != nil {
		return Forked{}, err
	}
	recorded := trace.BuildRequest(hist, mr, specs)
	system, edits, err := bodyEdits(recorded, hist.Sourced(), sent)
	if err != nil {
		return Forked{}, err
	}

	// The fork's own events: the pause and its edits when the body was
	// edited, the request the try sent, its answer.
	run, round := reqEv.Run, reqEv.Round
	var then []trace.Event
	add := func(kind trace.Kind, p any) {
		e := trace.New(kind, run, round, p)
		e.Seq = t.At + int64(len(then))
		then = append(then, e)
	}
	sentOpts := llm.Options{NumCtx: facts.NumCtx, Temperature: facts.Temperature}
	if system != nil || len(edits) > 0 {
		pause := trace.Checkpoint{Point: trace.PointBeforeRequest, State: trace.Paused, Request: pendingOf(mr, hist)}
		add(trace.KindCheckpoint, pause)
		if system != nil {
			edits = append([]trace.Edit{editValues(trace.EditSystem, 0, mr.System, *system)}, edits...)
		}
		if sentOpts != mr.Options {
			edits = append(edits, editValues(trace.EditOptions, 0, mr.Options, sentOpts))
		}
		for _, ed := range edits {
			next, err := pause.WithEdit(ed)
			if err != nil {
				return Forked{}, err
			}
			pause, ed.Pause = next, &next
			add(trace.KindEdit, ed)
		}
		add(trace.KindCheckpoint, trace.Checkpoint{Point: trace.PointBeforeRequest, State: trace.Resumed, Action: trace.ActionStep})
	}
	sentMR := mr
	sentMR.Model, sentMR.Options = facts.Model, sentOpts
	sentMR.Host, sentMR.HostName = t.Alternative.Host, t.Alternative.HostName
	if system != nil {
		sentMR.Instructions = mr.Instructions.Kept(mr.System, *system)
		sentMR.System = *system
	}
	// The estimate of the prompt as sent, by part, as the loop makes it.
	edited, err := trace.Replay(append(slices.Clip(before), then...))
	if err != nil {
		return Forked{}, err
	}
	split := adoptedSplit(mr, sentMR, edited, specs)
	sentMR.Split, sentMR.PromptEstimate = &split, split.Sum()
	reqSeq := t.At + int64(len(then))
	add(trace.KindModelRequest, sentMR)

	alt := t.Alternative
	answer := trace.ModelResponse{
		RequestSeq: reqSeq, Content: alt.Content, Thinking: alt.Thinking,
		ToolCalls: slices.Clone(alt.ToolCalls), DoneReason: alt.DoneReason,
		Incomplete: alt.Incomplete, Metrics: alt.Metrics,
	}
	for i := range answer.ToolCalls {
		// As the loop names a call Ollama sent without an id: its
		// result is paired with it by id.
		if answer.ToolCalls[i].ID == "" {
			answer.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d_%d", run, round, i)
		}
	}
	reading := trace.MeterOf(split, nil, alt.Metrics, sentOpts.NumCtx, 0)
	answer.Context = &reading.Meter
	add(trace.KindModelResponse, answer)

	// The log must hold what was sent: the request rebuilt from it as the
	// Raw view rebuilds it is the JSON the try posted.
	child := append(slices.Clip(before), then...)
	rebuilt, err := trace.Rebuild(child, int(reqSeq-1), specs)
	if err != nil {
		return Forked{}, err
	}
	body, err := ollama.EncodeChatRequest(rebuilt)
	if err != nil {
		return Forked{}, err
	}
	if !bytes.Equal(body, sent) {
		if diff := jsonDiff(body, sent); diff != "" {
			return Forked{}, fmt.Errorf("the try's body changes %s, which a session's log cannot record (what it can: the model, temperature, num_ctx, the system prompt and the text of messages): fork at the request and edit it at the pause instead", diff)
		}
	}

	f := Fork{Session: t.Session, At: t.At - 1, Model: facts.Model, Files: a.Files, Folder: a.Folder}
	f.Host = alt.HostName
	if f.Host == "" {
		f.Host = alt.Host
		if alt.Host == m.model.Host() {
			f.Host = "local"
		}
	}
	return m.fork(ctx, parent, f, evs, child, then)
}

// requestTools are the tools of request mr's tool set.
func requestTools(ctx context.Context, m *Manager, id string, mr trace.ModelRequest) ([]llm.ToolSpec, error) {
	if mr.Tools != nil || mr.ToolSet == 0 {
		return mr.Tools, nil
	}
	sets, err := toolSets(ctx, m.store, id)
	if err != nil {
		return nil, err
	}
	specs, ok := sets[mr.ToolSet]
	if !ok {
		return nil, fmt.Errorf("session %s has no tool set %d", id, mr.ToolSet)
	}
	return specs, nil
}

// pendingOf is the pending request the loop shows at the pause before
// mr, the history being h.
func pendingOf(mr trace.ModelRequest, h *trace.History) *trace.Pending {
	sourced := h.Sourced()
	p := &trace.Pending{Model: mr.Model, System: mr.System, Options: mr.Options, Tools: append([]string{}, mr.ToolNames...), Messages: make([]trace.PendingMessage, len(sourced))}
	for i, s := range sourced {
		p.Messages[i] = trace.PendingMessage{Seq: s.Seq, Role: s.Role, Content: s.Content, ToolCalls: s.ToolCalls, ToolCallID: s.ToolCallID, ToolName: s.ToolName}
	}
	return p
}

// editValues is an edit with its values before and after as JSON.
func editValues(target string, seq int64, before, after any) trace.Edit {
	b, _ := json.Marshal(before)
	af, _ := json.Marshal(after)
	return trace.Edit{Target: target, Seq: seq, Before: b, After: af}
}

// bodyEdits reads what the sent body changed of the recorded request's
// messages: the system prompt (nil: unchanged) and the text of history
// messages, as edits of them. Messages added, taken out or of another
// role are refused here; any other change is found by comparing the
// request rebuilt with these edits against the body.
func bodyEdits(recorded llm.Request, sourced []trace.Sourced, sent []byte) (*string, []trace.Edit, error) {
	var b struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(sent, &b); err != nil {
		return nil, nil, fmt.Errorf("the try's body: %w", err)
	}
	msgs := recorded.Messages
	if len(b.Messages) != len(msgs) {
		return nil, nil, fmt.Errorf("the try's body has %d messages and the request %d: a log can hold a message's text edited, not messages added or taken out; fork at the request and edit it at the pause instead", len(b.Messages), len(msgs))
	}
	var system *string
	var edits []trace.Edit
	hasSystem := len(msgs) > len(sourced)
	for i, m := range b.Messages {
		if m.Role != msgs[i].Role {
			return nil, nil, fmt.Errorf("the try's body makes message %d a %q message, not %q: a log cannot record that", i, m.Role, msgs[i].Role)
		}
		if m.Content == msgs[i].Content {
			continue
		}
		if hasSystem && i == 0 {
			s := m.Content
			system = &s
			continue
		}
		j := i
		if hasSystem {
			j--
		}
		edits = append(edits, editValues(trace.EditMessage, sourced[j].Seq, msgs[i].Content, m.Content))
	}
	return system, edits, nil
}

// adoptedSplit estimates request sent by part as the loop would have, h
// being its history: at the rate the recorded request mr used when the
// model is the same, else at the default rate.
func adoptedSplit(mr, sent trace.ModelRequest, h *trace.History, specs []llm.ToolSpec) trace.Split {
	sys := 0
	if sent.System != "" {
		b, _ := json.Marshal(llm.Message{Role: llm.RoleSystem, Content: sent.System})
		sys = len(b)
	}
	tools := 0
	if len(specs) > 0 {
		b, _ := json.Marshal(specs)
		tools = len(b)
	}
	rate := trace.DefaultRate()
	if mr.Split != nil && mr.Model == sent.Model {
		rate = trace.Rate{BytesPerToken: mr.Split.BytesPerToken, From: mr.Split.CalibratedBy}
	}
	hist, fresh := h.PartBytes()
	return trace.SplitOf(sys, tools, hist, fresh, rate)
}

// jsonDiff names the members of two JSON objects whose values differ
// ("": none, the same JSON in other bytes), the messages by index.
func jsonDiff(a, b []byte) string {
	var x, y map[string]any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return "its JSON"
	}
	var out []string
	keys := map[string]bool{}
	for k := range x {
		keys[k] = true
	}
	for k := range y {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if reflect.DeepEqual(x[k], y[k]) {
			continue
		}
		xs, ok1 := x[k].([]any)
		ys, ok2 := y[k].([]any)
		if k == "messages" && ok1 && ok2 && len(xs) == len(ys) {
			for i := range xs {
				if !reflect.DeepEqual(xs[i], ys[i]) {
					out = append(out, fmt.Sprintf("message %d", i))
				}
			}
			continue
		}
		out = append(out, fmt.Sprintf("%q", k))
	}
	return strings.Join(out, ", ")
}
