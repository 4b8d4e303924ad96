// Package mcp runs the Model Context Protocol servers a user configured and
// offers their tools to the model as ordinary tools.Tool values: the
// registry checks their arguments, the policy judges their calls, their
// results are capped and recorded as any built-in tool's. It is the only
// package that imports the MCP SDK.
package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Server is one configured MCP server, in the shape other apps use in
// their "mcpServers" files: a program to start (Command, Args, Env) that
// speaks MCP on its stdin and stdout, or the URL of a server that speaks
// streamable HTTP (Headers sent with every request). Type "sse" picks the
// older HTTP+SSE transport for a URL.
type Server struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Disabled servers are kept in the settings but not started.
	Disabled bool `json:"disabled,omitempty"`
	// Loupe is what a stdio server is granted beyond the sandbox commands
	// run in (its "loupe" field; other apps leave it alone).
	Loupe Grant `json:"loupe,omitzero"`
}

// Grant is what the user lets a stdio server do beyond what a confined
// command may, but for writes: the workspace is read-only to a server.
type Grant struct {
	// Network lets it reach the network (a command's setting does not
	// count for it).
	Network bool `json:"network,omitempty"`
	// Paths are the files and folders inside the workspace it may write:
	// relative to the workspace, or absolute.
	Paths []string `json:"paths,omitempty"`
	// Read are absolute paths outside the workspace it may read (its own
	// files: a script's folder, a data set), as a workspace's exposed
	// paths are for commands. Its command, given as an absolute path, is
	// readable without it.
	Read []string `json:"read,omitempty"`
}

// Reach is what one enabled server can do on this machine, as
// Protections lists it (nothing is started to say it).
type Reach struct {
	Name  string `json:"name"`
	Scope string `json:"scope"` // "global" or "workspace"
	// Confined: a stdio server, run in the sandbox commands run in. A
	// URL server runs elsewhere: Loupe sends it the tool calls only.
	Confined bool `json:"confined"`
	// Detail says it in words.
	Detail string `json:"detail"`
	Grant  Grant  `json:"grant"`
}

// Reach lists what each enabled server can do: local are the
// workspace's own, notSandboxed what the machine's sandbox lacks ("" when
// it has everything).
func (s Servers) Reach(local Servers, notSandboxed string) []Reach {
	out := []Reach{}
	for _, name := range s.Names() {
		cfg := s[name]
		if cfg.Disabled {
			continue
		}
		r := Reach{Name: name, Scope: "global", Grant: cfg.Loupe}
		if _, ok := local[name]; ok {
			r.Scope = "workspace"
		}
		switch {
		case cfg.Transport() != TypeStdio:
			r.Detail = "runs at " + cfg.URL + ", not on this machine: it gets only the calls the policy lets through"
		case notSandboxed != "":
			r.Detail = "runs as your own process, not sandboxed (" + notSandboxed + "): it may do what you may"
		default:
			r.Confined = true
			r.Detail = "sandboxed as commands are; reads the workspace, " + cfg.Loupe.Describe()
		}
		out = append(out, r)
	}
	return out
}

// Describe says the grant in words, for Protections and the window.
func (g Grant) Describe() string {
	var w []string
	if len(g.Paths) > 0 {
		w = append(w, "writes "+strings.Join(g.Paths, ", "))
	} else {
		w = append(w, "writes nothing of the workspace")
	}
	if len(g.Read) > 0 {
		w = append(w, "also reads "+strings.Join(g.Read, ", "))
	}
	if g.Network {
		w = append(w, "reaches the network")
	} else {
		w = append(w, "no network")
	}
	return strings.Join(w, "; ")
}

// Transports.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	TypeSSE   = "sse"
)

// Transport is the server's transport: Type when set, else stdio for a
// command and streamable HTTP for a URL.
func (s Server) Transport() string {
	switch strings.ToLower(s.Type) {
	case "stdio":
		return TypeStdio
	case "sse":
		return TypeSSE
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		return TypeHTTP
	}
	if s.Command != "" {
		return TypeStdio
	}
	return TypeHTTP
}

// Servers are configured servers by name.
type Servers map[string]Server

// Names lists the servers' names in order.
func (s Servers) Names() []string { return slices.Sorted(maps.Keys(s)) }

// Sep joins a server's name and its tool's name into the name the model
// calls: "everything.echo". No built-in tool has it in its name, and a
// server's name may not hold it, so the two never collide. Ollama's tool
// call parsers take it as part of the name (they match the offered names
// as given, and the harmony format maps names it cannot show).
const Sep = "."

var nameRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`)

// File is the JSON shape of a pasted or imported configuration.
type File struct {
	MCPServers Servers `json:"mcpServers"`
}

// Parse reads a configuration as people paste it from other apps:
// {"mcpServers": {"name": {...}}}, or the inner object alone. Errors name
// the server and the field.
func Parse(data []byte) (Servers, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, errors.New("the MCP configuration is empty: paste {\"mcpServers\": {\"name\": {\"command\": ...}}}")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("the MCP configuration is not a JSON object: %v", err)
	}
	inner := data
	if raw, ok := top["mcpServers"]; ok {
		inner = raw
	} else if raw, ok := top["servers"]; ok {
		inner = raw
	}
	var rawServers map[string]json.RawMessage
	if err := json.Unmarshal(inner, &rawServers); err != nil {
		return nil, fmt.Errorf("mcpServers must be an object of servers by name: %v", err)
	}
	out := Servers{}
	for _, name := range slices.Sorted(maps.Keys(rawServers)) {
		s, err := parseServer(name, rawServers[name])
		if err != nil {
			return nil, err
		}
		out[name] = s
	}
	return out, out.Validate()
}

func parseServer(name string, raw json.RawMessage) (Server, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Server{}, fmt.Errorf("server %q: must be an object with command or url", name)
	}
	var s Server
	for _, f := range slices.Sorted(maps.Keys(fields)) {
		v := fields[f]
		var err error
		switch f {
		case "type", "transport":
			err = json.Unmarshal(v, &s.Type)
		case "command":
			err = json.Unmarshal(v, &s.Command)
		case "args":
			err = json.Unmarshal(v, &s.Args)
		case "env":
			err = json.Unmarshal(v, &s.Env)
		case "url", "serverUrl":
			err = json.Unmarshal(v, &s.URL)
		case "headers":
			err = json.Unmarshal(v, &s.Headers)
		case "disabled":
			err = json.Unmarshal(v, &s.Disabled)
		case "loupe":
			d := json.NewDecoder(bytes.NewReader(v))
			d.DisallowUnknownFields()
			err = d.Decode(&s.Loupe)
		default:
			// Other apps' own fields (alwaysAllow, autoApprove, cwd...)
			// are not Loupe's to follow; they are left out.
			continue
		}
		if err != nil {
			return Server{}, fmt.Errorf("server %q: field %q: %v", name, f, fieldWant(f))
		}
	}
	return s, nil
}

func fieldWant(f string) string {
	switch f {
	case "args":
		return "must be a list of strings"
	case "env", "headers":
		return "must be an object of string values"
	case "disabled":
		return "must be true or false"
	case "loupe":
		return `must be {"network": true or false, "paths": ["a folder inside the workspace", ...], "read": ["/an/absolute/path", ...]}`
	}
	return "must be a string"
}

// Validate says what is wrong with the servers, naming the server and the
// field.
func (s Servers) Validate() error {
	for _, name := range s.Names() {
		if err := s[name].validate(name); err != nil {
			return err
		}
	}
	return nil
}

func (s Server) validate(name string) error {
	if !nameRe.MatchString(name) {
		return fmt.Errorf("server %q: a name is 1 to 40 letters, digits, _ or - (it starts each tool's name: %s%stool)", name, name, Sep)
	}
	switch strings.ToLower(s.Type) {
	case "", "stdio", "sse", "http", "streamable-http", "streamablehttp", "streamable_http":
	default:
		return fmt.Errorf("server %q: field \"type\": %q is not stdio, http or sse", name, s.Type)
	}
	switch {
	case s.Command != "" && s.URL != "":
		return fmt.Errorf("server %q: give command or url, not both", name)
	case s.Command == "" && s.URL == "":
		return fmt.Errorf("server %q: field \"command\" (a program to start) or \"url\" (a server to reach) is missing", name)
	case s.Transport() == TypeStdio && s.Command == "":
		return fmt.Errorf("server %q: field \"command\" is missing for a stdio server", name)
	case s.Transport() != TypeStdio && s.URL == "":
		return fmt.Errorf("server %q: field \"url\" is missing for an %s server", name, s.Transport())
	case s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://"):
		return fmt.Errorf("server %q: field \"url\": %q is not an http:// or https:// address", name, s.URL)
	case s.Command != "" && len(s.Headers) > 0:
		return fmt.Errorf("server %q: field \"headers\" is for url servers; a command server takes env", name)
	case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0):
		return fmt.Errorf("server %q: fields \"args\" and \"env\" are for command servers; a url server takes headers", name)
	}
	for k := range s.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("server %q: field \"env\": %q is not a variable name", name, k)
		}
	}
	if s.URL != "" && (s.Loupe.Network || len(s.Loupe.Paths) > 0 || len(s.Loupe.Read) > 0) {
		return fmt.Errorf("server %q: field \"loupe\" grants a command server more than the sandbox; a url server does not run on this machine", name)
	}
	for _, p := range s.Loupe.Paths {
		switch {
		case strings.TrimSpace(p) == "" || strings.ContainsRune(p, 0):
			return fmt.Errorf("server %q: field \"loupe\": paths: %q is not a path; give a file or folder inside the workspace", name, p)
		case !filepath.IsAbs(p) && !filepath.IsLocal(p):
			return fmt.Errorf("server %q: field \"loupe\": paths: %q leaves the workspace; a server may be granted only paths inside it", name, p)
		}
	}
	for _, p := range s.Loupe.Read {
		if !filepath.IsAbs(p) || strings.ContainsRune(p, 0) {
			return fmt.Errorf("server %q: field \"loupe\": read: %q is not an absolute path; give the full path of a file or folder to read (the workspace is readable already)", name, p)
		}
	}
	return nil
}

// Hidden stands for a secret's value wherever a configuration is shown or
// exported.
const Hidden = "(hidden)"

// Redacted is the server with its env and header values hidden: what the
// window, the timeline and exports show. The keys stay.
func (s Server) Redacted() Server {
	s.Env = hide(s.Env)
	s.Headers = hide(s.Headers)
	return s
}

// Redacted is every server redacted.
func (s Servers) Redacted() Servers {
	if s == nil {
		return nil
	}
	out := make(Servers, len(s))
	for k, v := range s {
		out[k] = v.Redacted()
	}
	return out
}

func hide(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = Hidden
	}
	return out
}

// Merge is the servers of base with those of over added; a server of
// over replaces base's of the same name (a workspace's over the global
// settings').
func Merge(base, over Servers) Servers {
	out := Servers{}
	maps.Copy(out, base)
	maps.Copy(out, over)
	return out
}

// Describe is the server as one line: its command and args, or its URL.
func (s Server) Describe() string {
	if s.Command != "" {
		return strings.TrimSpace(s.Command + " " + strings.Join(s.Args, " "))
	}
	return s.URL
}

// ValidName reports whether name can be a server's name.
func ValidName(name string) bool { return nameRe.MatchString(name) }
