package permission

import "testing"

// The settings page judges a rule with Check: its text is String and its
// problem Validate's, so what the page says as the rule is typed is what
// saving it says.
func TestRuleCheckIsValidateAndString(t *testing.T) {
	for _, c := range []struct {
		rule          Rule
		text, problem string
	}{
		{Rule{Effect: "permit", Command: "ls"}, "permit ls", `rule "permit ls": effect must be allow, ask or deny`},
		{Rule{Effect: EffectAllow, Command: "ls", Path: "a"}, "allow ls", `rule "allow ls": give one of command, command_line and path`},
		{Rule{Effect: EffectAllow, Tool: "read_file", Command: "ls"}, "allow ls", `rule "allow ls": command patterns are for run_command, not read_file`},
		{Rule{Effect: EffectAllow, Command: "go test && rm -rf x"}, "allow go test && rm -rf x", `command pattern "go test && rm -rf x" must be one simple command with plain words`},
		{Rule{Effect: EffectAllow, Command: "echo $(id)"}, "allow echo $(id)", `command pattern "echo $(id)" must use plain words (no $ or substitutions)`},
		{Rule{Effect: EffectAllow, Command: "echo 'open"}, "allow echo 'open", "command pattern \"echo 'open\" does not parse: 1:6: reached EOF without closing quote `'`"},
		{Rule{Effect: EffectAllow, Command: "* foo"}, "allow * foo", `command pattern "* foo" must start with a command name`},
		{Rule{Effect: EffectDeny, Path: "/"}, "deny /", `rule "deny /": path pattern "/" is empty`},
		{Rule{Effect: EffectDeny, Path: "src/[ab"}, "deny src/[ab", `rule "deny src/[ab": path pattern "src/[ab" is not a valid glob`},
		// What a shell reads as one word is one word.
		{Rule{Effect: EffectAllow, Command: "grep -r 'a|b' ."}, "allow grep -r 'a|b' .", ""},
		{Rule{Effect: EffectAllow, Command: `echo "x; y"`}, `allow echo "x; y"`, ""},
		{Rule{Effect: EffectDeny, Path: `a\[b`}, `deny a\[b`, ""},
		{Rule{Effect: EffectAsk, CommandLine: "make   deploy"}, "ask make   deploy", ""},
		{Rule{Effect: EffectAllow, Tool: "write_file", Path: "docs/**"}, "allow write_file docs/**", ""},
		{Rule{Effect: EffectDeny}, "deny every tool", ""},
	} {
		got := c.rule.Check()
		if got.Text != c.text || got.Problem != c.problem {
			t.Errorf("%+v: %+v, want text %q problem %q", c.rule, got, c.text, c.problem)
		}
		if (got.Problem == "") != (c.rule.Validate() == nil) {
			t.Errorf("%+v: Check and Validate disagree", c.rule)
		}
	}
}
