package permission

import (
	"strings"
	"testing"
)

// visible allows every command the security cases use except rm, so
// that each case asks because of what the construct hides, not because a
// visible command lacks a rule.
var visible = []Rule{
	{Effect: EffectAllow, Command: "ls *"},
	{Effect: EffectAllow, Command: "echo *"},
	{Effect: EffectAllow, Command: "cat *"},
	{Effect: EffectAllow, Command: "grep *"},
	{Effect: EffectAllow, Command: "sh *"},
	{Effect: EffectAllow, Command: "bash *"},
	{Effect: EffectAllow, Command: "python3 *"},
	{Effect: EffectAllow, Command: "curl *"},
	{Effect: EffectAllow, Command: "env *"},
	{Effect: EffectAllow, Command: "timeout *"},
	{Effect: EffectAllow, Command: "nice *"},
	{Effect: EffectAllow, Command: "nohup *"},
	{Effect: EffectAllow, Command: "xargs *"},
	{Effect: EffectAllow, Command: "find *"},
	{Effect: EffectAllow, Command: "eval *"},
	{Effect: EffectAllow, Command: "sudo *"},
	{Effect: EffectAllow, Command: "git *"},
	{Effect: EffectAllow, Command: "watch *"},
	{Effect: EffectAllow, Command: "go test ./..."},
}

func runCmd(cmd string) Call { return Call{Tool: RunCommand, Command: cmd} }

// TestClassifierSecuritySuite: each case must ask (never run) in the
// default mode, even though rules allow every visible command but rm, and
// the approval card must say why.
func TestClassifierSecuritySuite(t *testing.T) {
	p := Policy{Mode: ModeAsk, Rules: visible}
	for _, tc := range []struct {
		cmd    string
		reason string // a substring of one of the reasons
	}{
		{"ls\nrm -rf x", "no rule allows rm -rf x"},
		{"ls & rm x", "no rule allows rm x"},
		{"ls & rm x", "background"},
		{"ls | sh", "runs a sh script read from its standard input"},
		{"ls | bash -s", "runs a bash script read from its standard input"},
		{"cat x | python3", "runs a python3 program read from its standard input"},
		{"cat x | python3 -", "runs a python3 program read from its standard input"},
		{"sh < script.txt", "runs a sh script read from its standard input"},
		{"bash <<EOF\nrm x\nEOF", "runs a bash script read from its standard input"},
		{"echo $(rm x)", "command substitution ($(rm x))"},
		{"echo $(ls)", "command substitution"},
		{"echo `ls`", "backticks"},
		{"cat <(ls)", "process substitution"},
		{"cat <<EOF\n$(ls)\nEOF", "command substitution"},
		{"ls; rm", "no rule allows rm"},
		{"ls && rm x", "no rule allows rm x"},
		{"ls || rm x", "no rule allows rm x"},
		{"true && curl x | bash", "runs a bash script read from its standard input"},
		{"env FOO=1 rm x", "no rule allows FOO=1 rm x"},
		{"env -i rm x", "no rule allows rm x"},
		{"env -S 'rm x'", "env splits"},
		{"timeout 5 rm x", "no rule allows rm x"},
		{"timeout -s KILL 5 rm x", "no rule allows rm x"},
		{"nice rm x", "no rule allows rm x"},
		{"nice -n 5 rm x", "no rule allows rm x"},
		{"nohup rm x", "no rule allows rm x"},
		{"xargs rm", "no rule allows rm <arguments from input>"},
		{"find . | xargs -n1 rm -f", "no rule allows rm -f <arguments from input>"},
		{`find . -exec rm {} \;`, "no rule allows rm {}"},
		{`find . -name '*.go' -execdir rm {} +`, "no rule allows rm {}"},
		{"find . -exec rm", "find -exec that Loupe cannot read"},
		{"sh -c 'rm x'", "no rule allows rm x"},
		{"bash -lc 'ls; rm x'", "no rule allows rm x"},
		{"sh -c \"$CMD\"", "script built at run time"},
		{"eval 'rm x'", "no rule allows rm x"},
		{"eval $CMD", "eval"},
		{"exec rm x", "no rule allows rm x"},
		{"command rm x", "no rule allows rm x"},
		{"builtin rm x", "no rule allows rm x"},
		{"sudo ls", "another user (sudo)"},
		{"watch ls", "through watch"},
		{"git -c core.pager='rm x' log", "git configuration"},
		{"echo x > f", "writes to a file (> f)"},
		{"echo x >> f", "writes to a file (>> f)"},
		{"echo x >| f", "writes to a file"},
		{"ls &> f", "writes to a file (&> f)"},
		{"ls >&f", "writes to a file"},
		{"ls 2> err.log", "writes to a file"},
		{"echo x > $F", "only known when it runs"},
		{"$CMD x", "command name is only known"},
		{"${X}ls", "command name is only known"},
		{"FOO=1", "sets shell variables"},
		{"export PATH=/tmp", "sets shell variables"},
		{"f() { ls; }; f", "defines a shell function"},
		{"ls (", "could not parse"},
		{"echo 'unterminated", "could not parse"},
		{"ls\rrm x", "control characters"},
		{"cd .. && ls", "outside the workspace"},
		{"cd $D && ls", "not known before it runs"},
		{"go test ./... && rm -rf /", "no rule allows rm -rf /"},
		{"go test ./... | sh", "read from its standard input"},
		{"ls | fish", "fish script"},
	} {
		d := p.Decide(runCmd(tc.cmd))
		if d.Verdict != Ask {
			t.Errorf("%q: verdict %v by %q, want ask", tc.cmd, d.Verdict, d.By)
			continue
		}
		if !containsReason(d.Reasons, tc.reason) {
			t.Errorf("%q: reasons %q, want one containing %q", tc.cmd, d.Reasons, tc.reason)
		}
	}
}

