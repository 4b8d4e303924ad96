package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func call(t *testing.T, tool, args string, readOnly bool) Call {
	t.Helper()
	c, err := CallFor(tool, json.RawMessage(args), readOnly)
	if err != nil {
		t.Fatalf("CallFor(%s, %s): %v", tool, args, err)
	}
	return c
}

func TestCallForReadsOnlyDeclaredArguments(t *testing.T) {
	for _, tc := range []struct {
		tool, args string
		want       Call
	}{
		{"read_file", `{"path":"./src/../a.go","offset":3}`, Call{Tool: "read_file", Paths: []string{"a.go"}}},
		{"write_file", `{"path":"a.go","content":"x","safe":true,"cwd":"/","dir":"/etc","sandbox":false}`, Call{Tool: "write_file", Paths: []string{"a.go"}}},
		{"edit_file", `{"path":"sub/.env","old_string":"a","new_string":"b"}`, Call{Tool: "edit_file", Paths: []string{"sub/.env"}}},
		{"list_dir", `{"path":"."}`, Call{Tool: "list_dir", Paths: []string{"."}}},
		{"grep", `{"pattern":"TODO"}`, Call{Tool: "grep", Paths: []string{"."}}},
		{"grep", `{"pattern":"TODO","path":"pkg","include":"*.go"}`, Call{Tool: "grep", Paths: []string{"pkg"}}},
		{"glob", `{"pattern":"**/*.go","path":".env"}`, Call{Tool: "glob", Paths: []string{"**/*.go"}}},
		{"run_command", `{"command":"ls","cwd":"/","safe":true,"timeout_ms":5}`, Call{Tool: "run_command", Command: "ls"}},
		{"task", `{"prompt":"x","path":".env"}`, Call{Tool: "task"}},
		{"read_file", ``, Call{Tool: "read_file", Paths: []string{"."}}},
		// encoding/json matches names case-insensitively and the last one
		// wins: the tool would write .env, so that is the path.
		{"write_file", `{"path":"a.go","PATH":".env","content":""}`, Call{Tool: "write_file", Paths: []string{".env"}}},
	} {
		got := call(t, tc.tool, tc.args, false)
		if got.Tool != tc.want.Tool || got.Command != tc.want.Command || strings.Join(got.Paths, "|") != strings.Join(tc.want.Paths, "|") {
			t.Errorf("CallFor(%s, %s) = %+v, want %+v", tc.tool, tc.args, got, tc.want)
		}
	}
	if _, err := CallFor("read_file", json.RawMessage(`{"path":3}`), true); err == nil {
		t.Error("a non-string path was accepted")
	}
}

// TestModelFieldsCannotWiden: whatever extra fields the model adds, the
// decision is the one for the declared arguments.
func TestModelFieldsCannotWiden(t *testing.T) {
	p := Policy{Mode: ModeAsk, Rules: []Rule{{Effect: EffectDeny, Path: ".env*"}}}
	for _, tc := range []struct {
		tool, args string
		want       Verdict
	}{
		{"run_command", `{"command":"rm -rf x","safe":true,"approved":true,"sandbox":false}`, Ask},
		{"write_file", `{"path":"a.go","content":"","safe":true,"permission":"allow"}`, Ask},
		{"write_file", `{"path":".env","content":"","safe":true,"path_override":"a.go"}`, Refuse},
		{"write_file", `{"path":"a.go","PATH":".env","content":""}`, Refuse},
		{"read_file", `{"path":".env.local","read_only":true,"cwd":"/tmp"}`, Refuse},
	} {
		d := p.Decide(call(t, tc.tool, tc.args, tc.tool == "read_file"))
		if d.Verdict != tc.want {
			t.Errorf("%s %s: %v (%q), want %v", tc.tool, tc.args, d.Verdict, d.By, tc.want)
		}
	}
}

