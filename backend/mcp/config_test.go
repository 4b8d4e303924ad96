package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	good := `{"mcpServers": {
		"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "env": {"API_KEY": "s3cret"}},
		"remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer tok"}},
		"old": {"type": "sse", "url": "http://localhost:1/sse", "alwaysAllow": ["x"]}
	}}`
	s, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Names(), ","); got != "everything,old,remote" {
		t.Fatalf("names %s", got)
	}
	if s["everything"].Transport() != TypeStdio || s["remote"].Transport() != TypeHTTP || s["old"].Transport() != TypeSSE {
		t.Fatalf("transports %+v", s)
	}
	// The inner object alone is taken too.
	if s2, err := Parse([]byte(`{"a": {"command": "x"}}`)); err != nil || s2["a"].Command != "x" {
		t.Fatalf("bare object: %v %+v", err, s2)
	}

	bad := []struct{ in, want string }{
		{``, "empty"},
		{`[1]`, "not a JSON object"},
		{`{"mcpServers": {"a": {"command": 3}}}`, `server "a": field "command": must be a string`},
		{`{"mcpServers": {"a": {"command": "x", "args": "y"}}}`, `server "a": field "args": must be a list of strings`},
		{`{"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}`, `server "a": field "env": must be an object of string values`},
		{`{"mcpServers": {"a": {}}}`, `server "a": field "command"`},
		{`{"mcpServers": {"a": {"command": "x", "url": "http://y"}}}`, `server "a": give command or url, not both`},
		{`{"mcpServers": {"a": {"url": "ftp://y"}}}`, `server "a": field "url"`},
		{`{"mcpServers": {"a.b": {"command": "x"}}}`, `server "a.b": a name is`},
		{`{"mcpServers": {"a": {"type": "carrier-pigeon", "command": "x"}}}`, `server "a": field "type"`},
		{`{"mcpServers": {"a": {"type": "stdio", "url": "http://x"}}}`, `server "a": field "command" is missing`},
	}
	for _, c := range bad {
		_, err := Parse([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s) = %v, want an error with %q", c.in, err, c.want)
		}
	}
}

func TestRedactedShowsKeysNotValues(t *testing.T) {
	s, err := Parse([]byte(`{"mcpServers": {"a": {"command": "x", "env": {"API_KEY": "s3cret"}}, "b": {"url": "http://h", "headers": {"Authorization": "Bearer tok"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s.Redacted())
	if strings.Contains(string(b), "s3cret") || strings.Contains(string(b), "Bearer") {
		t.Fatalf("a secret is shown: %s", b)
	}
	if !strings.Contains(string(b), "API_KEY") || !strings.Contains(string(b), "Authorization") {
		t.Fatalf("the keys are not shown: %s", b)
	}
	if s["a"].Env["API_KEY"] != "s3cret" {
		t.Fatal("Redacted changed the original")
	}
}

// A stdio server's "loupe" field is what it is granted beyond the
// sandbox; anything else in it, or a grant that cannot hold, is refused
// with what to give instead.
func TestParseGrants(t *testing.T) {
	s, err := Parse([]byte(`{"mcpServers": {"fs": {"command": "node", "loupe": {"network": true, "paths": ["out", "/ws/data"], "read": ["/opt/fs"]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	g := s["fs"].Loupe
	if !g.Network || strings.Join(g.Paths, ",") != "out,/ws/data" || strings.Join(g.Read, ",") != "/opt/fs" {
		t.Fatalf("grant %+v", g)
	}
	if d := g.Describe(); d != "writes out, /ws/data; also reads /opt/fs; reaches the network" {
		t.Fatalf("described as %q", d)
	}
	if d := (Grant{}).Describe(); d != "writes nothing of the workspace; no network" {
		t.Fatalf("no grant described as %q", d)
	}
	bad := []struct{ in, want string }{
		{`{"a": {"command": "x", "loupe": {"net": true}}}`, `server "a": field "loupe": must be {"network"`},
		{`{"a": {"command": "x", "loupe": {"paths": "out"}}}`, `server "a": field "loupe": must be`},
		{`{"a": {"command": "x", "loupe": {"paths": ["../other"]}}}`, `"../other" leaves the workspace`},
		{`{"a": {"command": "x", "loupe": {"paths": [" "]}}}`, `is not a path`},
		{`{"a": {"command": "x", "loupe": {"read": ["rel"]}}}`, `"rel" is not an absolute path`},
		{`{"a": {"url": "https://h", "loupe": {"network": true}}}`, `a url server does not run on this machine`},
	}
	for _, c := range bad {
		_, err := Parse([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s) = %v, want an error with %q", c.in, err, c.want)
		}
	}
}