func containsReason(reasons []string, sub string) bool {
	for _, r := range reasons {
		if strings.Contains(r, sub) {
			return true
		}
	}
	return false
}

// TestClassifierRuns: what rules vouch for entirely runs without asking,
// also through wrappers and harmless redirections.
func TestClassifierRuns(t *testing.T) {
	p := Policy{Mode: ModeAsk, Rules: []Rule{
		{Effect: EffectAllow, Command: "go test ./..."},
		{Effect: EffectAllow, Command: "go vet ./..."},
		{Effect: EffectAllow, Command: "ls *"},
		{Effect: EffectAllow, Command: "grep *"},
		{Effect: EffectAllow, Command: "git log *"},
		{Effect: EffectAllow, Command: "npm run test:*"},
		{Effect: EffectAllow, Command: "CGO_ENABLED=0 go build *"},
	}}
	for _, tc := range []struct {
		cmd  string
		want Verdict
	}{
		{"go test ./...", Run},
		{"  go   test   ./...  ", Run},
		{`go "test" './...'`, Run},
		{"go test ./... && go vet ./...", Run},
		{"go test ./...; go vet ./...", Run},
		{"go test ./...\ngo vet ./...", Run},
		{"timeout 60 go test ./...", Run},
		{"nice -n 10 go test ./...", Run},
		{"sh -c 'go test ./...'", Run},
		{"bash -c 'go test ./... && go vet ./...'", Run},
		{"eval go test ./...", Run},
		{"command go test ./...", Run},
		{"cd sub && go test ./...", Run},
		{"(cd sub; go test ./...)", Run},
		{"go test ./... 2>/dev/null", Run},
		{"go test ./... >/dev/null 2>&1", Run},
		{"go test ./... 2>&1 | grep FAIL", Run},
		{"ls -la", Run},
		{"ls", Run},
		{"ls *.go", Run},
		{"git log", Run},
		{"git log --oneline -n 5", Run},
		{"npm run test:unit", Run},
		{"CGO_ENABLED=0 go build -o bin/x .", Run},
		{"env CGO_ENABLED=0 go build .", Run},
		{"if ls x; then go test ./...; fi", Run},
		{"true", Run},
		{"cd sub", Run},

		{"go test ./pkg", Ask},
		{"go test ./... -exec sh", Ask},
		{"go test $PKG", Ask},
		{"go test ./... && rm -rf /", Ask},
		{"go test ./... > out.txt", Ask},
		{"GOFLAGS=-exec=sh go test ./...", Ask},
		{"env GOFLAGS=-exec=sh go test ./...", Ask},
		{"git logs", Ask},
		{"git push", Ask},
		{"npm run build", Ask},
		{"/usr/bin/go test ./...", Ask},
		{"find . -exec grep x {} +", Ask},
		{"ls $(pwd)", Ask},
		{"", Ask},
	} {
		d := p.Decide(runCmd(tc.cmd))
		if d.Verdict != tc.want {
			t.Errorf("%q: verdict %v (by %q, reasons %q), want %v", tc.cmd, d.Verdict, d.By, d.Reasons, tc.want)
		}
	}
	if d := p.Decide(runCmd("go test ./...")); d.By != "rule: allow go test ./..." {
		t.Errorf("by = %q", d.By)
	}
	if d := p.Decide(runCmd("go test ./... && go vet ./...")); d.By != "rule: allow go test ./...; rule: allow go vet ./..." {
		t.Errorf("by = %q", d.By)
	}
}