func TestModes(t *testing.T) {
	read := Call{Tool: "read_file", ReadOnly: true, Paths: []string{"a.go"}}
	write := Call{Tool: "write_file", Paths: []string{"a.go"}}
	cmd := runCmd("ls")
	for _, tc := range []struct {
		mode  Mode
		c     Call
		want  Verdict
		by    string
		tools map[string]ToolSetting
	}{
		{ModeAskAll, read, Ask, "", nil},
		{ModeAskAll, write, Ask, "", nil},
		{ModeAskAll, cmd, Ask, "", nil},
		{ModeAsk, read, Run, "rule: reads run without asking", nil},
		{ModeAsk, write, Ask, "", nil},
		{ModeAsk, cmd, Ask, "", nil},
		{"", read, Run, "rule: reads run without asking", nil},
		{"", write, Ask, "", nil},
		{ModeAuto, read, Run, "auto mode", nil},
		{ModeAuto, write, Run, "auto mode", nil},
		{ModeAuto, cmd, Run, "auto mode", nil},
		{ModeAskAll, read, Run, "rule: read_file is set to always", map[string]ToolSetting{"read_file": ToolAlways}},
		{ModeAsk, read, Ask, "rule: read_file is set to ask", map[string]ToolSetting{"read_file": ToolAsk}},
		{ModeAuto, write, Refuse, "rule: write_file is set to never", map[string]ToolSetting{"write_file": ToolNever}},
		{ModeAsk, write, Run, "rule: write_file is set to always", map[string]ToolSetting{"write_file": ToolAlways}},
	} {
		d := Policy{Mode: tc.mode, Tools: tc.tools}.Decide(tc.c)
		if d.Verdict != tc.want || d.By != tc.by {
			t.Errorf("%q %s %v: %v by %q, want %v by %q", tc.mode, tc.c.Tool, tc.tools, d.Verdict, d.By, tc.want, tc.by)
		}
	}
	if d := (Policy{Mode: ModeAskAll}).Decide(read); !containsReason(d.Reasons, "Ask every time") {
		t.Errorf("ask_all reasons %q", d.Reasons)
	}
	// An explicit allow rule still runs in ask_all.
	p := Policy{Mode: ModeAskAll, Rules: []Rule{{Effect: EffectAllow, Tool: "read_file", Path: "docs/**"}}}
	if d := p.Decide(Call{Tool: "read_file", ReadOnly: true, Paths: []string{"docs/a.md"}}); d.Verdict != Run || d.By != "rule: allow read_file docs/**" {
		t.Errorf("ask_all with an allow rule: %v by %q", d.Verdict, d.By)
	}
	if d := p.Decide(read); d.Verdict != Ask {
		t.Errorf("ask_all outside the rule: %v", d.Verdict)
	}
}

func TestPathRules(t *testing.T) {
	p := Policy{Mode: ModeAuto, Rules: []Rule{
		{Effect: EffectDeny, Path: ".env*"},
		{Effect: EffectDeny, Path: "**/*.pem"},
		{Effect: EffectDeny, Tool: "write_file", Path: "vendor"},
		{Effect: EffectAsk, Path: "/migrations/**"},
		{Effect: EffectAllow, Path: "**"},
	}}
	for _, tc := range []struct {
		c    Call
		want Verdict
		by   string
	}{
		{Call{Tool: "read_file", ReadOnly: true, Paths: []string{".env"}}, Refuse, "rule: deny .env*"},
		{Call{Tool: "read_file", ReadOnly: true, Paths: []string{"sub/.env.local"}}, Refuse, "rule: deny .env*"},
		{Call{Tool: "read_file", ReadOnly: true, Paths: []string{".ENV"}}, Refuse, "rule: deny .env*"},
		{Call{Tool: "read_file", ReadOnly: true, Paths: []string{"keys/a/b.pem"}}, Refuse, "rule: deny **/*.pem"},
		{Call{Tool: "read_file", ReadOnly: true, Paths: []string{"b.pem"}}, Refuse, "rule: deny **/*.pem"},
		{Call{Tool: "write_file", Paths: []string{"vendor/x/y.go"}}, Refuse, "rule: deny write_file vendor"},
		{Call{Tool: "read_file", ReadOnly: true, Paths: []string{"vendor/x/y.go"}}, Run, "rule: allow **"},
		{Call{Tool: "write_file", Paths: []string{"migrations/001.sql"}}, Ask, "rule: ask /migrations/**"},
		{Call{Tool: "write_file", Paths: []string{"sub/migrations/001.sql"}}, Run, "rule: allow **"},
		{Call{Tool: "glob", ReadOnly: true, Paths: []string{".env*"}}, Refuse, "rule: deny .env*"},
		// A command that mentions a denied path asks, once only.
		{runCmd("cat .env"), Ask, ""},
	} {
		d := p.Decide(tc.c)
		if d.Verdict != tc.want || d.By != tc.by {
			t.Errorf("%s %v %q: %v by %q (%q), want %v by %q", tc.c.Tool, tc.c.Paths, tc.c.Command, d.Verdict, d.By, d.Reasons, tc.want, tc.by)
		}
	}
}

