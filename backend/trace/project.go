package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/loupe-dev/loupe/backend/llm"
)

// History is a session's conversation as the model sees it, built event by
// event: every user message, model answer and tool result becomes a
// message, and every edit changes the message it names from then on. The
// loop keeps one for its run and adds each event as it records it; the Raw
// view replays a stored log into one. Both then build the request with
// BuildRequest, so what is shown is what was sent.
//
// Adding an event costs the same however long the history is.
type History struct {
	// msgs[0] is kept for the system message; the conversation follows.
	msgs []llm.Message
	// seqs[i] is the event msgs[i] comes from (0 for the system slot).
	seqs []int64
	// size[i] is the JSON size of msgs[i], for the context meter's split
	// (PartBytes).
	size  []int
	total int
	// at finds a message by its event; calls and results by call id (the
	// latest message holding that call, the latest result for it).
	at      map[int64]int
	calls   map[string]int
	results map[string]int
	// lastRequest is the seq of the newest model_request; since lists the
	// history events appended after it.
	lastRequest int64
	since       []int64
	all         int
	// fresh lists the history events appended after the newest request
	// of the conversation itself: a summarising request in between is
	// not one the model saw, so what came before it is still new to the
	// next request (the meter's new observations, PartBytes).
	fresh []int64

	// places[i] is the run and round of msgs[i]'s event; place is the
	// run and round of the event being added (see Where).
	places []place
	place  place
	// summary is the compaction whose summary is msgs[1] (0: none);
	// summarising is the compaction request waiting for its answer.
	summary, summarising int64
	// summaryFrom is the first event the summary replaced.
	summaryFrom int64
	// task is the user's latest message as the model sees it, and
	// taskSeq its event: a compaction that replaces it keeps it.
	task    string
	taskSeq int64
}

type place struct{ run, round int }

// NewHistory returns an empty history.
func NewHistory() *History {
	return &History{
		msgs: make([]llm.Message, 1), seqs: make([]int64, 1), size: make([]int, 1), places: make([]place, 1),
		at: map[int64]int{}, calls: map[string]int{}, results: map[string]int{},
	}
}