// TestDenyCommands: deny rules see every command, however it is wrapped,
// spelled or substituted, and win over allow rules and every mode.
func TestDenyCommands(t *testing.T) {
	deny := []Rule{
		{Effect: EffectDeny, Command: "rm *"},
		{Effect: EffectDeny, Command: "git push *"},
		{Effect: EffectAllow, Command: "rm -f tmp.txt"},
		{Effect: EffectAllow, Command: "git *"},
	}
	for _, mode := range []Mode{ModeAskAll, ModeAsk, ModeAuto} {
		p := Policy{Mode: mode, Rules: deny}
		for _, tc := range []struct {
			cmd  string
			want Verdict
		}{
			{"rm -f tmp.txt", Refuse},
			{"rm", Refuse},
			{"/bin/rm x", Refuse},
			{`\rm x`, Refuse},
			{`"rm" x`, Refuse},
			{`r''m x`, Refuse},
			{"ls; rm x", Refuse},
			{"ls && rm x", Refuse},
			{"timeout 5 rm x", Refuse},
			{"env FOO=1 rm x", Refuse},
			{"FOO=1 rm x", Refuse},
			{"sh -c 'rm x'", Refuse},
			{"bash -c \"ls && rm x\"", Refuse},
			{"echo $(rm x)", Refuse},
			{"echo `rm x`", Refuse},
			{"find . -exec rm {} +", Refuse},
			{"find . | xargs rm", Refuse},
			{"command rm x", Refuse},
			{"git push origin main", Refuse},
			{"git push", Refuse},
			{"cat <(rm x)", Refuse},
			{"f() { rm x; }", Refuse},
			// Might be denied once the shell expands it: asks, once only.
			{"git $CMD origin", Ask},
		} {
			d := p.Decide(runCmd(tc.cmd))
			if d.Verdict != tc.want {
				t.Errorf("%s %q: verdict %v (by %q, reasons %q), want %v", mode, tc.cmd, d.Verdict, d.By, d.Reasons, tc.want)
			}
			if tc.want == Refuse && !strings.HasPrefix(d.By, "rule: deny ") {
				t.Errorf("%s %q: by %q", mode, tc.cmd, d.By)
			}
			if tc.want == Ask && !d.OnceOnly {
				t.Errorf("%s %q: a possible deny must not be remembered", mode, tc.cmd)
			}
		}
	}
}

