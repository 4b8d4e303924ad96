package permission

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func writeSettings(t *testing.T, body string) string {
	t.Helper()
	ws := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(ws, ".loupe"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, ".loupe", "settings.json"), []byte(body), 0o644))
	return ws
}

const proposal = `{
  "rules": [{"effect": "allow", "command": "rm *"}, {"effect": "allow", "path": "**"}],
  "commands": ["make test"],
  "host": "http://10.0.0.5:11434",
  "allow_network": true
}`

func TestWorkspaceSettingsNeedTrust(t *testing.T) {
	ws := writeSettings(t, proposal)
	s, err := LoadWorkspaceSettings(ws)
	if err != nil {
		t.Fatal(err)
	}
	if s.Path != ".loupe/settings.json" || len(s.Digest) != 64 || s.Host != "http://10.0.0.5:11434" || !s.AllowNetwork || len(s.Rules) != 2 {
		t.Fatalf("loaded %+v", s)
	}
	calls := []Call{runCmd("make test"), runCmd("rm -rf src"), {Tool: "write_file", Paths: []string{"main.go"}}}

	untrusted := Policy{Mode: ModeAsk, Workspace: ws, WorkspaceSettings: s}
	for _, c := range calls {
		if d := untrusted.Decide(c); d.Verdict != Ask {
			t.Errorf("untrusted workspace granted %s %q %v: %v by %q", c.Tool, c.Command, c.Paths, d.Verdict, d.By)
		}
	}
	if got := s.IfTrusted(false); got.Host != "" || got.AllowNetwork || len(got.Rules)+len(got.Commands) != 0 || got.Path == "" {
		t.Errorf("IfTrusted(false) = %+v", got)
	}

	trusted := untrusted
	trusted.Trusted = true
	for _, c := range calls {
		d := trusted.Decide(c)
		if d.Verdict != Run || !strings.HasPrefix(d.By, "rule from .loupe/settings.json: allow ") {
			t.Errorf("trusted workspace: %s %q %v: %v by %q", c.Tool, c.Command, c.Paths, d.Verdict, d.By)
		}
	}
	// Even a trusted workspace cannot lift protection or the user's denies.
	trusted.Rules = []Rule{{Effect: EffectDeny, Command: "rm *"}}
	if d := trusted.Decide(runCmd("rm -rf src")); d.Verdict != Refuse {
		t.Errorf("workspace allow beat the user's deny: %v", d.Verdict)
	}
	if d := trusted.Decide(Call{Tool: "write_file", Paths: []string{".loupe/settings.json"}}); d.Verdict != Ask || !d.OnceOnly {
		t.Errorf("writing the workspace settings: %v", d.Verdict)
	}
}

func TestWorkspaceSettingsMissing(t *testing.T) {
	s, err := LoadWorkspaceSettings(t.TempDir())
	if err != nil || s.Path != "" || len(s.Rules) != 0 {
		t.Fatalf("%+v %v", s, err)
	}
}

func TestWorkspaceSettingsMalformed(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"unknown field", "{\n  \"rulez\": []\n}", `unknown field "rulez"`},
		{"syntax", "{\n  \"rules\": [\n}", "line 3"},
		{"type", `{"host": 5}`, "line 1"},
		{"bad effect", `{"rules": [{"effect": "grant", "path": "x"}]}`, "effect must be"},
		{"bad command", `{"commands": ["ls; rm x"]}`, "one simple command"},
		{"bad host", `{"host": "file:///etc/passwd"}`, "not an http(s) URL"},
		{"two values", `{} {}`, "more than one JSON value"},
		{"empty", ``, "EOF"},
	} {
		ws := writeSettings(t, tc.body)
		s, err := LoadWorkspaceSettings(ws)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), ".loupe/settings.json ignored") {
			t.Errorf("%s: err = %v, want it to mention %q", tc.name, err, tc.want)
		}
		if len(s.Rules)+len(s.Commands) != 0 || s.Host != "" {
			t.Errorf("%s: settings kept: %+v", tc.name, s)
		}
	}
}

func TestWorkspaceSettingsNotARegularFile(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "settings.json")
	must(t, os.WriteFile(outside, []byte(proposal), 0o644))
	cases := map[string]func(p string) error{
		"directory": func(p string) error { return os.Mkdir(p, 0o755) },
		"symlink":   func(p string) error { return os.Symlink(outside, p) },
		"fifo":      func(p string) error { return syscall.Mkfifo(p, 0o644) },
	}
	for name, mk := range cases {
		ws := t.TempDir()
		must(t, os.MkdirAll(filepath.Join(ws, ".loupe"), 0o755))
		must(t, mk(filepath.Join(ws, ".loupe", "settings.json")))
		s, err := LoadWorkspaceSettings(ws)
		if err == nil || !strings.Contains(err.Error(), "not a regular file") || len(s.Rules) != 0 {
			t.Errorf("%s: %+v %v", name, s, err)
		}
	}
}

// A workspace's deny and ask rules only restrict, so they count before the
// user trusts the file (a fork's copy, a fresh clone): only its allow
// rules and commands wait for trust.
func TestAWorkspacesDenyAndAskRulesCountUntrusted(t *testing.T) {
	ws := writeSettings(t, `{"rules": [{"effect": "deny", "path": "secrets/**"}, {"effect": "ask", "tool": "list_dir"}, {"effect": "allow", "path": "**"}], "commands": ["make test"]}`)
	s, err := LoadWorkspaceSettings(ws)
	if err != nil {
		t.Fatal(err)
	}
	untrusted := Policy{Mode: ModeAuto, Workspace: ws, WorkspaceSettings: s}
	if d := untrusted.Decide(Call{Tool: "read_file", Paths: []string{"secrets/prod.key"}}); d.Verdict != Refuse || !strings.Contains(d.By, ".loupe/settings.json") {
		t.Errorf("an untrusted workspace's deny rule: %v by %q; want it refused by the rule", d.Verdict, d.By)
	}
	if d := untrusted.Decide(Call{Tool: "list_dir", Paths: []string{"src"}}); d.Verdict != Ask {
		t.Errorf("an untrusted workspace's ask rule: %v by %q", d.Verdict, d.By)
	}
	untrusted.Mode = ModeAsk
	if d := untrusted.Decide(Call{Tool: "write_file", Paths: []string{"main.go"}}); d.Verdict != Ask {
		t.Errorf("an untrusted workspace's allow rule granted a write: %v by %q", d.Verdict, d.By)
	}
	if d := untrusted.Decide(runCmd("make test")); d.Verdict != Ask {
		t.Errorf("an untrusted workspace's command ran without asking: %v by %q", d.Verdict, d.By)
	}
}
