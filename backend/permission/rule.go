package permission

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"mvdan.cc/sh/v3/syntax"
)

// Effect is what a rule does to the calls it matches.
type Effect string

const (
	// EffectAllow runs matching calls without asking.
	EffectAllow Effect = "allow"
	// EffectAsk asks, even when an allow rule or the mode would run it.
	EffectAsk Effect = "ask"
	// EffectDeny refuses; it wins over everything else.
	EffectDeny Effect = "deny"
)

// Valid reports whether e is a known effect.
func (e Effect) Valid() bool { return e == EffectAllow || e == EffectAsk || e == EffectDeny }

// Scope is how long a user's answer counts.
type Scope string

const (
	ScopeOnce      Scope = "once"      // this call only
	ScopeSession   Scope = "session"   // the rest of this session
	ScopeWorkspace Scope = "workspace" // always, in this workspace
)

// Valid reports whether s is a known scope.
func (s Scope) Valid() bool { return s == ScopeOnce || s == ScopeSession || s == ScopeWorkspace }

// by is how a grant of this scope is named in "Allowed by …".
func (s Scope) by() string {
	switch s {
	case ScopeSession:
		return "you (for this session)"
	case ScopeWorkspace:
		return "you (always for this workspace)"
	}
	return "you"
}

// Rule matches calls and says what to do with them. At most one of
// Command, CommandLine and Path is set; a rule with none of them matches
// every call of Tool.
//
//   - Command is a pattern for one simple command's words, e.g.
//     "go test ./..." or "git log *". A word that is a bare * at the end
//     matches any further words (none included); elsewhere a bare *
//     matches one word; a * inside a word matches any characters in that
//     word. Quoting works as in the shell ('a b' is one word; '*' is a
//     literal star). It applies to run_command, to every command the
//     classifier finds in it (each part of a chain, the command a wrapper
//     runs). Allow rules must match the command name exactly; deny and
//     ask rules whose name has no slash also match it by base name
//     (deny "rm *" matches "/bin/rm -r x").
//   - CommandLine matches one exact command line. An allow rule matches
//     only the same text (spaces, tabs and newlines at either end aside):
//     the parser's printed form can be equal for two lines bash reads
//     apart (it splits words at a carriage return, bash does not), and an
//     allow line vouches for what the classifier cannot see. Deny and ask
//     lines also match a line the parser prints the same way. The
//     broker's grants for run_command use it.
//   - Path is a doublestar glob relative to the workspace. As in
//     .gitignore, a pattern without a slash matches a name at any depth
//     (".env*" matches "sub/.env.local"); one with a slash is anchored at
//     the workspace root (a leading "/" only anchors). A pattern that
//     matches a directory matches everything under it. Deny, ask and
//     protected patterns match case-insensitively; allow patterns do not.
//     An allow rule needs every path of a call to match; deny and ask
//     rules need one.
type Rule struct {
	Effect Effect `json:"effect"`
	// Tool limits the rule to one tool; empty means any tool (a Command
	// or CommandLine rule implies run_command).
	Tool        string `json:"tool,omitempty"`
	Command     string `json:"command,omitempty"`
	CommandLine string `json:"command_line,omitempty"`
	Path        string `json:"path,omitempty"`
}

// String is the rule as the UI shows it after "rule: ".
func (r Rule) String() string {
	var what string
	switch {
	case r.Command != "":
		what = r.Command
	case r.CommandLine != "":
		what = r.CommandLine
	case r.Path != "":
		what = r.Path
		if r.Tool != "" {
			what = r.Tool + " " + what
		}
	default:
		what = r.Tool
		if what == "" {
			what = "every tool"
		}
	}
	return string(r.Effect) + " " + what
}

// Validate says what is wrong with a rule, in words for a settings page.
func (r Rule) Validate() error {
	_, err := compileRule(r)
	return err
}

// Grant is a user's answer remembered beyond one call: the session layer
// stores session and workspace grants and passes them back in
// Policy.Grants.
type Grant struct {
	Rule  Rule  `json:"rule"`
	Scope Scope `json:"scope"`
	// Target is what the path of a path grant named when it was given:
	// TargetFile (it covers that path only: a directory made later under
	// the same name is not covered) or TargetDir (the directory and what
	// is in it). Grants stored before it was recorded are read by their
	// tool (GrantTarget).
	Target string `json:"target,omitempty"`
}