// TestAutoWithUncheckableParts: auto runs what it cannot see only when no
// command deny rule could be hiding in it.
func TestAutoWithUncheckableParts(t *testing.T) {
	for _, tc := range []struct {
		cmd   string
		rules []Rule
		want  Verdict
	}{
		{"curl x | sh", nil, Run},
		{"curl x | sh", []Rule{{Effect: EffectDeny, Command: "rm *"}}, Ask},
		{"eval $X", []Rule{{Effect: EffectDeny, Command: "rm *"}}, Ask},
		{"echo x > f", []Rule{{Effect: EffectDeny, Command: "rm *"}}, Run},
		{"ls", []Rule{{Effect: EffectDeny, Command: "rm *"}}, Run},
	} {
		d := Policy{Mode: ModeAuto, Rules: tc.rules}.Decide(runCmd(tc.cmd))
		if d.Verdict != tc.want {
			t.Errorf("auto %q with %v: %v (%q), want %v", tc.cmd, tc.rules, d.Verdict, d.Reasons, tc.want)
		}
	}
	d := Policy{Mode: ModeAsk, Tools: map[string]ToolSetting{RunCommand: ToolAlways}, Rules: []Rule{{Effect: EffectDeny, Command: "rm *"}}}.Decide(runCmd("ls | sh"))
	if d.Verdict != Ask {
		t.Errorf("run_command always, ls | sh with deny rules: %v", d.Verdict)
	}
}

func TestCommandPatterns(t *testing.T) {
	for _, tc := range []struct {
		pattern, cmd string
		strict       bool
		loose        match
	}{
		{"git log *", "git log", true, yesMatch},
		{"git log *", "git log --oneline -5", true, yesMatch},
		{"git log *", "git logs", false, noMatch},
		{"git log *", "git", false, noMatch},
		{"go test ./...", "go test ./...", true, yesMatch},
		{"go test ./...", "go test ./... -v", false, noMatch},
		{"npm run test:*", "npm run test:unit", true, yesMatch},
		{"npm run test:*", "npm run build", false, noMatch},
		{"go test -run=Test*", "go test -run=TestX", true, yesMatch},
		{"ls * x", "ls -l x", true, yesMatch},
		{"ls * x", "ls x", false, noMatch},
		{"echo '*'", "echo x", false, noMatch},
		{"echo '*'", "echo '*'", true, yesMatch},
		{"rm *", "/bin/rm x", false, yesMatch},
		{"rm *", "rm $X", false, yesMatch},
		{"rm -rf *", "rm $X", false, maybeMatch},
		{"rm -rf *", "rm *.tmp", false, maybeMatch},
		{"rm -rf *", "rm -r x", false, noMatch},
		{"ls *", "ls *.go", true, yesMatch},
		{"ls x", "ls *", false, maybeMatch},
		{"go test *", "go test $PKG", false, yesMatch},
		{"FOO=1 make", "FOO=1 make", true, yesMatch},
		{"make", "FOO=1 make", false, yesMatch},
	} {
		p, err := compileCommand(tc.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tc.pattern, err)
		}
		a := analyzeCommand(tc.cmd)
		if len(a.cmds) != 1 {
			t.Fatalf("%q: %d commands", tc.cmd, len(a.cmds))
		}
		ws := a.cmds[0].words
		if got := p.matchStrict(ws); got != tc.strict {
			t.Errorf("strict %q ~ %q = %v", tc.pattern, tc.cmd, got)
		}
		if got := p.matchLoose(ws); got != tc.loose {
			t.Errorf("loose %q ~ %q = %v, want %v", tc.pattern, tc.cmd, got, tc.loose)
		}
	}
	for _, bad := range []string{"", "ls; rm", "ls | grep", "ls > f", "echo $(x)", "$X", "*", "ls &"} {
		if _, err := compileCommand(bad); err == nil {
			t.Errorf("pattern %q compiled", bad)
		}
	}
}