// TestDenyWins: a deny rule beats an allow rule, a grant, a tool set to
// always and auto mode.
func TestDenyWins(t *testing.T) {
	c := Call{Tool: "write_file", Paths: []string{"secrets/k.txt"}}
	g, err := GrantFor(c, true, ScopeWorkspace)
	if err != nil {
		t.Fatal(err)
	}
	p := Policy{
		Mode:   ModeAuto,
		Tools:  map[string]ToolSetting{"write_file": ToolAlways},
		Rules:  []Rule{{Effect: EffectAllow, Path: "secrets/**"}, {Effect: EffectDeny, Path: "secrets"}},
		Grants: []Grant{g},
	}
	if d := p.Decide(c); d.Verdict != Refuse || d.By != "rule: deny secrets" {
		t.Errorf("%v by %q", d.Verdict, d.By)
	}
	cmd := runCmd("go test ./...")
	cg, _ := GrantFor(cmd, true, ScopeSession)
	p = Policy{Mode: ModeAuto, Rules: []Rule{{Effect: EffectAllow, Command: "go test ./..."}, {Effect: EffectDeny, Command: "go *"}}, Grants: []Grant{cg}}
	if d := p.Decide(cmd); d.Verdict != Refuse {
		t.Errorf("command: %v by %q", d.Verdict, d.By)
	}
}

// TestDecidePerCall: one denied call among three parallel calls does not
// change the others.
func TestDecidePerCall(t *testing.T) {
	p := Policy{Mode: ModeAsk, Rules: []Rule{
		{Effect: EffectDeny, Path: ".env*"},
		{Effect: EffectAllow, Command: "go test ./..."},
	}}
	calls := []Call{
		call(t, "read_file", `{"path":"main.go"}`, true),
		call(t, "read_file", `{"path":".env"}`, true),
		call(t, "run_command", `{"command":"go test ./..."}`, false),
	}
	want := []Verdict{Run, Refuse, Run}
	for i, c := range calls {
		if d := p.Decide(c); d.Verdict != want[i] {
			t.Errorf("call %d (%+v): %v, want %v", i, c, d.Verdict, want[i])
		}
	}
}

