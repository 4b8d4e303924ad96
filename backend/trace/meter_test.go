package trace

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
)

func TestMeterOf(t *testing.T) {
	def := SplitOf(4000, 8000, 20000, 4000, DefaultRate()) // 1000 + 2000 + 5000 + 1000 = 9000
	cal := def
	cal.CalibratedBy = 7
	count := func(n int) llm.Metrics { return llm.Metrics{PromptEvalCount: n, EvalCount: 50} }
	for _, tt := range []struct {
		name    string
		split   Split
		prev    *Previous
		m       llm.Metrics
		source  string
		prompt  int
		dropped bool
		rate    bool
	}{
		{"a count near the estimate", cal, nil, count(8800), SourceOllama, 8800, false, true},
		{"a tokenizer of twice the default bytes a token, uncalibrated", def, nil, count(4500), SourceOllama, 4500, false, true},
		{"far below, uncalibrated", def, nil, count(2500), SourceOllama, 2500, true, false},
		{"far below, calibrated", cal, nil, count(5000), SourceOllama, 5000, true, false},
		{"somewhat below, calibrated", cal, nil, count(6000), SourceOllama, 6000, false, true},
		{"below but by less than minLost", SplitOf(400, 0, 0, 0, Rate{BytesPerToken: 4, From: 1}), nil, count(20), SourceOllama, 20, false, true},
		{"only the new part counted", cal, &Previous{Prompt: 7900, Output: 60}, count(1100), SourceCache, 7900 + 60 + 1100, false, false},
		{"a cut prompt after a previous request", cal, &Previous{Prompt: 7900, Output: 60}, count(4100), SourceOllama, 4100, true, false},
		{"no count", cal, nil, llm.Metrics{}, SourceEstimate, 9000, false, false},
		{"all of num_ctx", cal, nil, count(16384), SourceOllama, 16384, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rd := MeterOf(tt.split, tt.prev, tt.m, 16384, 0)
			m := rd.Meter
			if m.Source != tt.source || m.Prompt != tt.prompt || m.Dropped != tt.dropped || (m.BytesPerToken > 0) != tt.rate {
				t.Fatalf("meter = %+v, want source %s prompt %d dropped %v calibrates %v", m, tt.source, tt.prompt, tt.dropped, tt.rate)
			}
			if m.Parts.Sum() != m.Prompt {
				t.Errorf("parts %+v add up to %d, not %d", m.Parts, m.Parts.Sum(), m.Prompt)
			}
			// The history takes the loss; when even the rest does not fit
			// the count, all of it, and the rest shrinks.
			if tt.dropped && m.Prompt < 16384 && (rd.Lost != 9000-m.Prompt ||
				(m.Prompt >= 4000 && (m.Parts.System != 1000 || m.Parts.Tools != 2000)) || (m.Prompt < 4000 && m.Parts.History != 0)) {
				t.Errorf("dropped: lost %d, parts %+v: want the history to take the loss", rd.Lost, m.Parts)
			}
		})
	}
}

// Parts of a count: in proportion to the estimate, the rounding in the
// biggest, adding up exactly.
func TestScaleAddsUp(t *testing.T) {
	p := Parts{System: 333, Tools: 333, History: 334, New: 1}
	for _, total := range []int{0, 1, 7, 999, 1001, 123457} {
		if got := scale(p, total); got.Sum() != total || got.History < got.New {
			t.Errorf("scale(%d) = %+v", total, got)
		}
	}
	if got := scale(Parts{}, 50); got.History != 50 {
		t.Errorf("scale of nothing = %+v", got)
	}
}

func TestLostMessages(t *testing.T) {
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: strings.Repeat("s", 400)},
		{Role: llm.RoleUser, Content: strings.Repeat("u", 396)},
		{Role: llm.RoleAssistant, Content: "", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file"}}},
		{Role: llm.RoleTool, ToolName: "read_file", Content: strings.Repeat("r", 4000)},
		{Role: llm.RoleUser, Content: "last"},
	}
	size := func(m llm.Message) int { return len(m.Content) + 4 }
	got := LostMessages(msgs, 150, DefaultRate(), size)
	if strings.Join(got, "|") != "message 1: user|message 2: the model's answer|message 3: the result of read_file" {
		t.Errorf("lost = %q", got)
	}
	if got := LostMessages(msgs, 50, DefaultRate(), size); len(got) != 1 {
		t.Errorf("lost 50 = %q, want the first message only", got)
	}
	// The latest message is never lost: Ollama always keeps it.
	if got := LostMessages(msgs, 1<<20, DefaultRate(), size); len(got) != 3 {
		t.Errorf("lost all = %q", got)
	}
}