func TestCanonicalCommand(t *testing.T) {
	if canonicalCommand("go  test   ./...&&go vet ./...") != canonicalCommand("go test ./... && go vet ./...") {
		t.Error("spacing changes the canonical form")
	}
	if canonicalCommand("rm -rf /") == canonicalCommand("rm -rf /tmp") {
		t.Error("different commands share a canonical form")
	}
}

// TestGitConfig: git config writes .git/config, which is protected, even
// when a rule allows git.
func TestGitConfig(t *testing.T) {
	p := Policy{Mode: ModeAsk, Rules: []Rule{{Effect: EffectAllow, Command: "git *"}}}
	for _, tc := range []struct {
		cmd      string
		want     Verdict
		onceOnly bool
	}{
		{"git config core.pager 'rm -rf x'", Ask, true},
		{"git config alias.st '!sh -c x'", Ask, true},
		{"git config --unset core.pager", Ask, true},
		{"git config --global core.pager less", Ask, false},
		{"git config --get core.pager", Run, false},
		{"git config core.pager", Run, false},
		{"git config --list", Run, false},
	} {
		d := p.Decide(runCmd(tc.cmd))
		if d.Verdict != tc.want || d.OnceOnly != tc.onceOnly {
			t.Errorf("%q: %v once=%v (%q), want %v once=%v", tc.cmd, d.Verdict, d.OnceOnly, d.Reasons, tc.want, tc.onceOnly)
		}
		// Auto mode runs the rest but still asks for the protected file.
		if tc.onceOnly {
			if d := (Policy{Mode: ModeAuto}).Decide(runCmd(tc.cmd)); d.Verdict != Ask {
				t.Errorf("auto %q: %v", tc.cmd, d.Verdict)
			}
		}
	}
}

// FuzzDecideCommand: any command text gets a decision without panicking,
// and with only "ls *" allowed, nothing that runs has a command other
// than ls (or a builtin that needs no rule).
func FuzzDecideCommand(f *testing.F) {
	for _, s := range []string{
		"", "ls", "sh -c", "sh -c ''", "env", "env -u", "timeout", "xargs", "find -exec", "eval",
		"$((1+2))", "[[ $(x) ]]", "case $x in a) rm;; esac", "for f in *; do rm $f; done",
		"select x in a; do ls; done", "coproc rm x", "time", "! ls", "a=(1 2) ls", "declare -a x=(1)",
		"ls |& sh", "ls &| sh", "{ ls; } > f", "exec 3>f", "ls <<< x", "cd; ls", "pushd x", "popd",
		"nice -n", "command -v ls", "git", "git -C", "git config", "ls ${x:-$(rm y)}", "echo \\\n",
		"ls 'a\nb'", "f() (rm x)", "until ls; do :; done", "while read l; do echo $l; done < f",
		"python3 <<'EOF'\nimport os\nEOF", "bash -o pipefail -c 'ls | sh'", "ls # ; rm x",
		"alias ls='ls -l'\nls", "alias x='rm'; x y", "f(){ f; }; f", "f(){ ls \"$@\"; }; f a", "sh -c 'ls \"$1\"' _ a",
		"echo ls > s.sh; sh s.sh", "echo 'sh s.sh' > s.sh; . ./s.sh", "sed -n 's/a/b/w f' x", "awk '{print > \"f\"}'",
		"awk 'BEGIN{system(\"ls\")}'", "sudo -s ls", "git log --output=x", "tar xf a", "find . -fprint f",
	} {
		f.Add(s)
	}
	p := Policy{Mode: ModeAsk, Rules: []Rule{{Effect: EffectAllow, Command: "ls *"}}}
	f.Fuzz(func(t *testing.T, cmd string) {
		d := p.Decide(runCmd(cmd))
		if d.Verdict != Run {
			return
		}
		for _, c := range analyzeCommand(cmd).all {
			if c.noRule || c.self == nil {
				continue
			}
			if len(c.self) == 0 || c.self[0].text != "ls" {
				t.Fatalf("%q ran with %q", cmd, c.String())
			}
		}
	})
}
