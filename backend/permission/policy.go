package permission

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/loupe-dev/loupe/backend/cmdshell"
)

// ToolSetting is a per-tool choice that overrides the mode for that tool.
type ToolSetting string

const (
	// ToolAlways runs the tool without asking, like auto mode for it:
	// deny rules and protected paths still apply.
	ToolAlways ToolSetting = "always"
	// ToolAsk asks before every call of the tool (allow rules and grants
	// still apply).
	ToolAsk ToolSetting = "ask"
	// ToolNever refuses every call of the tool.
	ToolNever ToolSetting = "never"
)

// Valid reports whether s is a known setting.
func (s ToolSetting) Valid() bool { return s == ToolAlways || s == ToolAsk || s == ToolNever }

// Policy is everything that decides whether a call runs, asks or is
// refused. It is a plain value: the session layer builds one per run from
// the user's settings, the grants it has stored and the workspace.
type Policy struct {
	// Mode is the session-wide default; empty means ModeAsk.
	Mode Mode `json:"mode"`
	// Tools overrides the mode per tool name.
	Tools map[string]ToolSetting `json:"tools,omitempty"`
	// Rules are the user's own rules (from Loupe's settings).
	Rules []Rule `json:"rules,omitempty"`
	// Grants are the user's remembered answers (this session's and this
	// workspace's), as returned by the broker in Answer.Grant.
	Grants []Grant `json:"grants,omitempty"`
	// Workspace is the workspace folder (absolute). It is used to place
	// absolute paths and to see through symlinks inside the workspace.
	// Without it, every absolute path counts as outside the workspace.
	Workspace string `json:"-"`
	// ProtectedFiles are Loupe's own files (settings, database), absolute.
	// When they lie inside the workspace, changing them always asks, as
	// do their SQLite companions (-wal, -shm, -journal).
	ProtectedFiles []string `json:"-"`
	// WorkspaceSettings are what the workspace's .loupe/settings.json
	// proposes. Its deny and ask rules always count; the rest only when
	// Trusted is set.
	WorkspaceSettings WorkspaceSettings `json:"-"`
	// Trusted is set by the session layer when the user has trusted this
	// workspace; until then only WorkspaceSettings' deny and ask rules
	// count.
	Trusted bool `json:"-"`
	// Unconfined, when set, says why commands cannot be confined by the
	// OS here; every command then asks, once, whatever the rules say.
	Unconfined string `json:"-"`

	// shell, when set, is the shell commands are read for (tests);
	// otherwise cmdshell.Commands(), the one the sandbox starts.
	shell *cmdshell.Shell
}

// analyze classifies a command as the shell that runs it reads it.
func (p Policy) analyze(src string) *analysis {
	if p.shell != nil {
		return analyzeCommandIn(src, *p.shell)
	}
	return analyzeCommand(src)
}

// Validate says what is wrong with the user's policy settings.
func (p Policy) Validate() error {
	var probs []string
	if p.Mode != "" && !p.Mode.Valid() {
		probs = append(probs, fmt.Sprintf("unknown permission mode %q (use %q, %q or %q)", p.Mode, ModeAskAll, ModeAsk, ModeAuto))
	}
	for tool, s := range p.Tools {
		if !s.Valid() {
			probs = append(probs, fmt.Sprintf("tool %s: setting must be always, ask or never, not %q", tool, s))
		}
	}
	for _, r := range p.Rules {
		if err := r.Validate(); err != nil {
			probs = append(probs, err.Error())
		}
	}
	if len(probs) > 0 {
		return fmt.Errorf("permission settings: %s", strings.Join(probs, "; "))
	}
	return nil
}

// Call is what the policy knows about one tool call. Build it with
// CallFor: only the tool's own declared arguments go into it.
type Call struct {
	Tool string `json:"tool"`
	// ReadOnly comes from the tool's definition, never from the model.
	ReadOnly bool `json:"read_only"`
	// Command is run_command's command.
	Command string `json:"command,omitempty"`
	// Paths are the tool's path arguments, cleaned, slash-separated,
	// relative to the workspace (or absolute, as the model sent them).
	Paths []string `json:"paths,omitempty"`
}

// Decision is the policy's answer for one call.
type Decision struct {
	Verdict Verdict `json:"verdict"`
	// By says who or which rule decided, shown as "Allowed by …" or
	// "Refused by …": "auto mode", "rule: deny .env*", "you (for this
	// session)". For Ask it names the rule or setting that asks, if any.
	By string `json:"by,omitempty"`
	// Reasons say why it asks (or why it was refused), in plain words for
	// the approval card.
	Reasons []string `json:"reasons,omitempty"`
	// OnceOnly is set when the answer must not be remembered (a protected
	// path, something a deny rule might cover): the card offers only
	// approve and deny.
	OnceOnly bool `json:"once_only,omitempty"`
}

// pathArgs are the argument names that hold paths, per built-in tool.
var pathArgs = map[string]string{
	"read_file":  "path",
	"write_file": "path",
	"edit_file":  "path",
	"list_dir":   "path",
	"grep":       "path",
	"glob":       "pattern",
}

// PathArg is the argument of a built-in tool that holds the path the
// policy judges (and a path rule for that tool names), "" for a tool that
// takes none.
func PathArg(tool string) string { return pathArgs[tool] }

// CallFor builds the Call for a tool call from the tool's own arguments:
// path for read_file, write_file, edit_file, list_dir and grep (grep
// without a path searches the whole workspace, "."), pattern for glob,
// command for run_command. Any other field the model sends ("safe",
// "cwd", "sandbox" …) is ignored and can never widen anything. The
// arguments are decoded with encoding/json exactly as the tools decode
// them (so a case-variant duplicate such as "PATH" is seen the same way).
// Other tools get a Call without paths.
func CallFor(tool string, args json.RawMessage, readOnly bool) (Call, error) {
	c := Call{Tool: tool, ReadOnly: readOnly}
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = json.RawMessage("{}")
	}
	switch arg, ok := pathArgs[tool]; {
	case tool == RunCommand:
		var in struct {
			Command string `json:"command"`
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return c, fmt.Errorf("permission: arguments of %s: %w", tool, err)
		}
		c.Command = in.Command
	case ok && arg == "path":
		var in struct {
			Path string `json:"path"`
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return c, fmt.Errorf("permission: arguments of %s: %w", tool, err)
		}
		c.Paths = []string{cleanPath(in.Path)}
	case ok && arg == "pattern":
		var in struct {
			Pattern string `json:"pattern"`
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return c, fmt.Errorf("permission: arguments of %s: %w", tool, err)
		}
		c.Paths = []string{cleanPath(in.Pattern)}
	}
	return c, nil
}

func cleanPath(p string) string {
	if p == "" {
		return "."
	}
	return path.Clean(filepath.ToSlash(p))
}
