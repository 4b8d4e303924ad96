package permission

import "testing"

// Where the OS cannot confine commands, every command asks, once, whatever
// the mode, rules or grants say; other tools are decided as usual.
func TestUnconfinedCommandsAlwaysAsk(t *testing.T) {
	p := Policy{
		Mode:       ModeAuto,
		Workspace:  t.TempDir(),
		Unconfined: "Landlock is not available",
		Rules:      []Rule{{Effect: EffectAllow, Tool: RunCommand, Command: "echo *"}},
	}
	d := p.Decide(Call{Tool: RunCommand, Command: "echo hi"})
	if d.Verdict != Ask || !d.OnceOnly || len(d.Reasons) == 0 {
		t.Fatalf("unconfined command: %+v", d)
	}
	if d := p.Decide(Call{Tool: "read_file", ReadOnly: true, Paths: []string{"a.txt"}}); d.Verdict != Run {
		t.Fatalf("a read in auto mode: %+v", d)
	}
	p.Rules = append(p.Rules, Rule{Effect: EffectDeny, Tool: RunCommand, Command: "rm *"})
	if d := p.Decide(Call{Tool: RunCommand, Command: "rm x"}); d.Verdict != Refuse {
		t.Fatalf("deny must still refuse: %+v", d)
	}
}
