package permission

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/loupe-dev/loupe/backend/hands"
	"github.com/loupe-dev/loupe/backend/hooks"
)

// workspaceSettingsFile is where a workspace proposes settings.
const workspaceSettingsFile = ".loupe/settings.json"

// maxSettingsBytes bounds the workspace settings file.
const maxSettingsBytes = 1 << 20

// WorkspaceSettings are what a workspace's .loupe/settings.json proposes.
// A workspace is someone else's text until the user trusts it: Policy
// uses its allow rules and commands only when Policy.Trusted is set (its
// deny and ask rules, which only restrict, always), and the session layer must
// likewise use Host and AllowNetwork only for a trusted workspace
// (IfTrusted does that).
//
//	{
//	  "rules":    [{"effect": "allow", "command": "make test"},
//	               {"effect": "deny", "path": "secrets/**"}],
//	  "commands": ["go test ./...", "npm run lint"],
//	  "host":     "http://127.0.0.1:11434",
//	  "allow_network": false
//	}
type WorkspaceSettings struct {
	// Rules are rules like the user's own.
	Rules []Rule `json:"rules,omitempty"`
	// Commands are command patterns this workspace wants to run without
	// asking; each becomes an allow rule for run_command.
	Commands []string `json:"commands,omitempty"`
	// Host is an Ollama host for this workspace.
	Host string `json:"host,omitempty"`
	// AllowNetwork asks for commands to have network access here.
	AllowNetwork bool `json:"allow_network,omitempty"`
	// MCPServers are MCP servers this workspace adds, in the mcpServers
	// shape (read by the mcp package, started only once the workspace is
	// trusted: a server is a program that runs).
	MCPServers json.RawMessage `json:"mcpServers,omitempty"`
	// Hooks are this workspace's hooks, run after the user's own (see
	// package hooks); like its rules, only once the workspace is trusted.
	Hooks []hooks.Hook `json:"hooks,omitempty"`

	// Path is the file read ("" when the workspace has none).
	Path string `json:"-"`
	// Digest is the SHA-256 of the file's bytes, so that the session layer
	// can tie trust to what the user saw and ask again when it changes.
	Digest string `json:"-"`
}

// IfTrusted returns s when the workspace is trusted and nothing otherwise
// (Path and Digest are kept, so the UI can say a file is being ignored).
func (s WorkspaceSettings) IfTrusted(trusted bool) WorkspaceSettings {
	if trusted {
		return s
	}
	return WorkspaceSettings{Path: s.Path, Digest: s.Digest}
}

// LoadWorkspaceSettings reads dir/.loupe/settings.json. A workspace
// without one gives empty settings and no error. A file that is not a
// regular file inside the workspace, is too large, is not valid JSON, has
// fields Loupe does not know or rules that do not parse gives an error
// that says so; the caller shows it and ignores the file (the returned
// settings are then empty).
func LoadWorkspaceSettings(dir string) (WorkspaceSettings, error) {
	// Read once, through the layer that follows no link and does not
	// block on a pipe: a command can plant anything at this path.
	root, err := hands.Open(dir, nil)
	if err != nil {
		return WorkspaceSettings{}, fmt.Errorf("workspace settings: open workspace %s: %w", dir, err)
	}
	defer root.Close()
	return LoadWorkspaceSettingsIn(root)
}

// LoadWorkspaceSettingsIn is LoadWorkspaceSettings of the folder root
// holds: what else is read of that folder is read of the same one.
func LoadWorkspaceSettingsIn(root *hands.Root) (WorkspaceSettings, error) {
	name := workspaceSettingsFile
	fail := func(format string, args ...any) (WorkspaceSettings, error) {
		return WorkspaceSettings{}, fmt.Errorf("workspace settings %s ignored: %s", name, fmt.Sprintf(format, args...))
	}
	data, exists, err := root.ReadFile(name, maxSettingsBytes)
	var found *hands.FoundError
	var large *hands.TooLargeError
	switch {
	case errors.As(err, &found) && found.Path == name:
		return fail("it is not a regular file (%s)", found)
	case errors.As(err, &large):
		return fail("it is larger than %d bytes", maxSettingsBytes)
	case err != nil:
		return fail("%v", err)
	case !exists:
		return WorkspaceSettings{}, nil
	}
	var s WorkspaceSettings
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return fail("%s", describeJSONError(data, err))
	}
	if dec.More() {
		return fail("there is more than one JSON value in it")
	}
	var probs []string
	for _, r := range s.Rules {
		if err := r.Validate(); err != nil {
			probs = append(probs, err.Error())
		}
	}
	for _, c := range s.Commands {
		if _, err := compileCommand(c); err != nil {
			probs = append(probs, err.Error())
		}
	}
	if err := hooks.Validate(name, s.Hooks); err != nil {
		probs = append(probs, err.Error())
	}
	if s.Host != "" {
		if u, err := url.Parse(s.Host); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			probs = append(probs, fmt.Sprintf("host %q is not an http(s) URL", s.Host))
		}
	}
	if len(probs) > 0 {
		return fail("%s", strings.Join(probs, "; "))
	}
	sum := sha256.Sum256(data)
	s.Path, s.Digest = name, hex.EncodeToString(sum[:])
	return s, nil
}

// describeJSONError adds the line to a JSON error.
func describeJSONError(data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return err.Error()
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	return fmt.Sprintf("line %d: %v", line, err)
}
