// Package readiness checks, when a model is picked, whether it can work as
// Loupe's agent: whether its template takes tools, whether the system
// prompt and the tool schemas leave it room to work in its context, and,
// when asked, whether it really calls a tool when told to. Each check that
// fails says what to do.
package readiness

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Model is what the check asks of Ollama; *ollama.Client is one.
type Model interface {
	Show(ctx context.Context, name string) (ollama.ModelInfo, error)
	Chat(ctx context.Context, r llm.Request, onChunk func(llm.Chunk)) (llm.Response, error)
}

// Input is what a session on the model would send with every request.
type Input struct {
	Model string
	// System is the system prompt, as the workspace gets it.
	System string
	// Tools are the schemas the session would offer.
	Tools []llm.ToolSpec
	// Off are the MCP tools the session's choice leaves out: costed for the
	// tool picker (Report.Off), not counted.
	Off []llm.ToolSpec
	// NumCtxCap is the setting that caps num_ctx (0: no cap).
	NumCtxCap   int
	Temperature float64
	// RoundTrip sends the model one tiny request asking for a call.
	RoundTrip bool
	// Measured is what Ollama counted of the schemas, when it could be
	// asked (see ollama.SchemaCosts); the estimate stands in for the rest.
	Measured Measured
}

// Measured are Ollama's own counts of tool schemas.
type Measured struct {
	// Tools is each tool's cost by name (Tools and Off alike).
	Tools map[string]ollama.SchemaCost
	// Total is what Tools cost a request in all, the template's tool
	// header included.
	Total ollama.SchemaCost
}

// What a check found.
const (
	OK      = "ok"
	Warn    = "warn"
	Fail    = "fail"
	Skipped = "skipped"
)

// The checks, in the order they are listed.
const (
	CheckTools     = "tools"
	CheckFit       = "fit"
	CheckRoundTrip = "round_trip"
	CheckSchemas   = "schemas"
)

// Item is one line of the checklist.
type Item struct {
	Check  string `json:"check"`
	Status string `json:"status"`
	// Detail says what was found; Fix what to do about it ("" when all is
	// well).
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// ToolCost is one offered tool's schema, as Ollama counted it or as the
// estimate counts it.
type ToolCost struct {
	Name string `json:"name"`
	// Server is the MCP server the tool comes from ("" for a built-in).
	Server string `json:"server,omitempty"`
	Tokens int    `json:"tokens"`
	// Measured: Ollama counted Tokens; false: Loupe's estimate.
	Measured bool `json:"measured"`
}

// Reply is what the model answered the round trip: a real call ("call"),
// a call printed as text ("printed"), or neither ("none").
type Reply struct {
	Kind    string              `json:"kind"`
	Content string              `json:"content"`
	Calls   []llm.ToolCall      `json:"calls,omitempty"`
	Printed []agent.PrintedCall `json:"printed,omitempty"`
}

// Report is the checklist for one model.
type Report struct {
	Model         string   `json:"model"`
	Capabilities  []string `json:"capabilities"`
	ContextLength int      `json:"context_length"`
	// NumCtx is what a run would send: the model's context capped by the
	// setting.
	NumCtx int `json:"num_ctx"`
	// Fixed is the estimate of what every request sends before any
	// conversation: the system prompt and the tool schemas (SystemTokens,
	// ToolTokens, each tool in Tools).
	Fixed        int        `json:"fixed_tokens"`
	SystemTokens int        `json:"system_tokens"`
	ToolTokens   int        `json:"tool_tokens"`
	Tools        []ToolCost `json:"tools"`
	// ToolsMeasured: ToolTokens is Ollama's count, not the estimate.
	ToolsMeasured bool `json:"tools_measured"`
	// Off are the MCP tools switched off, with what each would cost.
	Off   []ToolCost `json:"off,omitempty"`
	Items []Item     `json:"items"`
	Reply *Reply     `json:"reply,omitempty"`
	// Ready: no check failed.
	Ready bool `json:"ready"`
}

// Thresholds of the fit check: what the system prompt and the schemas may
// take of num_ctx and still leave room to work. A file read or a command's
// output is often a few thousand tokens, and every round adds the answer
// and the results to the history.
const (
	roomyShare = 0.5  // at most this share: room to work
	tightShare = 0.85 // beyond this share: hardly any room
	// SchemaShare is what the tool schemas alone may take of num_ctx
	// before the check warns: beyond it, schemas crowd out the work.
	SchemaShare = 0.25
)

// Check runs the checklist for in.Model. An error means Ollama could not
// be asked at all (not running, the model not installed); a check that
// fails is an item of the report.
func Check(ctx context.Context, m Model, in Input) (Report, error) {
	info, err := m.Show(ctx, in.Model)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Model: in.Model, Capabilities: info.Capabilities, ContextLength: info.ContextLength,
		NumCtx: ollama.NumCtx(info.ContextLength, in.NumCtxCap)}
	specs := in.Tools
	rep.Items = append(rep.Items, toolsItem(info, len(specs)))
	if !info.SupportsTools() {
		// A run sends such a model no tools (see session's setUp).
		specs = nil
	}
	rep.fit(in.System, specs, in.Measured)
	rep.Off = costs(in.Off, in.Measured.Tools)
	rep.Items = append(rep.Items, rep.fitItem(len(specs)))
	rep.Items = append(rep.Items, rep.schemasItem())
	switch {
	case !in.RoundTrip:
		rep.Items = append(rep.Items, Item{Check: CheckRoundTrip, Status: Skipped,
			Detail: "Not tried: it sends the model one small request and waits for its answer."})
	case !info.SupportsTools():
		rep.Items = append(rep.Items, Item{Check: CheckRoundTrip, Status: Skipped,
			Detail: "Not tried: the model cannot be offered tools."})
	default:
		item, reply := roundTrip(ctx, m, in, rep.NumCtx, info.SupportsThinking())
		rep.Items = append(rep.Items, item)
		rep.Reply = reply
	}
	rep.Ready = true
	for _, it := range rep.Items {
		if it.Status == Fail {
			rep.Ready = false
		}
	}
	return rep, nil
}

