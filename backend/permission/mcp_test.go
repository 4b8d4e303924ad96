package permission

import (
	"strings"
	"testing"
)

func TestMCPToolsAskByDefault(t *testing.T) {
	ws := t.TempDir()
	for _, mode := range []Mode{ModeAsk, ModeAuto, ModeAskAll} {
		d := Policy{Mode: mode, Workspace: ws}.Decide(Call{Tool: "everything.echo"})
		if d.Verdict != Ask || !strings.Contains(strings.Join(d.Reasons, " "), "tool echo of MCP server everything") {
			t.Errorf("mode %s: %+v", mode, d)
		}
	}
	// A built-in tool in auto mode still runs.
	if d := (Policy{Mode: ModeAuto, Workspace: ws}).Decide(Call{Tool: "write_file", Paths: []string{"a.txt"}}); d.Verdict != Run {
		t.Errorf("write_file in auto mode: %+v", d)
	}
}

func TestMCPRulesPerServerAndPerTool(t *testing.T) {
	ws := t.TempDir()
	p := Policy{Mode: ModeAsk, Workspace: ws, Rules: []Rule{
		{Effect: EffectAllow, Tool: "everything.*"},
		{Effect: EffectDeny, Tool: "everything.zap"},
		{Effect: EffectAllow, Tool: "fs.read_text_file"},
	}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool string
		want Verdict
	}{
		{"everything.echo", Run},
		{"everything.zap", Refuse},
		{"fs.read_text_file", Run},
		{"fs.write_file", Ask},
		{"everythingelse.echo", Ask},
	}
	for _, c := range cases {
		if d := p.Decide(Call{Tool: c.tool}); d.Verdict != c.want {
			t.Errorf("%s: %+v, want %s", c.tool, d, c.want)
		}
	}
	// A remembered answer for one tool covers that tool only.
	g, err := GrantFor(Call{Tool: "fs.write_file"}, true, ScopeSession)
	if err != nil {
		t.Fatal(err)
	}
	p.Grants = []Grant{g}
	if d := p.Decide(Call{Tool: "fs.write_file"}); d.Verdict != Run {
		t.Errorf("granted: %+v", d)
	}
	if d := p.Decide(Call{Tool: "fs.move_file"}); d.Verdict != Ask {
		t.Errorf("not granted: %+v", d)
	}
}
