// Package conformance is one test suite for backend/ollama's Client against
// any Ollama server: the fake in ollamatest (fake_test.go here) and the real
// pinned Ollama serving scripted models (testkit/realscenarios, run by
// scripts/real-ollama/test.sh). Both must meet the same expectations, so the
// fake cannot drift from what the real server does without a test saying so.
package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
)

// Scenarios that send a chat request. Setup.Before gets one of these before
// the request, so a scripted server can queue the answer it needs.
const (
	// ScenarioText: a plain streamed answer of a few deltas.
	ScenarioText = "text"
	// ScenarioCancel: an answer of several deltas, cancelled in the
	// callback of its first.
	ScenarioCancel = "cancel"
	// ScenarioToolCall: the model calls the tool "get_time" (no
	// arguments needed) and finishes.
	ScenarioToolCall = "tool_call"
	// ScenarioTooLong: a prompt several times longer than a small
	// num_ctx. With truncate false the server refuses it before any
	// answer; with truncate unset it cuts it and answers.
	ScenarioTooLong = "too_long"
)

// Setup says what server the suite runs against.
type Setup struct {
	Client *ollama.Client
	// Model is an installed chat model.
	Model string
	// Before, if set, is called before each chat scenario, so a scripted
	// server can prepare the answer it needs: the fake queues a reply; the
	// real server with scripted models creates the model again from the
	// scenario's script. Nil for a real server with an ordinary model.
	Before func(t *testing.T, scenario string)
	// ToolCalls runs ScenarioToolCall. Leave it off for a model that cannot
	// be relied on to call a tool when asked.
	ToolCalls bool
	// UnreachablePull is a model name whose registry the server cannot
	// reach, as on a machine without a network: the fake set offline, or
	// for the real server a registry on a loopback port where nothing
	// listens. "" leaves that case out.
	UnreachablePull string
}