// What a path grant was for.
const (
	TargetFile = "file"
	TargetDir  = "dir"
)

// fileTools take the path of one file: a grant for one of their calls is
// for that file.
var fileTools = map[string]bool{"read_file": true, "write_file": true, "edit_file": true}

// GrantTarget is what g's path covers: TargetFile, TargetDir, or "" for a
// grant without a path.
func GrantTarget(g Grant) string {
	switch {
	case g.Rule.Path == "":
		return ""
	case g.Target == TargetFile || g.Target == TargetDir:
		return g.Target
	case fileTools[g.Rule.Tool]:
		return TargetFile
	}
	return TargetDir
}

// GrantFor is the grant that remembers an answer about c: the exact
// command line for run_command, the exact paths for a tool with paths,
// the tool itself otherwise. It fails for ScopeOnce, which is not
// remembered.
func GrantFor(c Call, allow bool, scope Scope) (Grant, error) {
	if scope != ScopeSession && scope != ScopeWorkspace {
		return Grant{}, fmt.Errorf("permission: a %q answer is not remembered", scope)
	}
	r := Rule{Effect: EffectDeny, Tool: c.Tool}
	if allow {
		r.Effect = EffectAllow
	}
	switch {
	case c.Tool == RunCommand:
		if strings.TrimSpace(c.Command) == "" {
			return Grant{}, errors.New("permission: cannot remember an empty command")
		}
		r.CommandLine = c.Command
	case len(c.Paths) > 1:
		return Grant{}, errors.New("permission: cannot remember a call with several paths")
	case len(c.Paths) == 1:
		r.Path = "/" + escapeGlob(c.Paths[0])
	}
	if _, err := compileRule(r); err != nil {
		return Grant{}, err
	}
	g := Grant{Rule: r, Scope: scope}
	g.Target = GrantTarget(g)
	return g, nil
}

func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// RunCommand is the tool whose Command the classifier reads.
const RunCommand = "run_command"

// compiled is a rule ready to match.
type compiled struct {
	Rule
	by   string // "rule: allow go test ./..." or "you (for this session)"
	cmd  *cmdPattern
	line string // canonical CommandLine: what deny and ask lines also match
	raw  string // CommandLine as written, ends trimmed: what allow lines match
	path *pathPattern
}

