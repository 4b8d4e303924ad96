package permission

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRuleLimits(t *testing.T) {
	for _, tc := range []struct {
		rule      Rule
		limit     string // a substring of one of the sentences; "" for none
		pathRules string // the suggested paths, joined with |
	}{
		{Rule{Effect: EffectDeny, Command: "cat .env"}, "cannot see inside inline interpreter code", ".env"},
		{Rule{Effect: EffectDeny, Command: "rm -rf build/"}, "cannot refuse what they run", "build"},
		{Rule{Effect: EffectDeny, Command: "cat *.pem secrets/key.txt"}, "", "*.pem|secrets/key.txt"},
		{Rule{Effect: EffectDeny, Command: "cat ./config/prod.yaml"}, "", "config/prod.yaml"},
		{Rule{Effect: EffectDeny, Command: "git push *"}, "add a path rule for it (deny .env*)", ""},
		{Rule{Effect: EffectDeny, Command: "curl https://example.com/x.sh"}, "cannot see inside", ""},
		{Rule{Effect: EffectDeny, Command: "cat ~/.ssh/id_rsa /etc/passwd ../up.txt"}, "cannot see inside", ""},
		{Rule{Effect: EffectDeny, Command: "pip install foo==1.2"}, "cannot see inside", ""},
		{Rule{Effect: EffectDeny, Command: "sort --output=out.txt *"}, "", "out.txt"},
		{Rule{Effect: EffectAsk, Command: "git push *"}, "cannot ask about what they run", ""},
		{Rule{Effect: EffectDeny, CommandLine: "rm -rf build"}, "only this exact command line", ""},
		{Rule{Effect: EffectDeny, CommandLine: "rm -rf build"}, "(deny rm *)", ""},
		{Rule{Effect: EffectAllow, Command: "go test ./..."}, "", ""},
		{Rule{Effect: EffectDeny, Path: ".env*"}, "", ""},
		{Rule{Effect: EffectDeny, Tool: "write_file"}, "", ""},
		{Rule{Effect: EffectDeny, Command: "rm $(x)"}, "", ""}, // does not compile: Validate says why
	} {
		l := tc.rule.Limits()
		var paths []string
		for _, r := range l.PathRules {
			if r.Effect != EffectDeny || r.Command != "" || r.Tool != "" || r.Validate() != nil {
				t.Errorf("%v: suggested %+v", tc.rule, r)
			}
			paths = append(paths, r.Path)
		}
		if got := strings.Join(paths, "|"); got != tc.pathRules {
			t.Errorf("%v: path rules %q, want %q", tc.rule, got, tc.pathRules)
		}
		if tc.limit == "" {
			if len(l.Limits) > 0 && (tc.rule.Effect == EffectAllow || tc.rule.Command == "" && tc.rule.CommandLine == "") {
				t.Errorf("%v: limits %q, want none", tc.rule, l.Limits)
			}
			continue
		}
		if !containsReason(l.Limits, tc.limit) {
			t.Errorf("%v: limits %q, want one containing %q", tc.rule, l.Limits, tc.limit)
		}
	}
}

// TestSuggestedPathRuleHolds: the suggested path rule refuses the file
// for the tools and asks for the commands that mention it, where the
// command rule alone is blind (inline code).
func TestSuggestedPathRuleHolds(t *testing.T) {
	cmdRule := Rule{Effect: EffectDeny, Command: "cat .env"}
	l := cmdRule.Limits()
	if len(l.PathRules) != 1 {
		t.Fatalf("path rules %+v", l.PathRules)
	}
	p := Policy{Mode: ModeAuto, Rules: []Rule{cmdRule, l.PathRules[0]}}
	if d := p.Decide(Call{Tool: "read_file", ReadOnly: true, Paths: []string{"sub/.env"}}); d.Verdict != Refuse {
		t.Errorf("read_file .env: %v", d.Verdict)
	}
	if d := p.Decide(runCmd("python3 -c 'print(open(\".env\").read())'")); d.Verdict != Ask {
		t.Errorf("inline code mentioning .env: %v", d.Verdict)
	}
}

func TestRuleLimitsJSON(t *testing.T) {
	b, err := json.Marshal(Rule{Effect: EffectDeny, Command: "cat .env"}.Limits())
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Limits    []string `json:"limits"`
		PathRules []Rule   `json:"path_rules"`
	}
	if err := json.Unmarshal(b, &back); err != nil || len(back.Limits) != 1 || len(back.PathRules) != 1 || back.PathRules[0].Path != ".env" {
		t.Fatalf("%s: %+v %v", b, back, err)
	}
	if b, _ := json.Marshal(Rule{Effect: EffectDeny, Path: ".env"}.Limits()); string(b) != "{}" {
		t.Errorf("a path rule has limits: %s", b)
	}
}
