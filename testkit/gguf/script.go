package gguf

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// How a scripted model works.
//
// The network is a bigram table: attention and feed-forward outputs are zero,
// so the hidden state at the last position is just that token's embedding, and
// the output matrix maps it to one next token with an overwhelming logit.
// Sampling settings (temperature, top_k, penalties) cannot change the pick.
//
// Embeddings are one-hot over a few "states" (dimensions of the hidden vector):
//   - state 0 leads to <|im_end|> (end of message); every token not listed
//     below is in state 0, so an unexpected prompt gives an empty reply;
//   - each selector token <|step_K|> has a state that leads to the first piece
//     of step K;
//   - each piece that is not the last of its step has a state leading to the
//     next piece (a Repeat piece leads to itself).
//
// The template ends every prompt with the selector of the turn being asked
// for: K is the number of assistant messages already in the conversation, so
// step K is what the model says at its (K+1)-th turn, whatever the content of
// the messages. Pieces are single tokens whose text is a whole string, so each
// piece arrives as one streamed chunk.

// Call is one tool call in a scripted assistant message.
type Call struct {
	Name string
	Args string // a JSON object; "" means {}
}

// Step is what the model says at one assistant turn. Pieces are emitted in this
// order: Think, Answer, then each Call; one streamed chunk each.
type Step struct {
	// Think is reasoning text, emitted as <think>…</think>. With a Thinking
	// script Ollama returns it in message.thinking; without, it stays in content.
	Think string
	// Answer is the message content: the final answer, or text said before Call.
	Answer string
	// Call lists tool calls made in this message, in order.
	Call []Call
	// Raw, when set, replaces Think, Answer and Call: the exact text pieces to
	// emit, one token (one streamed chunk) each. Use it for half-written tool
	// calls, malformed JSON or an answer streamed in several chunks.
	Raw []string
	// Repeat, when set, is emitted after everything else, again and again, until
	// num_predict is reached (done_reason "length"), the client goes away or the
	// server dies. Use it for long streams to cancel or cut.
	Repeat string
}

// Script is a scripted model: one Step per assistant turn, plus the template's
// features.
type Script struct {
	Steps []Step
	// Thinking gives the template a <think> section, so /api/show lists the
	// "thinking" capability and Ollama parses <think>…</think> into
	// message.thinking (think defaults to true for such models; with
	// "think": false the text stays in content, as some real models do).
	Thinking bool
	// NoTools leaves tools out of the template: /api/show lacks the "tools"
	// capability and Ollama refuses requests that carry tools.
	NoTools bool
	// NumCtx is the num_ctx parameter the model is created with; 0 means
	// DefaultNumCtx. One token is about one byte of prompt text.
	NumCtx int
	// CompactTools makes the template list only the names of the request's
	// tools, one a line, instead of each tool's JSON schema as Qwen's template
	// does. The prompt then costs a few bytes per tool instead of about 1 KB:
	// this model evaluates prompts slowly on a CPU (about 40 s for 8,000
	// tokens on 2 cores), and Loupe's seven built-in tools are about 7 KB of
	// schema. Nothing else changes: the template still uses .Tools (so
	// /api/show lists "tools"), Ollama still matches calls against the
	// request's full schemas, and the model ignores its prompt anyway.
	// Ignored with NoTools.
	CompactTools bool
	// Summary, when set, is what the model answers a request that offers
	// no tools (Loupe's summarising request when it compacts): one piece.
	// Ignored with NoTools, whose every request offers none.
	Summary string
	// AfterCompaction are the steps of a conversation that holds a
	// compaction summary (a user message starting "[Loupe compacted"),
	// chosen like Steps by the assistant messages in it: a compaction
	// makes that count drop, and these say what the model does then.
	AfterCompaction []Step
	// SubAgent are the steps of a sub-agent's conversation (its system
	// prompt starts as SubAgentSystem does: "You are a sub-agent"), chosen
	// like Steps by the assistant messages in it: a sub-agent's history
	// starts afresh, so without these it would be asked Steps from the
	// first again.
	SubAgent []Step
	// ContextLength is the context the model says it was trained for
	// (llama.context_length, what /api/show reports and Ollama caps num_ctx
	// at); 0 means 32768.
	ContextLength int
}

// DefaultNumCtx leaves room for tool schemas and tool results, which cost about
// a token per byte with this vocabulary.
const DefaultNumCtx = 16384

// OverText is what the model answers when asked for a turn past its last step.
const OverText = "[scripted model: the script has no more steps]"

// Model dimensions (see the package comment).
const (
	hiddenSize    = 64
	headCount     = 4
	ffnSize       = 128
	contextLength = 32768
	// logitWeight times sqrt(hiddenSize) (what RMS norm scales a one-hot to) is
	// the winning logit; every other logit is 0.
	logitWeight = 100
)

// Fixed tokens at the start of the vocabulary.
const (
	tokUnk     = 0
	tokBOS     = 1
	tokEOS     = 2
	tokByte0   = 3 // <0x00> … <0xFF>
	tokIMStart = tokByte0 + 256
	tokIMEnd   = tokIMStart + 1 // end of message: the EOS id Ollama stops on
	tokFirst   = tokIMEnd + 1   // selectors, then pieces
)