func compileRule(r Rule) (*compiled, error) {
	if !r.Effect.Valid() {
		return nil, fmt.Errorf("rule %q: effect must be allow, ask or deny", r.String())
	}
	set := 0
	for _, s := range []string{r.Command, r.CommandLine, r.Path} {
		if s != "" {
			set++
		}
	}
	if set > 1 {
		return nil, fmt.Errorf("rule %q: give one of command, command_line and path", r.String())
	}
	if (r.Command != "" || r.CommandLine != "") && r.Tool != "" && r.Tool != RunCommand {
		return nil, fmt.Errorf("rule %q: command patterns are for %s, not %s", r.String(), RunCommand, r.Tool)
	}
	c := &compiled{Rule: r, by: "rule: " + r.String()}
	var err error
	switch {
	case r.Command != "":
		c.Tool = RunCommand
		c.cmd, err = compileCommand(r.Command)
	case r.CommandLine != "":
		c.Tool = RunCommand
		if _, perr := parseRule(r.CommandLine); perr != nil {
			err = fmt.Errorf("rule %q: %v", r.String(), perr)
		}
		c.line = canonicalCommand(r.CommandLine)
		c.raw = exactLine(r.CommandLine)
	case r.Path != "":
		c.path, err = compilePath(r.Path, r.Effect != EffectAllow)
		if err != nil {
			err = fmt.Errorf("rule %q: %w", r.String(), err)
		}
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// appliesTo reports whether the rule is about this tool at all.
func (c *compiled) appliesTo(tool string) bool { return c.Tool == "" || toolMatches(c.Tool, tool) }

// cmdPattern matches the words of one simple command.
type cmdPattern struct {
	words []patWord
	rest  bool // the last word is a bare *: any further words
}

type patWord struct {
	re      *regexp.Regexp
	bare    bool // a bare *: any one word
	slashed bool // contains a slash (a command name matched in full)
	assign  bool
	lit     string // the word without its wildcard stars
	text    string // the word as written (after NAME= for assignments)
}

func compileCommand(src string) (*cmdPattern, error) {
	f, err := parseRule(src)
	if err != nil {
		return nil, fmt.Errorf("command pattern %q does not parse: %v", src, err)
	}
	if len(f.Stmts) != 1 {
		return nil, fmt.Errorf("command pattern %q must be one simple command (rules for chains are checked part by part)", src)
	}
	s := f.Stmts[0]
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(s.Redirs) > 0 || s.Background || s.Negated || len(call.Args) == 0 {
		return nil, fmt.Errorf("command pattern %q must be one simple command with plain words", src)
	}
	p := &cmdPattern{}
	add := func(w *syntax.Word, prefix string, assign bool) error {
		var re strings.Builder
		var text, lit strings.Builder
		re.WriteString("^")
		re.WriteString(regexp.QuoteMeta(prefix))
		text.WriteString(prefix)
		bare := true
		for _, part := range w.Parts {
			switch x := part.(type) {
			case *syntax.Lit:
				v := x.Value
				for i := 0; i < len(v); i++ {
					switch {
					case v[i] == '\\' && i+1 < len(v):
						i++
						re.WriteString(regexp.QuoteMeta(v[i : i+1]))
						text.WriteByte(v[i])
						lit.WriteByte(v[i])
						bare = false
					case v[i] == '*':
						re.WriteString("(?s:.*)")
						text.WriteByte('*')
					default:
						re.WriteString(regexp.QuoteMeta(v[i : i+1]))
						text.WriteByte(v[i])
						lit.WriteByte(v[i])
						bare = false
					}
				}
			case *syntax.SglQuoted:
				if x.Dollar {
					return fmt.Errorf("command pattern %q must use plain words", src)
				}
				re.WriteString(regexp.QuoteMeta(x.Value))
				text.WriteString(x.Value)
				lit.WriteString(x.Value)
				bare = false
			case *syntax.DblQuoted:
				for _, dp := range x.Parts {
					l, ok := dp.(*syntax.Lit)
					if !ok || x.Dollar {
						return fmt.Errorf("command pattern %q must use plain words (no $ or substitutions)", src)
					}
					v := unescapeDbl(l.Value)
					re.WriteString(regexp.QuoteMeta(v))
					text.WriteString(v)
					lit.WriteString(v)
				}
				bare = false
			default:
				return fmt.Errorf("command pattern %q must use plain words (no $ or substitutions)", src)
			}
		}
		re.WriteString("$")
		bare = bare && text.String() == "*" && prefix == ""
		p.words = append(p.words, patWord{re: regexp.MustCompile(re.String()), bare: bare, slashed: strings.Contains(text.String(), "/"), assign: assign, lit: lit.String(), text: strings.TrimPrefix(text.String(), prefix)})
		return nil
	}
	for _, as := range call.Assigns {
		if as.Name == nil || as.Naked || as.Index != nil || as.Array != nil || as.Append {
			return nil, fmt.Errorf("command pattern %q: only NAME=value assignments", src)
		}
		val := as.Value
		if val == nil {
			val = &syntax.Word{}
		}
		if err := add(val, as.Name.Value+"=", true); err != nil {
			return nil, err
		}
	}
	for _, w := range call.Args {
		if err := add(w, "", false); err != nil {
			return nil, err
		}
	}
	if n := len(p.words); n > 0 && p.words[n-1].bare {
		p.rest = true
		p.words = p.words[:n-1]
	}
	name := 0
	for name < len(p.words) && p.words[name].assign {
		name++
	}
	if name == len(p.words) || p.words[name].bare {
		return nil, fmt.Errorf("command pattern %q must start with a command name", src)
	}
	return p, nil
}

// match is a three-way answer: deny and ask rules also care about what
// might match once the shell has expanded the words.
type match uint8

const (
	noMatch match = iota
	maybeMatch
	yesMatch
)

// matchStrict is for allow rules: every word must be known and match;
// words the shell expands only match a bare *.
func (p *cmdPattern) matchStrict(ws []word) bool {
	if !p.rest && len(ws) != len(p.words) || len(ws) < len(p.words) {
		return false
	}
	for i, w := range ws {
		if i >= len(p.words) {
			if w.kind == wDyn { // under the trailing *
				return false
			}
			continue
		}
		pw := p.words[i]
		switch {
		case w.kind == wDyn:
			return false
		case w.assign != pw.assign:
			return false
		case w.kind == wGlob:
			if !pw.bare {
				return false
			}
		case !pw.re.MatchString(w.text):
			return false
		}
	}
	return true
}

// names reports whether the pattern spells out each writer word of a
// command it matches strictly: the writer's word must stand under a
// pattern word of its own (not a * or the trailing *) that contains the
// writer's key. "sort -o * *" names sort -o; "sort *" does not.
func (p *cmdPattern) names(writers []writer) bool {
	for _, w := range writers {
		if w.at >= len(p.words) {
			return false
		}
		pw := p.words[w.at]
		if pw.bare || !strings.Contains(pw.lit, w.key) {
			return false
		}
	}
	return true
}

// matchLoose is for deny and ask rules: leading assignments are skipped,
// the command name matches by base name when the pattern's has no slash,
// and a command with words the shell expands matches "maybe" when its
// name matches.
func (p *cmdPattern) matchLoose(ws []word) match {
	pws := p.words
	for len(pws) > 0 && pws[0].assign {
		pws = pws[1:]
	}
	for len(ws) > 0 && ws[0].assign {
		ws = ws[1:]
	}
	if len(ws) == 0 || len(pws) == 0 {
		if len(pws) == 0 && p.rest {
			return yesMatch
		}
		return noMatch
	}
	name := ws[0]
	if name.kind == wDyn {
		return maybeMatch
	}
	text := name.text
	if !pws[0].slashed {
		text = path.Base(text)
	}
	if !pws[0].re.MatchString(text) {
		return noMatch
	}
	// unknown: a word the shell expands stands where the pattern wants
	// specific text (under a bare * or the trailing * anything goes).
	exact, unknown := true, false
	if len(ws) < len(pws) || !p.rest && len(ws) > len(pws) {
		exact = false
	}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		covered := i >= len(pws) && p.rest || i < len(pws) && pws[i].bare
		if w.kind != wLit && !covered {
			unknown = true
		}
		if i < len(pws) && !pws[i].bare && !pws[i].re.MatchString(w.text) {
			exact = false
		}
	}
	switch {
	case exact && !unknown:
		return yesMatch
	case exact || unknown:
		return maybeMatch
	}
	return noMatch
}

// pathPattern matches workspace-relative slash paths.
type pathPattern struct {
	pat      string
	anchored bool
	fold     bool
	// file: the pattern names one file, and covers that path only, not
	// what is under a directory of that name (a grant for a file).
	file bool
}

func compilePath(p string, fold bool) (*pathPattern, error) {
	orig := p
	p = strings.TrimSuffix(p, "/")
	anchored := strings.Contains(p, "/")
	p = strings.TrimPrefix(p, "/")
	p = strings.TrimPrefix(p, "./")
	if p == "" {
		return nil, fmt.Errorf("path pattern %q is empty", orig)
	}
	if fold {
		p = strings.ToLower(p)
	}
	if !doublestar.ValidatePattern(p) {
		return nil, fmt.Errorf("path pattern %q is not a valid glob", orig)
	}
	return &pathPattern{pat: p, anchored: anchored, fold: fold}, nil
}

// match reports whether p (clean, relative, slash-separated) or one of
// the directories above it matches.
func (pp *pathPattern) match(p string) bool {
	if pp.fold {
		p = strings.ToLower(p)
	}
	if pp.file {
		ok, _ := doublestar.Match(pp.pat, p)
		return pp.anchored && ok
	}
	if !pp.anchored {
		for _, part := range strings.Split(p, "/") {
			if ok, _ := doublestar.Match(pp.pat, part); ok {
				return true
			}
		}
		return false
	}
	for {
		if ok, _ := doublestar.Match(pp.pat, p); ok {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// RuleCheck is what the settings page shows of a rule as it is typed: the
// rule as Loupe names it (String) and what is wrong with it, in
// Validate's words ("" when nothing is), so that the page judges a rule
// exactly as saving it will.
type RuleCheck struct {
	Text    string `json:"text"`
	Problem string `json:"problem"`
}

// Check is the page's view of r.
func (r Rule) Check() RuleCheck {
	c := RuleCheck{Text: r.String()}
	if err := r.Validate(); err != nil {
		c.Problem = err.Error()
	}
	return c
}

// lineMatches reports whether a deny or ask line covers command: the same
// text, or a line the parser prints the same way (covering more is the
// safe side for a rule that refuses or asks).
func (c *compiled) lineMatches(command string) bool {
	return exactLine(command) == c.raw || canonicalCommand(command) == c.line
}
