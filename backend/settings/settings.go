// Package settings holds the user's choices that shape every run, and
// reads and saves them in the store.
package settings

import (
	"context"
	"fmt"
	"strings"
	"text/template"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/store"
)

// Settings are the user's choices that shape every run.
type Settings struct {
	// MaxRounds caps model requests per run.
	MaxRounds int `json:"max_rounds"`
	// NumCtxCap caps the context length sent as num_ctx; the model's own
	// context length is used when it is smaller.
	NumCtxCap      int             `json:"num_ctx_cap"`
	Temperature    float64         `json:"temperature"`
	PermissionMode permission.Mode `json:"permission_mode"`
	// Tools sets a tool to always, ask or never; Rules allow, ask or
	// deny commands and paths (deny wins).
	Tools map[string]permission.ToolSetting `json:"tools"`
	Rules []permission.Rule                 `json:"rules"`
	// SystemPrompt is a text/template; {{.Workspace}} is the folder.
	SystemPrompt string `json:"system_prompt"`
	// StepMode is the Step mode a new session starts with; each session
	// keeps its own from then on.
	StepMode bool `json:"step_mode"`
	// FirstTokenTimeoutS bounds, in seconds, the wait for the first byte
	// of an answer (it includes loading the model); StallTimeoutS the wait
	// between two pieces of it. 0 waits without a bound.
	FirstTokenTimeoutS int `json:"first_token_timeout_s"`
	StallTimeoutS      int `json:"stall_timeout_s"`
}

// OllamaTimeouts are the waits for Ollama the settings give.
func (s Settings) OllamaTimeouts() ollama.Timeouts {
	return ollama.Timeouts{FirstToken: time.Duration(s.FirstTokenTimeoutS) * time.Second, Stall: time.Duration(s.StallTimeoutS) * time.Second}
}

// key is where the store keeps them.
const key = "settings"

// DefaultSystemPrompt tells the model where it is and how the loop works.
const DefaultSystemPrompt = `You are a coding agent working in the folder {{.Workspace}}.
You cannot see or change files yourself: use the tools, and Loupe runs them and sends you the result.
Paths are relative to that folder. Read before you edit. Keep each step small.
When the task is done, answer in plain text without calling any tool.`

// Defaults are used until the user saves their own.
func Defaults() Settings {
	return Settings{
		MaxRounds:      50,
		NumCtxCap:      16384,
		Temperature:    0.2,
		PermissionMode: permission.ModeAsk,
		Tools:          map[string]permission.ToolSetting{},
		Rules:          []permission.Rule{},
		SystemPrompt:   DefaultSystemPrompt,

		FirstTokenTimeoutS: int(ollama.DefaultFirstTokenTimeout / time.Second),
		StallTimeoutS:      int(ollama.DefaultStallTimeout / time.Second),
	}
}

// Validate says what is wrong with user-entered settings.
func (s Settings) Validate() error {
	var probs []string
	if s.MaxRounds < 1 || s.MaxRounds > 1000 {
		probs = append(probs, "the round cap must be between 1 and 1000")
	}
	if s.NumCtxCap < 512 || s.NumCtxCap > 1<<20 {
		probs = append(probs, "the context cap must be between 512 and 1048576 tokens")
	}
	if s.Temperature < 0 || s.Temperature > 2 {
		probs = append(probs, "temperature must be between 0 and 2")
	}
	if s.FirstTokenTimeoutS < 0 || s.FirstTokenTimeoutS > 86400 || s.StallTimeoutS < 0 || s.StallTimeoutS > 86400 {
		probs = append(probs, "the waits for Ollama must be between 0 (no bound) and 86400 seconds")
	}
	if !s.PermissionMode.Valid() {
		probs = append(probs, fmt.Sprintf("unknown permission mode %q (use \"ask_all\", \"ask\" or \"auto\")", s.PermissionMode))
	}
	if err := (permission.Policy{Mode: permission.ModeAsk, Tools: s.Tools, Rules: s.Rules}).Validate(); err != nil {
		probs = append(probs, err.Error())
	}
	if _, err := template.New("system").Parse(s.SystemPrompt); err != nil {
		probs = append(probs, "the system prompt template does not parse: "+err.Error())
	}
	if len(probs) > 0 {
		return fmt.Errorf("settings not saved: %s", strings.Join(probs, "; "))
	}
	return nil
}

// PromptFor renders the system prompt template for a workspace.
func (s Settings) PromptFor(workspace string) (string, error) {
	t, err := template.New("system").Parse(s.SystemPrompt)
	if err != nil {
		return "", fmt.Errorf("system prompt: %w", err)
	}
	var b strings.Builder
	if err := t.Execute(&b, struct{ Workspace string }{workspace}); err != nil {
		return "", fmt.Errorf("system prompt: %w", err)
	}
	return b.String(), nil
}

// Load returns the saved settings, or the defaults.
func Load(ctx context.Context, st *store.Store) (Settings, error) {
	s := Defaults()
	if _, err := st.GetSetting(ctx, key, &s); err != nil {
		return Defaults(), err
	}
	if s.Tools == nil {
		s.Tools = map[string]permission.ToolSetting{}
	}
	if s.Rules == nil {
		s.Rules = []permission.Rule{}
	}
	return s, nil
}

// Save validates and stores the settings.
func Save(ctx context.Context, st *store.Store, s Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	return st.PutSetting(ctx, key, s)
}