func TestProtectedPaths(t *testing.T) {
	ws := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, ".env"), []byte("K=v"), 0o600))
	must(t, os.Symlink(".env", filepath.Join(ws, "innocent.txt")))
	must(t, os.Symlink(".git", filepath.Join(ws, "g")))
	db := filepath.Join(ws, "data", "loupe.db")
	allowAll := []Rule{{Effect: EffectAllow, Path: "**"}, {Effect: EffectAllow, Command: "cp *"}, {Effect: EffectAllow, Command: "echo *"}}
	for _, mode := range []Mode{ModeAskAll, ModeAsk, ModeAuto} {
		p := Policy{Mode: mode, Workspace: ws, ProtectedFiles: []string{db}, Rules: allowAll,
			Tools: map[string]ToolSetting{"write_file": ToolAlways}}
		for _, c := range []Call{
			{Tool: "write_file", Paths: []string{".env.local"}}, // does not exist yet
			{Tool: "write_file", Paths: []string{".env"}},
			{Tool: "edit_file", Paths: []string{"sub/.env"}},
			{Tool: "write_file", Paths: []string{"a/b/.env.production"}},
			{Tool: "write_file", Paths: []string{".git/config"}},
			{Tool: "write_file", Paths: []string{".git/hooks/pre-commit"}}, // does not exist yet
			{Tool: "write_file", Paths: []string{"sub/.git/hooks/post-checkout"}},
			{Tool: "write_file", Paths: []string{".GIT/HOOKS/pre-push"}},
			{Tool: "write_file", Paths: []string{".git/config.worktree"}},
			{Tool: "write_file", Paths: []string{"sub/.git/config.worktree"}},
			{Tool: "write_file", Paths: []string{".git/modules/lib/config"}}, // a submodule's repository
			{Tool: "edit_file", Paths: []string{".git/modules/a/b/config"}},  // a nested submodule
			{Tool: "write_file", Paths: []string{".git/modules/lib/hooks/post-checkout"}},
			{Tool: "write_file", Paths: []string{".git/modules/lib/HEAD"}}, // would make the folder a repository
			{Tool: "write_file", Paths: []string{"vendor/x/.git/modules/y/hooks/pre-commit"}},
			{Tool: "write_file", Paths: []string{".loupe/settings.json"}},
			{Tool: "write_file", Paths: []string{"data/loupe.db-wal"}},
			{Tool: "write_file", Paths: []string{filepath.Join(ws, ".env")}},    // absolute
			{Tool: "write_file", Paths: []string{"innocent.txt"}},               // a symlink to .env
			{Tool: "write_file", Paths: []string{"g/hooks/pre-commit"}},         // through a symlinked directory
			{Tool: "write_file", Paths: []string{"x/../.git/hooks/pre-commit"}}, // CallFor cleans; Decide cleans again
			runCmd("echo x > .env.local"),
			runCmd("cp evil .git/hooks/pre-commit"),
			runCmd("cd .git && cp evil hooks/pre-commit"),
			runCmd("cp evil " + filepath.Join(ws, ".git", "config")),
		} {
			d := p.Decide(c)
			if d.Verdict != Ask || !d.OnceOnly {
				t.Errorf("%s: %s %v %q: %v by %q once=%v, want ask once", mode, c.Tool, c.Paths, c.Command, d.Verdict, d.By, d.OnceOnly)
			}
		}
		// Reads are not protected; an ordinary write runs by the rule.
		if d := p.Decide(Call{Tool: "read_file", ReadOnly: true, Paths: []string{".git/config"}}); d.Verdict != Run {
			t.Errorf("%s: reading .git/config: %v", mode, d.Verdict)
		}
		for _, q := range []string{"main.go", ".git/modules/lib/description", "docs/config"} {
			if d := p.Decide(Call{Tool: "write_file", Paths: []string{q}}); d.Verdict != Run {
				t.Errorf("%s: writing %s: %v %q", mode, q, d.Verdict, d.Reasons)
			}
		}
	}
}

func TestOutsideWorkspaceRefused(t *testing.T) {
	ws := t.TempDir()
	out := t.TempDir()
	must(t, os.Symlink(out, filepath.Join(ws, "out")))
	p := Policy{Mode: ModeAuto, Workspace: ws}
	for _, q := range []string{"../x", "/etc/passwd", "out/x", "out", "a/../../x"} {
		if d := p.Decide(Call{Tool: "read_file", ReadOnly: true, Paths: []string{q}}); d.Verdict != Refuse {
			t.Errorf("%s: %v", q, d.Verdict)
		}
	}
	if d := p.Decide(Call{Tool: "read_file", ReadOnly: true, Paths: []string{filepath.Join(ws, "a.go")}}); d.Verdict != Run {
		t.Errorf("absolute path inside: %v (%q)", d.Verdict, d.Reasons)
	}
	if d := (Policy{Mode: ModeAuto}).Decide(Call{Tool: "read_file", ReadOnly: true, Paths: []string{"/x/a.go"}}); d.Verdict != Refuse {
		t.Errorf("absolute path without a workspace: %v", d.Verdict)
	}
}