// Token types, as llama.cpp and Ollama read tokenizer.ggml.token_type.
const (
	typeUnknown     = 2
	typeControl     = 3
	typeUserDefined = 4
	typeByte        = 6
)

// Selector returns the control token the template ends the prompt with when
// asking for step k.
func Selector(k int) string { return fmt.Sprintf("<|step_%d|>", k) }

// AfterSelector is Selector for AfterCompaction's steps.
func AfterSelector(k int) string { return fmt.Sprintf("<|after_%d|>", k) }

// SubSelector is Selector for SubAgent's steps.
func SubSelector(k int) string { return fmt.Sprintf("<|sub_%d|>", k) }

// SubAgentMark is how a sub-agent's system prompt starts (the engine's
// agent.SubAgentSystem): what tells its requests apart.
const SubAgentMark = "You are a sub-agent"

const (
	selectorOver    = "<|step_end|>"
	selectorSummary = "<|step_summary|>"
)

// Pieces returns the text pieces step s emits, in order, one token each
// (Repeat excluded).
func (s Step) Pieces() ([]string, error) {
	if len(s.Raw) > 0 {
		if s.Think != "" || s.Answer != "" || len(s.Call) > 0 {
			return nil, errors.New("a step's Raw replaces Think, Answer and Call: set only one kind")
		}
		for i, p := range s.Raw {
			if p == "" {
				return nil, fmt.Errorf("piece %d of the step's Raw is empty", i)
			}
		}
		return s.Raw, nil
	}
	var pieces []string
	if s.Think != "" {
		pieces = append(pieces, "<think>\n"+s.Think+"\n</think>\n\n")
	}
	if s.Answer != "" {
		// Its own chunk: Ollama v0.17 drops tool calls that arrive in the same
		// chunk as text before them.
		pieces = append(pieces, s.Answer)
	}
	for i, c := range s.Call {
		text, err := c.text()
		if err != nil {
			return nil, fmt.Errorf("call %d (%s): %w", i, c.Name, err)
		}
		if i > 0 {
			text = "\n" + text
		}
		pieces = append(pieces, text)
	}
	return pieces, nil
}

// text is the call as a Qwen-style model writes it.
func (c Call) text() (string, error) {
	if c.Name == "" {
		return "", errors.New("no name")
	}
	args := strings.TrimSpace(c.Args)
	if args == "" {
		args = "{}"
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(args), &obj); err != nil {
		return "", fmt.Errorf("the call's Args is not a JSON object: %w", err)
	}
	name, _ := json.Marshal(c.Name)
	return fmt.Sprintf("<tool_call>\n{\"name\": %s, \"arguments\": %s}\n</tool_call>", name, args), nil
}

// vocab is the model built from a script: tokens and, for each token, the token
// that follows it (tokIMEnd when it is in state 0).
type vocab struct {
	tokens []string
	types  []int32
	next   map[int]int
}

func (v *vocab) add(text string, typ int32) int {
	v.tokens = append(v.tokens, text)
	v.types = append(v.types, typ)
	return len(v.tokens) - 1
}

