package permission

import "testing"

// A grant for a file covers that file only: a command turning the file
// into a directory does not make the grant cover what goes in it. A
// grant for a directory still covers what is in it. Grants stored before
// the target was recorded are read by their tool.
func TestGrantForAFileCoversThatFileOnly(t *testing.T) {
	grant := func(c Call) Grant {
		t.Helper()
		g, err := GrantFor(c, true, ScopeSession)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	write := grant(Call{Tool: "write_file", Paths: []string{"x"}})
	list := grant(Call{Tool: "list_dir", ReadOnly: true, Paths: []string{"d"}})
	if write.Target != TargetFile || list.Target != TargetDir {
		t.Fatalf("targets: write %q, list %q", write.Target, list.Target)
	}
	stored := write
	stored.Target = "" // as kept before targets were recorded
	for _, tc := range []struct {
		name string
		g    Grant
		c    Call
		want Verdict
		mode Mode
	}{
		{"the file itself", write, Call{Tool: "write_file", Paths: []string{"x"}}, Run, ModeAsk},
		{"a path under a directory of its name", write, Call{Tool: "write_file", Paths: []string{"x/y"}}, Ask, ModeAsk},
		{"deeper", write, Call{Tool: "write_file", Paths: []string{"x/y/z"}}, Ask, ModeAsk},
		{"a stored grant without target", stored, Call{Tool: "write_file", Paths: []string{"x/y"}}, Ask, ModeAsk},
		{"a directory grant covers what is in it", list, Call{Tool: "list_dir", ReadOnly: true, Paths: []string{"d/sub"}}, Run, ModeAskAll},
	} {
		p := Policy{Mode: tc.mode, Grants: []Grant{tc.g}}
		if d := p.Decide(tc.c); d.Verdict != tc.want {
			t.Errorf("%s: %v by %q, want %v", tc.name, d.Verdict, d.By, tc.want)
		}
	}
	// A denial remembered for a file refuses that file, not a directory
	// of its name made later.
	no, err := GrantFor(Call{Tool: "write_file", Paths: []string{"x"}}, false, ScopeSession)
	if err != nil {
		t.Fatal(err)
	}
	p := Policy{Mode: ModeAuto, Grants: []Grant{no}}
	if d := p.Decide(Call{Tool: "write_file", Paths: []string{"x"}}); d.Verdict != Refuse {
		t.Errorf("denied file: %v", d.Verdict)
	}
	if d := p.Decide(Call{Tool: "write_file", Paths: []string{"x/y"}}); d.Verdict != Run {
		t.Errorf("a path under a denied file's name: %v", d.Verdict)
	}
}
