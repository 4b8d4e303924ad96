// Package settings holds the user's choices that shape every run, and
// reads and saves them in the store.
package settings

import (
	"context"
	"fmt"
	"os"
	"strings"
	"text/template"
	"time"

	"github.com/loupe-dev/loupe/backend/hooks"
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
	// OllamaHost is where Ollama is, as the user typed it and Save
	// normalised it; "" leaves it to OLLAMA_HOST or DefaultHost. A --host
	// flag wins over it (see ChooseHost).
	OllamaHost string `json:"ollama_host"`
	// Hosts are other Ollama servers, each under a name, that a new
	// session may be started on instead of the local one (OllamaHost).
	Hosts []HostProfile `json:"hosts"`
	// RecoverTextCalls turns tool calls a model printed as text (JSON in
	// the answer, in a code fence or between <tool_call> tags) into calls.
	RecoverTextCalls bool `json:"recover_text_calls"`
	// RepeatLimit is how many rounds in a row may ask for the same calls
	// before Loupe tells the model; one more and the run stops.
	RepeatLimit int `json:"repeat_limit"`
	// SubAgents offers the task tool: the model may hand a goal to a
	// sub-agent, a nested run with read-only tools by default.
	SubAgents bool `json:"sub_agents"`
	// Compact turns compaction on: when a prompt reaches CompactAtPercent
	// of num_ctx the model summarises the older turns, and a prompt Ollama
	// refuses as too long is compacted and sent again. CompactKeepRounds
	// are the latest rounds always kept as they are. Compact now works
	// whether it is on or not.
	Compact           bool `json:"compact"`
	CompactAtPercent  int  `json:"compact_at_percent"`
	CompactKeepRounds int  `json:"compact_keep_rounds"`
	// OTLPEndpoint, when set, is an OTLP/HTTP collector each finished run
	// is sent to as a trace (see session's export of finished runs), in
	// OTLPProtocol (otlp.ProtoBuf when ""); OTLPNoContent leaves out what
	// the user, the model and the tools wrote. "" sends nothing.
	OTLPEndpoint  string `json:"otlp_endpoint"`
	OTLPProtocol  string `json:"otlp_protocol"`
	OTLPNoContent bool   `json:"otlp_no_content"`
	// Hooks are the user's hooks, for every workspace (a trusted
	// workspace's own run after them).
	Hooks []hooks.Hook `json:"hooks"`
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
		Hosts:          []HostProfile{},
		Hooks:          []hooks.Hook{},
		SystemPrompt:   DefaultSystemPrompt,

		RecoverTextCalls: true,
		RepeatLimit:      3,

		Compact:           true,
		CompactAtPercent:  80,
		CompactKeepRounds: 2,

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
	if s.RepeatLimit < 2 || s.RepeatLimit > 100 {
		probs = append(probs, "the repeat limit must be between 2 and 100 rounds")
	}
	if s.CompactAtPercent < 10 || s.CompactAtPercent > 100 {
		probs = append(probs, "compaction must start between 10 and 100 % of num_ctx")
	}
	if s.CompactKeepRounds < 1 || s.CompactKeepRounds > 50 {
		probs = append(probs, "compaction must keep between 1 and 50 latest rounds")
	}
	if s.OllamaHost != "" {
		if _, err := ParseOllamaHost(s.OllamaHost); err != nil {
			probs = append(probs, err.Error())
		}
	}
	probs = append(probs, validateHosts(s.Hosts)...)
	probs = append(probs, validateOTLP(s)...)
	if err := hooks.Validate("Settings", s.Hooks); err != nil {
		probs = append(probs, err.Error())
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

// ParseOllamaHost reads an Ollama host as typed in Settings and returns it
// normalised, or an error that says what is wrong and what to type.
func ParseOllamaHost(host string) (string, error) {
	h, err := ollama.ParseHost(host)
	if err != nil {
		return "", fmt.Errorf("the Ollama host %q cannot be used: %v; type http:// or https://, a host name or IP address and an optional port, like %s, or leave it empty for the default", host, err, ollama.HostExample)
	}
	return h, nil
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
	if s.Hosts == nil {
		s.Hosts = []HostProfile{}
	}
	if s.Hooks == nil {
		s.Hooks = []hooks.Hook{}
	}
	return s, nil
}

// Save validates and stores the settings, the Ollama host normalised
// ("localhost:11434" is stored as "http://localhost:11434"), so what is
// stored is what the client talks to and what Settings shows.
func Save(ctx context.Context, st *store.Store, s Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if s.OllamaHost != "" {
		s.OllamaHost, _ = ParseOllamaHost(s.OllamaHost) // Validate has parsed it
	}
	hosts := make([]HostProfile, len(s.Hosts))
	for i, h := range s.Hosts {
		hosts[i] = HostProfile{Name: strings.TrimSpace(h.Name)}
		hosts[i].URL, _ = ParseOllamaHost(h.URL)
	}
	s.Hosts = hosts
	s.OTLPEndpoint = strings.TrimSpace(s.OTLPEndpoint)
	return st.PutSetting(ctx, key, s)
}

// Where the Ollama host comes from, strongest first.
const (
	HostFromFlag    = "flag"    // --host, given when the program started
	HostFromSetting = "setting" // Settings' Ollama host
	HostFromEnv     = "env"     // OLLAMA_HOST
	HostFromDefault = "default" // ollama.DefaultHost
)

// HostChoice is the Ollama host a process talks to and which of the
// places that can name one gave it, with the others that name one, so
// Settings can say which wins.
type HostChoice struct {
	// Host is the normalised base URL used.
	Host string `json:"host"`
	// From is HostFromFlag, HostFromSetting, HostFromEnv or HostFromDefault.
	From string `json:"from"`
	// Flag and Env are what --host and OLLAMA_HOST name, normalised; ""
	// when not given.
	Flag string `json:"flag"`
	Env  string `json:"env"`
}

// ChooseHost picks the Ollama host: the --host flag (flag, "" when not
// given), else the saved setting, else OLLAMA_HOST, else the default.
// The setting beats OLLAMA_HOST because it is the choice made in Loupe,
// while OLLAMA_HOST is often set for the Ollama server itself (to
// 0.0.0.0, to listen everywhere) and so says little about where a client
// should go; a flag is the one-off choice for one start.
func ChooseHost(flag string, s Settings) HostChoice {
	var c HostChoice
	if strings.TrimSpace(flag) != "" {
		c.Flag = ollama.NormalizeHost(flag)
	}
	if strings.Trim(strings.TrimSpace(os.Getenv("OLLAMA_HOST")), "\"'") != "" {
		c.Env = ollama.HostFromEnv()
	}
	switch {
	case c.Flag != "":
		c.Host, c.From = c.Flag, HostFromFlag
	case s.OllamaHost != "":
		// A value stored before validation existed is read as Ollama would.
		c.Host, c.From = ollama.NormalizeHost(s.OllamaHost), HostFromSetting
	case c.Env != "":
		c.Host, c.From = c.Env, HostFromEnv
	default:
		c.Host, c.From = ollama.DefaultHost, HostFromDefault
	}
	return c
}