func (s Script) build() (*vocab, error) {
	v := &vocab{next: map[int]int{}}
	v.add("<unk>", typeUnknown)
	v.add("<s>", typeControl)
	v.add("</s>", typeControl)
	for b := range 256 {
		v.add(fmt.Sprintf("<0x%02X>", b), typeByte)
	}
	v.add("<|im_start|>", typeControl)
	v.add("<|im_end|>", typeControl)

	selectors := make([]int, len(s.Steps))
	for k := range s.Steps {
		selectors[k] = v.add(Selector(k), typeControl)
	}
	after := make([]int, len(s.AfterCompaction))
	for k := range s.AfterCompaction {
		after[k] = v.add(AfterSelector(k), typeControl)
	}
	subs := make([]int, len(s.SubAgent))
	for k := range s.SubAgent {
		subs[k] = v.add(SubSelector(k), typeControl)
	}
	over := v.add(selectorOver, typeControl)
	summary := v.add(selectorSummary, typeControl)

	byText := map[string]int{}
	for id, text := range v.tokens {
		byText[text] = id
	}
	piece := func(text string) (int, error) {
		if id, ok := byText[text]; ok {
			if v.types[id] != typeUserDefined {
				return 0, fmt.Errorf("piece %q is a reserved token of the vocabulary", text)
			}
			return id, nil
		}
		id := v.add(text, typeUserDefined)
		byText[text] = id
		return id, nil
	}
	// link says that token from is followed by token to. A piece used in two
	// places must be followed by the same token in both.
	link := func(from, to int) error {
		if prev, ok := v.next[from]; ok && prev != to {
			return fmt.Errorf("piece %q is followed by %q in one place and %q in another; make the texts differ",
				v.tokens[from], v.tokens[prev], v.tokens[to])
		}
		v.next[from] = to
		return nil
	}

	type step struct {
		Step
		sel  int
		name string
	}
	var all []step
	for k, st := range s.Steps {
		all = append(all, step{st, selectors[k], fmt.Sprintf("step %d", k)})
	}
	for k, st := range s.AfterCompaction {
		all = append(all, step{st, after[k], fmt.Sprintf("step %d after compaction", k)})
	}
	for k, st := range s.SubAgent {
		all = append(all, step{st, subs[k], fmt.Sprintf("step %d of the sub-agent", k)})
	}
	if s.Summary != "" {
		all = append(all, step{Step{Answer: s.Summary}, summary, "the summary"})
	}
	for _, st := range all {
		k := st.name
		pieces, err := st.Pieces()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		prev := st.sel
		for _, p := range pieces {
			id, err := piece(p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			if err := link(prev, id); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			prev = id
		}
		if st.Repeat != "" {
			id, err := piece(st.Repeat)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			if err := link(prev, id); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			if err := link(id, id); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
		} else if prev != st.sel {
			if err := link(prev, tokIMEnd); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
		}
	}
	overText, err := piece(OverText)
	if err != nil {
		return nil, err
	}
	if err := link(over, overText); err != nil {
		return nil, err
	}
	if err := link(overText, tokIMEnd); err != nil {
		return nil, err
	}

	// Links to <|im_end|> are state 0; every other link needs its own state.
	states := 1
	for _, to := range v.next {
		if to != tokIMEnd {
			states++
		}
	}
	if states > hiddenSize {
		return nil, fmt.Errorf("script needs %d states but the model has %d: use fewer steps or pieces", states, hiddenSize)
	}
	return v, nil
}

// Write writes the script's model as a GGUF v3 file.
func Write(w io.Writer, s Script) error {
	v, err := s.build()
	if err != nil {
		return fmt.Errorf("gguf: %w", err)
	}
	n := len(v.tokens)

	// Assign states: 0 for "ends the message", then one per other link, in
	// token order so the file is the same for the same script.
	state := make([]int, n)
	next := 1
	for id := range n {
		if to, ok := v.next[id]; ok && to != tokIMEnd {
			state[id] = next
			next++
		}
	}
	embd := make([]float32, n*hiddenSize) // [hidden, vocab]
	out := make([]float32, n*hiddenSize)  // [hidden, vocab]: row = next token
	for id := range n {
		embd[id*hiddenSize+state[id]] = 1
		if to, ok := v.next[id]; ok && to != tokIMEnd {
			out[to*hiddenSize+state[id]] = logitWeight
		}
	}
	out[tokIMEnd*hiddenSize+0] = logitWeight

	ones := func(n int) []float32 {
		f := make([]float32, n)
		for i := range f {
			f[i] = 1
		}
		return f
	}
	dims := func(d ...uint64) []uint64 { return d }
	const h, f = hiddenSize, ffnSize
	tensors := []tensor{
		{"token_embd.weight", dims(h, uint64(n)), embd},
		{"output_norm.weight", dims(h), ones(h)},
		{"output.weight", dims(h, uint64(n)), out},
		{"blk.0.attn_norm.weight", dims(h), ones(h)},
		{"blk.0.attn_q.weight", dims(h, h), make([]float32, h*h)},
		{"blk.0.attn_k.weight", dims(h, h), make([]float32, h*h)},
		{"blk.0.attn_v.weight", dims(h, h), make([]float32, h*h)},
		{"blk.0.attn_output.weight", dims(h, h), make([]float32, h*h)},
		{"blk.0.ffn_norm.weight", dims(h), ones(h)},
		{"blk.0.ffn_gate.weight", dims(h, f), make([]float32, h*f)},
		{"blk.0.ffn_up.weight", dims(h, f), make([]float32, h*f)},
		{"blk.0.ffn_down.weight", dims(f, h), make([]float32, f*h)},
	}

	scores := make([]float32, n)
	kvs := []kv{
		{"general.architecture", "llama"},
		{"general.name", "loupe-scripted"},
		{"general.file_type", uint32(0)}, // all F32
		{"general.alignment", uint32(ggufAlignment)},
		{"llama.vocab_size", uint32(n)},
		{"llama.context_length", uint32(cmp.Or(s.ContextLength, contextLength))},
		{"llama.embedding_length", uint32(hiddenSize)},
		{"llama.block_count", uint32(1)},
		{"llama.feed_forward_length", uint32(ffnSize)},
		{"llama.attention.head_count", uint32(headCount)},
		{"llama.attention.head_count_kv", uint32(headCount)},
		{"llama.rope.dimension_count", uint32(hiddenSize / headCount)},
		{"llama.rope.freq_base", float32(10000)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", v.tokens},
		{"tokenizer.ggml.scores", scores},
		{"tokenizer.ggml.token_type", v.types},
		{"tokenizer.ggml.bos_token_id", uint32(tokBOS)},
		{"tokenizer.ggml.eos_token_id", uint32(tokIMEnd)},
		{"tokenizer.ggml.unknown_token_id", uint32(tokUnk)},
		{"tokenizer.ggml.add_bos_token", false},
		{"tokenizer.ggml.add_eos_token", false},
		{"tokenizer.ggml.add_space_prefix", false},
	}
	return encode(w, kvs, tensors)
}