func toolsItem(info ollama.ModelInfo, offered int) Item {
	if info.SupportsTools() {
		return Item{Check: CheckTools, Status: OK, Detail: fmt.Sprintf("%s has the tools capability: its template shows tool schemas and Ollama reads its calls.", info.Name)}
	}
	it := Item{Check: CheckTools, Status: Fail,
		Detail: fmt.Sprintf("%s has no tools capability (Ollama lists %s): its template cannot show tools, so Loupe would run it as plain chat, with no tool to read or change a file.", info.Name, listOr(info.Capabilities, "nothing")),
		Fix:    "Pick a model that lists \"tools\" (such as qwen3 or llama3.1), or use this one only to chat."}
	if offered == 0 {
		it.Status = Warn
		it.Detail = fmt.Sprintf("%s has no tools capability; no tools are offered either, so the session is plain chat.", info.Name)
		it.Fix = ""
	}
	return it
}

// fit estimates what every request sends before the conversation, with
// Loupe's own estimate (trace), part by part.
func (rep *Report) fit(system string, specs []llm.ToolSpec, measured Measured) {
	var msgs []llm.Message
	if system != "" {
		msgs = []llm.Message{{Role: llm.RoleSystem, Content: system}}
	}
	rep.Fixed = estimate(llm.Request{Messages: msgs, Tools: specs})
	rep.SystemTokens = estimate(llm.Request{Messages: msgs})
	rep.ToolTokens = rep.Fixed - rep.SystemTokens
	rep.Tools = append([]ToolCost{}, costs(specs, measured.Tools)...)
	if len(specs) > 0 && measured.Total.Measured {
		rep.ToolTokens, rep.ToolsMeasured = measured.Total.Tokens, true
		rep.Fixed = rep.SystemTokens + rep.ToolTokens
	}
}

// costs are what each schema adds to a request: Ollama's count where
// measured has it, else the estimate.
func costs(specs []llm.ToolSpec, measured map[string]ollama.SchemaCost) []ToolCost {
	empty := estimate(llm.Request{})
	var out []ToolCost
	for _, s := range specs {
		tc := ToolCost{Name: s.Name, Server: serverOf(s.Name), Tokens: estimate(llm.Request{Tools: []llm.ToolSpec{s}}) - empty}
		if m, ok := measured[s.Name]; ok && m.Measured {
			tc.Tokens, tc.Measured = m.Tokens, true
		}
		out = append(out, tc)
	}
	return out
}

// tokensWord says a count as measured ("N tokens, measured by Ollama")
// or estimated ("about N tokens").
func tokensWord(n int, measured bool) string {
	if measured {
		return fmt.Sprintf("%d tokens, measured by Ollama", n)
	}
	return fmt.Sprintf("about %d tokens", n)
}