// Replay builds the history that the events form, in log order.
func Replay(events []Event) (*History, error) {
	h := NewHistory()
	for _, e := range Loop(events) {
		if err := h.Add(e); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// Add takes one event of the log: a message for the kinds that form the
// history, an edit applied, a model_request noted as the base of the next
// one. Other kinds change nothing.
func (h *History) Add(e Event) error {
	h.Where(e.Run, e.Round)
	switch e.Kind {
	case KindUserMessage:
		p, err := Decode[UserMessage](e)
		if err != nil {
			return err
		}
		h.AddUser(e.Seq, p)
	case KindModelResponse:
		p, err := Decode[ModelResponse](e)
		if err != nil {
			return err
		}
		h.AddResponse(e.Seq, p)
	case KindToolResult:
		p, err := Decode[ToolResult](e)
		if err != nil {
			return err
		}
		h.AddResult(e.Seq, p)
	case KindEdit:
		p, err := Decode[Edit](e)
		if err != nil {
			return err
		}
		return h.ApplyEdit(p)
	case KindModelRequest:
		// A summarising request is marked first: Requested keeps the new
		// observations for the request after it.
		if isSummaryRequest(e) {
			h.SummaryRequested(e.Seq)
		}
		h.Requested(e.Seq)
	case KindCompaction:
		p, err := Decode[Compaction](e)
		if err != nil {
			return err
		}
		return h.Compact(e.Seq, p)
	}
	return nil
}

// Where says the run and round of the event about to be added, which
// a compaction records of the messages it replaces.
func (h *History) Where(run, round int) { h.place = place{run, round} }

// summaryMark is how a compaction request's payload says its purpose, as
// encoding/json writes it: a cheap test before decoding the payload.
var summaryMark = []byte(`"purpose":"` + PurposeCompaction + `"`)

func isSummaryRequest(e Event) bool {
	if e.Kind != KindModelRequest || !bytes.Contains(e.Payload, summaryMark) {
		return false
	}
	var p struct {
		Purpose string `json:"purpose"`
	}
	return json.Unmarshal(e.Payload, &p) == nil && p.Purpose == PurposeCompaction
}

// AddUser adds the user message of event seq.
func (h *History) AddUser(seq int64, p UserMessage) {
	h.add(seq, llm.Message{Role: llm.RoleUser, Content: p.Text})
	h.task, h.taskSeq = p.Text, seq
}

// AddResponse adds the model's answer of event seq. An incomplete answer
// keeps its text but not its tool calls, which never ran and have no
// results; one with nothing left in it is not sent back at all.
func (h *History) AddResponse(seq int64, p ModelResponse) {
	if h.IsSummaryAnswer(p) {
		// A summary for a compaction: the compaction event brings it in.
		h.summarising = 0
		return
	}
	m := llm.Message{Role: llm.RoleAssistant, Content: p.Content, Thinking: p.Thinking}
	if !p.Incomplete {
		m.ToolCalls = p.ToolCalls
	}
	if m.Content == "" && m.Thinking == "" && len(m.ToolCalls) == 0 {
		// A request that failed before the model said anything left an
		// empty message: sending it back would only confuse.
		h.note(seq)
		return
	}
	i := h.add(seq, m)
	for _, c := range m.ToolCalls {
		h.calls[c.ID] = i
	}
}

// AddResult adds the observation of event seq.
func (h *History) AddResult(seq int64, p ToolResult) {
	i := h.add(seq, llm.Message{Role: llm.RoleTool, Content: p.Content, ToolCallID: p.CallID, ToolName: p.Name})
	h.results[p.CallID] = i
}

// ApplyEdit changes what the model will see: a message's content, a
// call's arguments, a result's content. Edits of the system prompt and
// options are the request's, not the history's.
func (h *History) ApplyEdit(ed Edit) error {
	var i int
	var ok bool
	switch ed.Target {
	case EditMessage:
		i, ok = h.at[ed.Seq]
	case EditResult:
		i, ok = h.results[ed.CallID]
	case EditArgs:
		i, ok = h.calls[ed.CallID]
		if ok {
			// Copy the calls: the answer's payload may be shared.
			calls := slices.Clone(h.msgs[i].ToolCalls)
			for j := range calls {
				if calls[j].ID == ed.CallID {
					calls[j].Args = ed.After
				}
			}
			h.msgs[i].ToolCalls = calls
			h.resize(i)
		}
		return nil
	default:
		return nil
	}
	if !ok {
		// An edit of something the model never saw (an empty answer)
		// changes nothing it sees.
		return nil
	}
	var s string
	if err := json.Unmarshal(ed.After, &s); err != nil {
		return fmt.Errorf("trace: %s edit: %w", ed.Target, err)
	}
	h.msgs[i].Content = s
	h.resize(i)
	if h.seqs[i] == h.taskSeq {
		h.task = s
	}
	return nil
}

// Requested notes that the model_request of event seq was recorded: the
// next request's history extends its own.
func (h *History) Requested(seq int64) {
	h.lastRequest, h.since = seq, nil
	if h.summarising != seq {
		h.fresh = nil
	}
}

// Delta is what the next request records of its history: the previous
// request, and the history events appended since.
func (h *History) Delta() (base int64, added []int64) {
	added = h.since
	if added == nil {
		added = []int64{}
	}
	return h.lastRequest, added
}

// Has reports whether event seq is a message the model sees.
func (h *History) Has(seq int64) bool {
	_, ok := h.at[seq]
	return ok
}

// ResultContent is what the model will see of the result for callID (its
// latest result, with edits), if it has one.
func (h *History) ResultContent(callID string) (string, bool) {
	i, ok := h.results[callID]
	if !ok {
		return "", false
	}
	return h.msgs[i].Content, true
}

// Len is the number of events that form the history, including answers
// left out because they were empty.
func (h *History) Len() int { return h.all }

// Messages is the request's message list: the system prompt (when there is
// one), then the conversation. It shares the history's memory: it is
// valid until the history next changes, and must not be modified.
func (h *History) Messages(system string) []llm.Message {
	if system == "" {
		return h.msgs[1:]
	}
	h.msgs[0] = llm.Message{Role: llm.RoleSystem, Content: system}
	return h.msgs
}

// Sourced is a history message with the event it comes from.
type Sourced struct {
	Seq int64
	llm.Message
}

// Sourced returns a copy of the conversation with each message's event,
// for showing a pending request.
func (h *History) Sourced() []Sourced {
	out := make([]Sourced, 0, len(h.msgs)-1)
	for i := 1; i < len(h.msgs); i++ {
		out = append(out, Sourced{Seq: h.seqs[i], Message: h.msgs[i]})
	}
	return out
}

func (h *History) add(seq int64, m llm.Message) int {
	h.note(seq)
	h.msgs = append(h.msgs, m)
	h.seqs = append(h.seqs, seq)
	h.size = append(h.size, 0)
	h.places = append(h.places, h.place)
	i := len(h.msgs) - 1
	h.at[seq] = i
	h.resize(i)
	return i
}

func (h *History) note(seq int64) {
	h.since = append(h.since, seq)
	h.fresh = append(h.fresh, seq)
	h.all++
}

func (h *History) resize(i int) {
	b, _ := json.Marshal(h.msgs[i])
	h.total += len(b) - h.size[i]
	h.size[i] = len(b)
}

// BuildRequest makes the request that a model_request describes, from the
// history as it stood when the request was recorded and the tools of its
// tool set. The loop calls it to make the request it sends, and the Raw
// view calls it to show that request again: one function, so they agree.
func BuildRequest(h *History, mr ModelRequest, tools []llm.ToolSpec) llm.Request {
	if mr.Purpose == PurposeCompaction {
		return summaryRequest(h, mr)
	}
	return llm.Request{
		Model:    mr.Model,
		Messages: h.Messages(mr.System),
		Tools:    tools,
		Options:  mr.Options,
		Think:    mr.Think,
		Truncate: mr.Truncate,
	}
}

// RequestHistory returns the seqs of the events that form the history of
// the model_request events[i], following its chain of bases back (or, in
// a log written before history deltas, its own list). events must be in
// seq order.
func RequestHistory(events []Event, i int) ([]int64, error) {
	var parts [][]int64
	for {
		mr, err := Decode[ModelRequest](events[i])
		if err != nil {
			return nil, err
		}
		if mr.HistorySeqs != nil {
			parts = append(parts, mr.HistorySeqs)
			break
		}
		parts = append(parts, mr.HistoryAdded)
		if mr.HistoryBase == 0 {
			break
		}
		j := sort.Search(i, func(j int) bool { return events[j].Seq >= mr.HistoryBase })
		if j == i || events[j].Seq != mr.HistoryBase || events[j].Kind != KindModelRequest {
			return nil, fmt.Errorf("trace: request %d extends the history of event %d, which is not an earlier model_request", events[i].Seq, mr.HistoryBase)
		}
		i = j
	}
	var out []int64
	for k := len(parts) - 1; k >= 0; k-- {
		out = append(out, parts[k]...)
	}
	return out, nil
}

// ErrHistoryMismatch is returned when a request's recorded history is not
// the history its log forms: the log was changed after it was written.
var ErrHistoryMismatch = errors.New("trace: the request's recorded history does not match its log")

// HistorySeqs lists, in order, the events that form the history.
func HistorySeqs(events []Event) []int64 {
	seqs := make([]int64, 0, len(events))
	// summarising is the compaction request waiting for its answer,
	// which is a summary, not a message.
	var summarising int64
	for _, e := range events {
		if isSummaryRequest(e) {
			summarising = e.Seq
		}
		if e.Kind == KindModelResponse && summarising != 0 {
			var p struct {
				RequestSeq int64 `json:"request_seq"`
			}
			if json.Unmarshal(e.Payload, &p) == nil && p.RequestSeq == summarising {
				summarising = 0
				continue
			}
		}
		if formsHistory(e.Kind) {
			seqs = append(seqs, e.Seq)
		}
	}
	return seqs
}

// formsHistory tells whether an event of this kind changes the messages:
// it becomes one, or (a compaction) replaces the oldest with a summary.
func formsHistory(k Kind) bool {
	return k == KindUserMessage || k == KindModelResponse || k == KindToolResult || k == KindCompaction
}

// Rebuild replays the log up to the model_request events[i] and returns
// the request it describes, given the tools of its tool set (nil for a
// log written before tool sets, whose request lists them itself). It
// checks that the history the request recorded is the one its log forms.
func Rebuild(events []Event, i int, tools []llm.ToolSpec) (llm.Request, error) {
	mr, err := Decode[ModelRequest](events[i])
	if err != nil {
		return llm.Request{}, err
	}
	named, err := RequestHistory(events, i)
	if err != nil {
		return llm.Request{}, err
	}
	if !slices.Equal(named, HistorySeqs(events[:i])) {
		return llm.Request{}, fmt.Errorf("%w (event %d)", ErrHistoryMismatch, events[i].Seq)
	}
	h, err := Replay(events[:i])
	if err != nil {
		return llm.Request{}, err
	}
	if mr.Tools != nil {
		tools = mr.Tools
	}
	return BuildRequest(h, mr, tools), nil
}

// Unanswered returns the tool calls of complete model messages that have no
// tool_result yet, in the order they were asked for. After a cancel or a
// crash each of them must be given a result so the history stays valid.
func Unanswered(events []Event) []llm.ToolCall {
	events = Loop(events)
	answered := map[string]bool{}
	for _, e := range events {
		if e.Kind == KindToolResult {
			if p, err := Decode[ToolResult](e); err == nil {
				answered[p.CallID] = true
			}
		}
	}
	var out []llm.ToolCall
	for _, e := range events {
		if e.Kind != KindModelResponse {
			continue
		}
		p, err := Decode[ModelResponse](e)
		if err != nil || p.Incomplete {
			continue
		}
		for _, c := range p.ToolCalls {
			if !answered[c.ID] {
				out = append(out, c)
			}
		}
	}
	return out
}