func TestGrants(t *testing.T) {
	b := NewBroker()
	asked := 0
	ask := func(c Call, onceOnly bool, reply func(id string)) Answer {
		t.Helper()
		asked++
		id := fmt.Sprint("c", asked)
		opened := make(chan struct{})
		done := make(chan Answer, 1)
		go func() {
			a, err := b.Request(context.Background(), Request{SessionID: "s", CallID: id, Tool: c.Tool, Call: &c, OnceOnly: onceOnly}, func() error { close(opened); return nil })
			if err != nil {
				t.Error(err)
			}
			done <- a
		}()
		<-opened
		reply(id)
		return <-done
	}
	cmd := runCmd("go test ./... && rm -rf build")
	write := Call{Tool: "write_file", Paths: []string{"a[1].go"}}

	once := ask(cmd, false, func(id string) { must(t, b.Reply("s", "", id, true, ScopeOnce)) })
	if !once.Allow || once.By != "you" || once.Scope != ScopeOnce || once.Grant != nil {
		t.Fatalf("once: %+v", once)
	}
	sess := ask(cmd, false, func(id string) { must(t, b.Reply("s", "", id, true, ScopeSession)) })
	if sess.By != "you (for this session)" || sess.Grant == nil || sess.Grant.Scope != ScopeSession {
		t.Fatalf("session: %+v", sess)
	}
	wsA := ask(write, false, func(id string) { must(t, b.Reply("s", "", id, true, ScopeWorkspace)) })
	if wsA.By != "you (always for this workspace)" || wsA.Grant == nil {
		t.Fatalf("workspace: %+v", wsA)
	}
	no := ask(Call{Tool: "write_file", Paths: []string{"b.go"}}, false, func(id string) { must(t, b.Reply("s", "", id, false, ScopeSession)) })

	p := Policy{Mode: ModeAsk, Grants: []Grant{*sess.Grant, *wsA.Grant, *no.Grant}}
	for _, tc := range []struct {
		c    Call
		want Verdict
		by   string
	}{
		{runCmd("go test ./... && rm -rf build"), Run, "you (for this session)"},
		{runCmd("  go test ./... && rm -rf build\n"), Run, "you (for this session)"},
		// A grant covers the line the card showed, as written: the
		// parser prints lines alike that bash reads apart.
		{runCmd("go test ./...  &&  rm -rf build"), Ask, ""},
		{runCmd("go test ./... && rm -rf /"), Ask, ""},
		{runCmd("rm -rf build"), Ask, ""},
		{write, Run, "you (always for this workspace)"},
		{Call{Tool: "write_file", Paths: []string{"a1.go"}}, Ask, ""},
		{Call{Tool: "write_file", Paths: []string{"sub/a[1].go"}}, Ask, ""},
		{Call{Tool: "edit_file", Paths: []string{"a[1].go"}}, Ask, ""},
		{Call{Tool: "write_file", Paths: []string{"b.go"}}, Refuse, "you (for this session)"},
	} {
		d := p.Decide(tc.c)
		if d.Verdict != tc.want || d.By != tc.by {
			t.Errorf("%s %v %q: %v by %q, want %v by %q", tc.c.Tool, tc.c.Paths, tc.c.Command, d.Verdict, d.By, tc.want, tc.by)
		}
	}
	// Once answers are not remembered; a policy without the grants asks.
	if d := (Policy{Mode: ModeAsk}).Decide(cmd); d.Verdict != Ask {
		t.Errorf("without grants: %v", d.Verdict)
	}
	// Grants beat ask rules (the user answered for exactly that call).
	p.Rules = []Rule{{Effect: EffectAsk, Command: "rm *"}}
	if d := p.Decide(cmd); d.Verdict != Run {
		t.Errorf("grant vs ask rule: %v", d.Verdict)
	}

	// A protected path cannot be remembered: the request stays open.
	done := make(chan Answer, 1)
	opened := make(chan struct{})
	go func() {
		c := Call{Tool: "write_file", Paths: []string{".env"}}
		a, _ := b.Request(context.Background(), Request{SessionID: "s", CallID: "env", Call: &c, OnceOnly: true}, func() error { close(opened); return nil })
		done <- a
	}()
	<-opened
	if err := b.Reply("s", "", "env", true, ScopeSession); !errors.Is(err, ErrOnceOnly) {
		t.Fatalf("session answer for a protected path: %v", err)
	}
	if err := b.Reply("s", "", "env", true, "forever"); err == nil {
		t.Fatal("unknown scope accepted")
	}
	// The refused answers left the question open: this one closes it.
	must(t, b.Reply("s", "", "env", true, ScopeOnce))
	if a := <-done; !a.Allow || a.Grant != nil {
		t.Fatalf("once answer: %+v", a)
	}
}