func (rep *Report) fitItem(sent int) Item {
	share := float64(rep.Fixed) / float64(rep.NumCtx)
	room := rep.NumCtx - rep.Fixed
	schemas := fmt.Sprintf("%d tool schemas", sent)
	if sent == 1 {
		schemas = "1 tool schema"
	}
	what := fmt.Sprintf("The system prompt (about %d tokens) and %s (%s) take about %d of num_ctx %d (%.0f%%), leaving about %d for the conversation.",
		rep.SystemTokens, schemas, tokensWord(rep.ToolTokens, rep.ToolsMeasured), rep.Fixed, rep.NumCtx, share*100, max(room, 0))
	it := Item{Check: CheckFit, Status: OK, Detail: what}
	if share <= roomyShare {
		return it
	}
	var fixes []string
	if sent > 0 {
		biggest := rep.Tools[0]
		for _, t := range rep.Tools {
			if t.Tokens > biggest.Tokens {
				biggest = t
			}
		}
		fixes = append(fixes, fmt.Sprintf("offer fewer tools (the largest schema is %s, %s)", biggest.Name, tokensWord(biggest.Tokens, biggest.Measured)))
	}
	if rep.ContextLength == 0 || rep.NumCtx < rep.ContextLength {
		fixes = append(fixes, fmt.Sprintf("raise the num_ctx cap in Settings (now %d; the model allows %s), if this machine's memory holds it", rep.NumCtx, orUnknown(rep.ContextLength)))
	}
	fixes = append(fixes, "shorten the system prompt in Settings", "pick a model with a longer context")
	it.Fix = capitalize(strings.Join(fixes, "; ") + ".")
	if share <= tightShare {
		it.Status = Warn
		it.Detail += " Little room: a file read or two will fill it."
	} else {
		it.Status = Fail
		it.Detail += " Hardly any room: the first file read or command output will not fit."
	}
	return it
}

// probeTool is the harmless tool the round trip offers: listing the
// workspace's top folder (nothing is run either way).
const probeTool = "list_dir"

var probeSpec = llm.ToolSpec{
	Name:        probeTool,
	Description: "List the files and folders in a directory of the workspace.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The directory, relative to the workspace root"}},"required":["path"]}`),
}

// roundTrip asks the model, in one request with one tool, to call it, and
// says what came back. Nothing the model asks for is run.
func roundTrip(ctx context.Context, m Model, in Input, numCtx int, thinks bool) (Item, *Reply) {
	req := llm.Request{
		Model: in.Model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are a coding agent that works by calling tools."},
			{Role: llm.RoleUser, Content: `Call the list_dir tool with the path "." to see the files here.`},
		},
		Tools:   []llm.ToolSpec{probeSpec},
		Options: llm.Options{NumCtx: numCtx, Temperature: in.Temperature},
	}
	f := false
	req.Truncate = &f
	if thinks {
		t := true
		req.Think = &t
	}
	resp, err := m.Chat(ctx, req, nil)
	if err != nil {
		return Item{Check: CheckRoundTrip, Status: Fail, Detail: "The request failed: " + err.Error(),
			Fix: "Fix what the error says, then check again."}, nil
	}
	reply := &Reply{Content: resp.Message.Content, Calls: resp.Message.ToolCalls}
	if len(resp.Message.ToolCalls) > 0 {
		reply.Kind = "call"
		c := resp.Message.ToolCalls[0]
		return Item{Check: CheckRoundTrip, Status: OK,
			Detail: fmt.Sprintf("Asked to call %s, the model made a real tool call: %s %s (not run).", probeTool, c.Name, c.Args)}, reply
	}
	if printed := agent.PrintedCalls(resp.Message.Content, []string{probeTool}); len(printed) > 0 {
		reply.Kind, reply.Printed = "printed", printed
		return Item{Check: CheckRoundTrip, Status: Warn,
			Detail: fmt.Sprintf("The model printed the call as text (%s) instead of making it: Ollama did not read it as a tool call.", printed[0].Form),
			Fix:    "Keep \"Recover calls printed as text\" on in Settings (Loupe then runs such calls, marked on their card), or pick a model whose template Ollama reads calls from."}, reply
	}
	reply.Kind = "none"
	said := strings.TrimSpace(resp.Message.Content)
	if said == "" {
		said = "nothing"
	} else {
		if r := []rune(said); len(r) > 200 {
			said = string(r[:200]) + "…"
		}
		said = fmt.Sprintf("%q", said)
	}
	return Item{Check: CheckRoundTrip, Status: Fail,
		Detail: fmt.Sprintf("Asked to call %s, the model made no call and wrote %s.", probeTool, said),
		Fix:    "Pick another model (a larger one follows tool instructions better), or check again: one answer is one sample."}, reply
}

func listOr(xs []string, none string) string {
	if len(xs) == 0 {
		return none
	}
	return strings.Join(xs, ", ")
}

func orUnknown(n int) string {
	if n == 0 {
		return "an unknown length"
	}
	return fmt.Sprint(n)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// estimate is Loupe's token estimate of a request at the default rate (a
// model not yet measured), the one the context meter starts from.
func estimate(r llm.Request) int { return trace.DefaultRate().Tokens(trace.PromptBytesOf(r)) }