// Run runs the suite as subtests of t.
func Run(t *testing.T, s Setup) {
	before := func(t *testing.T, scenario string) {
		if s.Before != nil {
			s.Before(t, scenario)
		}
	}
	ctx := context.Background()
	var info ollama.ModelInfo

	t.Run("version", func(t *testing.T) {
		v, err := s.Client.Version(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if v == "" || !strings.ContainsAny(v, "0123456789") {
			t.Errorf("version %q does not look like one", v)
		}
	})

	t.Run("models", func(t *testing.T) {
		models, err := s.Client.Models(ctx)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(models, func(m ollama.ModelInfo) bool { return sameModel(m.Name, s.Model) })
		if i < 0 {
			t.Fatalf("model %q not listed in %+v", s.Model, models)
		}
		info = models[i]
		if info.Size <= 0 || info.Family == "" || info.ContextLength <= 0 || info.ModifiedAt.IsZero() {
			t.Errorf("listed model lacks details: %+v", info)
		}
		if !slices.Contains(info.Capabilities, "completion") {
			t.Errorf("capabilities %v lack completion", info.Capabilities)
		}
		for j := 1; j < len(models); j++ {
			if models[j].ModifiedAt.After(models[j-1].ModifiedAt) {
				t.Errorf("models not most recently modified first: %v before %v", models[j-1].Name, models[j].Name)
			}
		}
	})

	t.Run("show", func(t *testing.T) {
		m, err := s.Client.Show(ctx, s.Model)
		if err != nil {
			t.Fatal(err)
		}
		if info.Name != "" && (m.Family != info.Family || m.ContextLength != info.ContextLength ||
			!slices.Equal(m.Capabilities, info.Capabilities)) {
			t.Errorf("Show = %+v, Models said %+v", m, info)
		}
	})

	t.Run("show missing model", func(t *testing.T) {
		_, err := s.Client.Show(ctx, "loupe-missing-model:0b")
		var nf *ollama.ModelNotFoundError
		if !errors.As(err, &nf) {
			t.Errorf("err = %v, want ModelNotFoundError", err)
		}
	})

	t.Run("delete missing model", func(t *testing.T) {
		err := s.Client.Delete(ctx, "loupe-missing-model:0b")
		var nf *ollama.ModelNotFoundError
		if !errors.As(err, &nf) {
			t.Errorf("err = %v, want ModelNotFoundError", err)
		}
	})

	t.Run("pull of a name that is not one", func(t *testing.T) {
		err := s.Client.Pull(ctx, "a/b/c/d", nil)
		if err == nil || !strings.Contains(err.Error(), "not a model name") {
			t.Errorf("err = %v, want the name refused", err)
		}
	})

	if s.UnreachablePull != "" {
		t.Run("pull without the registry", func(t *testing.T) {
			var steps []string
			err := s.Client.Pull(ctx, s.UnreachablePull, func(p ollama.PullProgress) { steps = append(steps, p.Status) })
			var ne *ollama.PullNetworkError
			if !errors.As(err, &ne) || !strings.HasPrefix(ne.Message, "pull model manifest: ") {
				t.Fatalf("err = %T %v, want a PullNetworkError in Ollama's words", err, err)
			}
			if !slices.Equal(steps, []string{"pulling manifest"}) {
				t.Errorf("progress before the failure: %v", steps)
			}
			models, err := s.Client.Models(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(models, func(m ollama.ModelInfo) bool { return sameModel(m.Name, s.UnreachablePull) }) {
				t.Errorf("the failed pull listed %s", s.UnreachablePull)
			}
		})
	}

	t.Run("chat missing model", func(t *testing.T) {
		r := request(s.Model, info, "hello")
		r.Model = "loupe-missing-model:0b"
		_, err := s.Client.Chat(ctx, r, nil)
		var nf *ollama.ModelNotFoundError
		if !errors.As(err, &nf) || nf.Model != r.Model {
			t.Errorf("err = %v, want ModelNotFoundError", err)
		}
	})

	t.Run("chat streams", func(t *testing.T) {
		before(t, ScenarioText)
		var deltas []llm.Chunk
		resp, err := s.Client.Chat(ctx, request(s.Model, info, "Say hello in five words."), func(c llm.Chunk) {
			deltas = append(deltas, c)
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(deltas) == 0 {
			t.Fatal("no deltas streamed")
		}
		var content, thinking strings.Builder
		for _, d := range deltas {
			content.WriteString(d.Content)
			thinking.WriteString(d.Thinking)
		}
		if resp.Message.Content != content.String() || resp.Message.Thinking != thinking.String() {
			t.Errorf("message %+v is not the deltas joined (%q, %q)", resp.Message, content.String(), thinking.String())
		}
		if resp.Message.Role != llm.RoleAssistant || !resp.Done || (resp.DoneReason != "stop" && resp.DoneReason != "length") {
			t.Errorf("role %q done %v reason %q", resp.Message.Role, resp.Done, resp.DoneReason)
		}
		if resp.Chunks < len(deltas)+1 {
			t.Errorf("Chunks = %d for %d deltas and a done line", resp.Chunks, len(deltas))
		}
		m := resp.Metrics
		if m.PromptEvalCount <= 0 || m.EvalCount <= 0 || m.EvalDuration <= 0 || m.TotalDuration < m.EvalDuration || m.TimeToFirstToken <= 0 {
			t.Errorf("metrics = %+v", m)
		}
		var raw struct {
			Model     string    `json:"model"`
			CreatedAt time.Time `json:"created_at"`
			Message   struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"message"`
			Done       bool   `json:"done"`
			DoneReason string `json:"done_reason"`
			EvalCount  int    `json:"eval_count"`
		}
		if err := json.Unmarshal(resp.Raw, &raw); err != nil {
			t.Fatalf("Raw: %v: %s", err, resp.Raw)
		}
		if raw.Model != s.Model || raw.CreatedAt.IsZero() || raw.Message.Content != resp.Message.Content ||
			!raw.Done || raw.DoneReason != resp.DoneReason || raw.EvalCount != m.EvalCount {
			t.Errorf("Raw = %s", resp.Raw)
		}
	})

	t.Run("chat cancelled", func(t *testing.T) {
		before(t, ScenarioCancel)
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		resp, err := s.Client.Chat(cctx, request(s.Model, info, "Count from 1 to 100, one number per line."), func(llm.Chunk) { cancel() })
		// The cancel happens in the first delta's callback, so however fast
		// the server is, Chat takes no line after it and must report it.
		if err == nil {
			t.Fatalf("no error after cancel; response %+v", resp)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if resp.Done || resp.Chunks == 0 || resp.Message.Content+resp.Message.Thinking == "" {
			t.Errorf("partial answer = done %v chunks %d %+v", resp.Done, resp.Chunks, resp.Message)
		}
	})

	t.Run("prompt over num_ctx", func(t *testing.T) {
		before(t, ScenarioTooLong)
		long := strings.Repeat("All work and no play makes Jack a dull boy. ", 200) // ~9 KB
		r := request(s.Model, info, long)
		r.Options.NumCtx = 512
		no := false
		r.Truncate = &no
		resp, err := s.Client.Chat(ctx, r, nil)
		var tl *ollama.PromptTooLongError
		if !errors.As(err, &tl) || !errors.Is(err, llm.ErrPromptTooLong) {
			t.Fatalf("truncate false: err = %v (response %+v), want PromptTooLongError", err, resp)
		}
		if tl.Message != "the input length exceeds the context length" {
			t.Errorf("Ollama's words = %q", tl.Message)
		}
		if resp.Chunks != 0 {
			t.Errorf("a refused prompt streamed %d lines", resp.Chunks)
		}
		// Ollama's default cuts the same prompt without a word: it answers,
		// and reports reading at most num_ctx tokens of it.
		before(t, ScenarioTooLong)
		r.Truncate = nil
		resp, err = s.Client.Chat(ctx, r, nil)
		if err != nil {
			t.Fatalf("truncate unset: %v", err)
		}
		if n := resp.Metrics.PromptEvalCount; n <= 0 || n > r.Options.NumCtx {
			t.Errorf("truncate unset: prompt_eval_count %d, want the cut prompt (at most num_ctx %d)", n, r.Options.NumCtx)
		}
	})

	t.Run("prompt count includes the cache", func(t *testing.T) {
		// The same prompt twice: the second is read from the KV cache, yet
		// prompt_eval_count is the whole prompt both times (Ollama v0.17.4
		// counts cached tokens; the context meter relies on it).
		var counts [2]int
		for i := range counts {
			before(t, ScenarioText)
			resp, err := s.Client.Chat(ctx, request(s.Model, info, "Say hello in five words, please, and nothing else at all."), nil)
			if err != nil {
				t.Fatal(err)
			}
			counts[i] = resp.Metrics.PromptEvalCount
		}
		if counts[0] <= 1 || counts[1] != counts[0] {
			t.Errorf("prompt_eval_count %d then %d for the same prompt, want the same whole count twice", counts[0], counts[1])
		}
	})

	t.Run("loaded context", func(t *testing.T) {
		// /api/ps lists the model a chat loaded, with the context Ollama
		// allocated for it: the num_ctx asked for, or the model's own
		// context when the request asks for more.
		for _, c := range []struct {
			numCtx, want int
		}{
			{2048, 2048},
			{2 * info.ContextLength, info.ContextLength},
		} {
			before(t, ScenarioText)
			r := request(s.Model, info, "Say hello in five words.")
			r.Options.NumCtx = c.numCtx
			if _, err := s.Client.Chat(ctx, r, nil); err != nil {
				t.Fatal(err)
			}
			// The real server can list the runner it is replacing for a
			// moment after the answer: ask again for up to two seconds.
			var loaded []ollama.Loaded
			for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				var err error
				if loaded, err = s.Client.Running(ctx); err != nil {
					t.Fatal(err)
				}
				if j := slices.IndexFunc(loaded, func(m ollama.Loaded) bool { return sameModel(m.Name, s.Model) }); (j >= 0 && loaded[j].ContextLength == c.want) || time.Now().After(deadline) {
					break
				}
			}
			i := slices.IndexFunc(loaded, func(m ollama.Loaded) bool { return sameModel(m.Name, s.Model) })
			if i < 0 {
				t.Fatalf("num_ctx %d: model %q not in /api/ps: %+v", c.numCtx, s.Model, loaded)
			}
			m := loaded[i]
			if m.ContextLength != c.want || m.Size <= 0 || !m.ExpiresAt.After(time.Now()) {
				t.Errorf("num_ctx %d: /api/ps lists %+v, want context_length %d, a size and an expiry ahead", c.numCtx, m, c.want)
			}
			n, err := s.Client.LoadedContext(ctx, s.Model)
			if err != nil || n != c.want {
				t.Errorf("num_ctx %d: LoadedContext = %d, %v; want %d", c.numCtx, n, err, c.want)
			}
		}
		if n, err := s.Client.LoadedContext(ctx, "loupe-missing-model:0b"); err != nil || n != 0 {
			t.Errorf("LoadedContext of a model not loaded = %d, %v; want 0, nil", n, err)
		}
	})

	t.Run("render only", func(t *testing.T) {
		// _debug_render_only: the prompt the model's template makes of a
		// conversation with a call and its result, and no answer. No
		// scenario is prepared: nothing is generated.
		r := request(s.Model, info, "What time is it?")
		r.Tools = []llm.ToolSpec{{Name: "get_time", Description: "Returns the current time.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"zone":{"type":"string"}}}`)}}
		r.Messages = append(r.Messages,
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "get_time", Args: json.RawMessage(`{"zone":"UTC"}`)}}},
			llm.Message{Role: llm.RoleTool, Content: "12:00 UTC", ToolCallID: "call_1", ToolName: "get_time"})
		got, err := s.Client.Render(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"What time is it?", "get_time", "12:00 UTC"} {
			if !strings.Contains(got.Text, want) {
				t.Errorf("rendered prompt lacks %q:\n%s", want, got.Text)
			}
		}
		if got.At.IsZero() {
			t.Error("no created_at")
		}
		r.Model = "loupe-missing-model:0b"
		var nf *ollama.ModelNotFoundError
		if _, err := s.Client.Render(ctx, r); !errors.As(err, &nf) {
			t.Errorf("missing model: %v", err)
		}
	})

	if s.ToolCalls {
		t.Run("tool call", func(t *testing.T) {
			before(t, ScenarioToolCall)
			r := request(s.Model, info, "What time is it? Use the get_time tool.")
			r.Tools = []llm.ToolSpec{{
				Name:        "get_time",
				Description: "Returns the current time.",
				Parameters:  json.RawMessage(`{"type":"object","properties":{"zone":{"type":"string","description":"IANA time zone"}}}`),
			}}
			resp, err := s.Client.Chat(ctx, r, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !resp.Complete() || len(resp.Message.ToolCalls) == 0 {
				t.Fatalf("no complete tool call: %+v", resp)
			}
			for i, c := range resp.Message.ToolCalls {
				var args map[string]any
				if c.ID == "" || c.Name != "get_time" || json.Unmarshal(c.Args, &args) != nil {
					t.Errorf("call %d = %+v", i, c)
				}
			}
		})
	}
}

func request(model string, info ollama.ModelInfo, text string) llm.Request {
	return llm.Request{
		Model:    model,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: text}},
		Options:  llm.Options{NumCtx: ollama.NumCtx(info.ContextLength, 2048), Temperature: 0},
	}
}

// sameModel compares names the way Ollama does: "x" is "x:latest".
func sameModel(a, b string) bool {
	tag := func(s string) string {
		if i := strings.LastIndex(s, ":"); i < 0 || strings.Contains(s[i:], "/") {
			return s + ":latest"
		}
		return s
	}
	return strings.EqualFold(tag(a), tag(b))
}