func TestGrantForAndRuleValidation(t *testing.T) {
	if _, err := GrantFor(runCmd("ls"), true, ScopeOnce); err == nil {
		t.Error("a once grant was made")
	}
	if _, err := GrantFor(runCmd("  "), true, ScopeSession); err == nil {
		t.Error("a grant for an empty command was made")
	}
	g, err := GrantFor(Call{Tool: "task"}, true, ScopeSession)
	if err != nil || g.Rule != (Rule{Effect: EffectAllow, Tool: "task"}) {
		t.Errorf("tool grant: %+v %v", g, err)
	}
	for _, r := range []Rule{
		{Effect: "maybe", Path: "x"},
		{Effect: EffectDeny, Path: "x", Command: "ls"},
		{Effect: EffectDeny, Tool: "read_file", Command: "ls"},
		{Effect: EffectDeny, Command: "ls $(x)"},
		{Effect: EffectDeny, Path: "[x"},
		{Effect: EffectDeny, CommandLine: "ls ("},
	} {
		if r.Validate() == nil {
			t.Errorf("rule %+v validated", r)
		}
	}
	if err := (Policy{Mode: "yolo", Tools: map[string]ToolSetting{"x": "sometimes"}}).Validate(); err == nil {
		t.Error("bad policy validated")
	}
	// A deny rule that does not compile makes its tool ask, even in auto.
	p := Policy{Mode: ModeAuto, Rules: []Rule{{Effect: EffectDeny, Command: "rm $(x)"}}}
	if d := p.Decide(runCmd("ls")); d.Verdict != Ask {
		t.Errorf("broken deny rule: %v", d.Verdict)
	}
	if d := p.Decide(Call{Tool: "read_file", ReadOnly: true, Paths: []string{"a"}}); d.Verdict != Run {
		t.Errorf("broken command rule affects read_file: %v", d.Verdict)
	}
}

func TestVerdictJSON(t *testing.T) {
	b, err := json.Marshal(Decision{Verdict: Refuse, By: "rule: deny x"})
	if err != nil || string(b) != `{"verdict":"refuse","by":"rule: deny x"}` {
		t.Fatalf("%s %v", b, err)
	}
	var d Decision
	if err := json.Unmarshal(b, &d); err != nil || d.Verdict != Refuse {
		t.Fatalf("%+v %v", d, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestDenySeesThroughSymlinks: a link inside the workspace to a denied
// file is denied too.
func TestDenySeesThroughSymlinks(t *testing.T) {
	ws := t.TempDir()
	must(t, os.WriteFile(filepath.Join(ws, "id.pem"), []byte("k"), 0o600))
	must(t, os.Symlink("id.pem", filepath.Join(ws, "notes.txt")))
	p := Policy{Mode: ModeAuto, Workspace: ws, Rules: []Rule{{Effect: EffectDeny, Path: "*.pem"}}}
	if d := p.Decide(Call{Tool: "read_file", ReadOnly: true, Paths: []string{"notes.txt"}}); d.Verdict != Refuse {
		t.Errorf("read through a symlink: %v", d.Verdict)
	}
	if d := p.Decide(Call{Tool: "read_file", ReadOnly: true, Paths: []string{"other.txt"}}); d.Verdict != Run {
		t.Errorf("unrelated file: %v", d.Verdict)
	}
}
