package permission

import (
	"fmt"
	"path"
	"strings"
)

// This file says what command rules cannot hold: for a decision (the
// reason given when a command has parts Loupe cannot see) and for the
// settings page (RuleLimits).

// unseenRules names the command deny and ask rules for tool that a
// command with parts Loupe cannot see could get past; nil when a is not
// such a command.
func unseenRules(rs ruleSet, tool string, a *analysis) []string {
	if a == nil || !a.opaque {
		return nil
	}
	var names []string
	for _, list := range [][]*compiled{rs.deny, rs.ask} {
		for _, r := range list {
			if r.cmd != nil && r.appliesTo(tool) {
				names = appendNew(names, strings.TrimPrefix(r.by, "rule: "))
			}
		}
	}
	return names
}

// uncheckedReason is why a command with parts Loupe cannot see asks when
// command deny or ask rules exist.
func uncheckedReason(rs ruleSet, tool string, a *analysis) string {
	what := "parts of it"
	if a != nil && len(a.unseen) > 0 {
		what = strings.Join(a.unseen, ", ")
	}
	rules := unseenRules(rs, tool, a)
	if len(rules) == 0 {
		return "parts of it cannot be checked against your deny rules"
	}
	return fmt.Sprintf("Loupe cannot see what runs inside %s, so it cannot check your rules (%s) against it: it asks instead. A path rule (deny .env*) holds whatever runs",
		what, strings.Join(rules, "; "))
}

// RuleLimits says, for the settings page, what a rule cannot hold and
// which rules would hold it whatever runs.
type RuleLimits struct {
	// Limits are plain sentences, shown under the rule.
	Limits []string `json:"limits,omitempty"`
	// PathRules are deny path rules for the paths a command rule names
	// ("cat .env" → deny .env). They hold for every tool and every
	// command, since commands do not see a denied path: the page offers
	// to add them (Limits does not repeat them).
	PathRules []Rule `json:"path_rules,omitempty"`
}

// Limits says what r cannot hold. Command deny and ask rules are checked
// against the commands Loupe can see in a command line; what inline
// interpreter code, a script or make runs is not seen, so such commands
// ask (auto mode included) while the rule exists. A path rule holds for
// every command, since commands never see a denied path. A rule that does
// not compile has no limits to tell (Validate says what is wrong).
func (r Rule) Limits() RuleLimits {
	c, err := compileRule(r)
	if err != nil || r.Effect == EffectAllow {
		return RuleLimits{}
	}
	var l RuleLimits
	switch {
	case c.cmd != nil:
		verb := "refuse"
		if r.Effect == EffectAsk {
			verb = "ask about"
		}
		l.Limits = append(l.Limits, fmt.Sprintf(
			"Loupe cannot see inside inline interpreter code (python3 -c, perl -e, node -e), scripts (sh build.sh, ./run.sh, source env.sh), make or npm run, so this rule cannot %s what they run. While it exists, such commands ask instead of running, in auto mode too.", verb))
		l.PathRules = pathRulesFor(r.Command)
		if len(l.PathRules) == 0 {
			l.Limits = append(l.Limits, "To protect a file whatever runs, add a path rule for it (deny .env*): path rules hold for every tool and every command, since commands do not see a denied path.")
		}
	case c.line != "":
		l.Limits = append(l.Limits, fmt.Sprintf(
			"This rule matches only this exact command line: the same command written another way is not covered. A command pattern (%s %s) covers every spelling Loupe can see.", r.Effect, commandLinePattern(r.CommandLine)))
	}
	return l
}

// commandLinePattern suggests a command pattern for an exact line: its
// first simple command's name and a trailing *.
func commandLinePattern(line string) string {
	a := analyzeCommand(line)
	if len(a.cmds) == 0 {
		return "rm *"
	}
	for _, w := range a.cmds[0].words {
		if !w.assign && w.kind == wLit {
			return wordsText([]word{w}) + " *"
		}
	}
	return "rm *"
}

// pathRulesFor suggests deny path rules for the path-like words of a
// command pattern ("cat .env" → deny .env; "rm -rf build/*" → deny
// build/*). A word is path-like when it has a slash or a dot in a name;
// options, URLs, absolute paths, ~ and .. are left out.
func pathRulesFor(pattern string) []Rule {
	p, err := compileCommand(pattern)
	if err != nil {
		return nil
	}
	var out []Rule
	seen := map[string]bool{}
	name := true
	for _, w := range p.words {
		if w.assign {
			continue
		}
		if name {
			name = false
			continue
		}
		if w.bare {
			continue
		}
		t := w.text
		if strings.HasPrefix(t, "-") {
			_, v, ok := strings.Cut(t, "=")
			if !ok {
				continue
			}
			t = v
		}
		if q, ok := pathLike(t); ok && !seen[q] {
			if _, err := compilePath(q, true); err == nil {
				seen[q] = true
				out = append(out, Rule{Effect: EffectDeny, Path: q})
			}
		}
	}
	return out
}

// pathLike cleans a pattern word that looks like a workspace path: it
// has a slash (build/, src/main.go) or a dot in its name (.env, *.pem).
func pathLike(t string) (string, bool) {
	switch {
	case t == "" || t == "*" || strings.Contains(t, "://") || strings.ContainsAny(t, "@$~=:"):
		return "", false
	case strings.HasPrefix(t, "/"):
		return "", false // outside the workspace, or not portable
	case strings.Trim(t, "0123456789.") == "":
		return "", false // a number or a version
	}
	q := strings.TrimPrefix(strings.TrimSuffix(t, "/"), "./")
	if q == "" || q == "." || q == ".." || strings.HasPrefix(q, "../") || strings.Contains(q, "/../") {
		return "", false
	}
	dir := strings.HasSuffix(t, "/")
	if base := path.Base(q); !dir && !strings.Contains(q, "/") && !strings.Contains(base, ".") {
		return "", false
	}
	return q, true
}

// writerReasons explain why a rule for a command does not cover its
// writer words (sort -o, sed -i …).
func writerReasons(m *command) []string {
	var out []string
	for _, w := range m.writers {
		spell := w.key
		if w.at < len(m.self) && m.self[w.at].text == w.key {
			spell = wordsText([]word{m.self[w.at]})
		}
		out = append(out, fmt.Sprintf("it %s; a rule allows that only if it spells out %s", w.what, spell))
	}
	return out
}
