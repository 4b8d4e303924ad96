package permission

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// ToolSetting is a per-tool choice that overrides the mode for that tool.
type ToolSetting string

const (
	// ToolAlways runs the tool without asking, like auto mode for it:
	// deny rules and protected paths still apply.
	ToolAlways ToolSetting = "always"
	// ToolAsk asks before every call of the tool (allow rules and grants
	// still apply).
	ToolAsk ToolSetting = "ask"
	// ToolNever refuses every call of the tool.
	ToolNever ToolSetting = "never"
)

// Valid reports whether s is a known setting.
func (s ToolSetting) Valid() bool { return s == ToolAlways || s == ToolAsk || s == ToolNever }

// Policy is everything that decides whether a call runs, asks or is
// refused. It is a plain value: the session layer builds one per run from
// the user's settings, the grants it has stored and the workspace.
type Policy struct {
	// Mode is the session-wide default; empty means ModeAsk.
	Mode Mode `json:"mode"`
	// Tools overrides the mode per tool name.
	Tools map[string]ToolSetting `json:"tools,omitempty"`
	// Rules are the user's own rules (from Loupe's settings).
	Rules []Rule `json:"rules,omitempty"`
	// Grants are the user's remembered answers (this session's and this
	// workspace's), as returned by the broker in Answer.Grant.
	Grants []Grant `json:"grants,omitempty"`
	// Workspace is the workspace folder (absolute). It is used to place
	// absolute paths and to see through symlinks inside the workspace.
	// Without it, every absolute path counts as outside the workspace.
	Workspace string `json:"-"`
	// ProtectedFiles are Loupe's own files (settings, database), absolute.
	// When they lie inside the workspace, changing them always asks, as
	// do their SQLite companions (-wal, -shm, -journal).
	ProtectedFiles []string `json:"-"`
	// WorkspaceSettings are what the workspace's .loupe/settings.json
	// proposes. They count only when Trusted is set.
	WorkspaceSettings WorkspaceSettings `json:"-"`
	// Trusted is set by the session layer when the user has trusted this
	// workspace; until then WorkspaceSettings are ignored entirely.
	Trusted bool `json:"-"`
	// Unconfined, when set, says why commands cannot be confined by the
	// OS here; every command then asks, once, whatever the rules say.
	Unconfined string `json:"-"`
}

// Validate says what is wrong with the user's policy settings.
func (p Policy) Validate() error {
	var probs []string
	if p.Mode != "" && !p.Mode.Valid() {
		probs = append(probs, fmt.Sprintf("unknown permission mode %q (use %q, %q or %q)", p.Mode, ModeAskAll, ModeAsk, ModeAuto))
	}
	for tool, s := range p.Tools {
		if !s.Valid() {
			probs = append(probs, fmt.Sprintf("tool %s: setting must be always, ask or never, not %q", tool, s))
		}
	}
	for _, r := range p.Rules {
		if err := r.Validate(); err != nil {
			probs = append(probs, err.Error())
		}
	}
	if len(probs) > 0 {
		return fmt.Errorf("permission settings: %s", strings.Join(probs, "; "))
	}
	return nil
}

// Call is what the policy knows about one tool call. Build it with
// CallFor: only the tool's own declared arguments go into it.
type Call struct {
	Tool string `json:"tool"`
	// ReadOnly comes from the tool's definition, never from the model.
	ReadOnly bool `json:"read_only"`
	// Command is run_command's command.
	Command string `json:"command,omitempty"`
	// Paths are the tool's path arguments, cleaned, slash-separated,
	// relative to the workspace (or absolute, as the model sent them).
	Paths []string `json:"paths,omitempty"`
}

// Decision is the policy's answer for one call.
type Decision struct {
	Verdict Verdict `json:"verdict"`
	// By says who or which rule decided, shown as "Allowed by …" or
	// "Refused by …": "auto mode", "rule: deny .env*", "you (for this
	// session)". For Ask it names the rule or setting that asks, if any.
	By string `json:"by,omitempty"`
	// Reasons say why it asks (or why it was refused), in plain words for
	// the approval card.
	Reasons []string `json:"reasons,omitempty"`
	// OnceOnly is set when the answer must not be remembered (a protected
	// path, something a deny rule might cover): the card offers only
	// approve and deny.
	OnceOnly bool `json:"once_only,omitempty"`
}

// pathArgs are the argument names that hold paths, per built-in tool.
var pathArgs = map[string]string{
	"read_file":  "path",
	"write_file": "path",
	"edit_file":  "path",
	"list_dir":   "path",
	"grep":       "path",
	"glob":       "pattern",
}

// CallFor builds the Call for a tool call from the tool's own arguments:
// path for read_file, write_file, edit_file, list_dir and grep (grep
// without a path searches the whole workspace, "."), pattern for glob,
// command for run_command. Any other field the model sends ("safe",
// "cwd", "sandbox" …) is ignored and can never widen anything. The
// arguments are decoded with encoding/json exactly as the tools decode
// them (so a case-variant duplicate such as "PATH" is seen the same way).
// Other tools get a Call without paths.
func CallFor(tool string, args json.RawMessage, readOnly bool) (Call, error) {
	c := Call{Tool: tool, ReadOnly: readOnly}
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = json.RawMessage("{}")
	}
	switch arg, ok := pathArgs[tool]; {
	case tool == RunCommand:
		var in struct {
			Command string `json:"command"`
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return c, fmt.Errorf("permission: arguments of %s: %w", tool, err)
		}
		c.Command = in.Command
	case ok && arg == "path":
		var in struct {
			Path string `json:"path"`
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return c, fmt.Errorf("permission: arguments of %s: %w", tool, err)
		}
		c.Paths = []string{cleanPath(in.Path)}
	case ok && arg == "pattern":
		var in struct {
			Pattern string `json:"pattern"`
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return c, fmt.Errorf("permission: arguments of %s: %w", tool, err)
		}
		c.Paths = []string{cleanPath(in.Pattern)}
	}
	return c, nil
}

func cleanPath(p string) string {
	if p == "" {
		return "."
	}
	return path.Clean(filepath.ToSlash(p))
}

// ruleSet is the policy's rules compiled, by effect.
type ruleSet struct {
	deny, ask, allow []*compiled
	grants           []*compiled // allow grants alone, checked before ask rules
	broken           []brokenRule
}

type brokenRule struct {
	tool string
	why  string
}

func (p Policy) ruleSet() ruleSet {
	var rs ruleSet
	add := func(r Rule, by string, grant bool) {
		c, err := compileRule(r)
		if err != nil {
			if r.Effect != EffectAllow {
				tool := r.Tool
				if r.Command != "" || r.CommandLine != "" {
					tool = RunCommand
				}
				rs.broken = append(rs.broken, brokenRule{tool: tool, why: fmt.Sprintf("%s (so Loupe asks instead)", err)})
			}
			return
		}
		if by != "" {
			c.by = by
		}
		switch c.Effect {
		case EffectDeny:
			rs.deny = append(rs.deny, c)
		case EffectAsk:
			rs.ask = append(rs.ask, c)
		case EffectAllow:
			rs.allow = append(rs.allow, c)
			if grant {
				rs.grants = append(rs.grants, c)
			}
		}
	}
	for _, r := range p.Rules {
		add(r, "", false)
	}
	if p.Trusted {
		ws := p.WorkspaceSettings
		from := "rule from " + workspaceSettingsFile + ": "
		for _, r := range ws.Rules {
			add(r, from+r.String(), false)
		}
		for _, cmd := range ws.Commands {
			r := Rule{Effect: EffectAllow, Tool: RunCommand, Command: cmd}
			add(r, from+r.String(), false)
		}
	}
	for _, g := range p.Grants {
		if g.Scope == ScopeSession || g.Scope == ScopeWorkspace {
			add(g.Rule, g.Scope.by(), true)
		}
	}
	return rs
}

// paths is a call's paths placed in the workspace.
type paths struct {
	rel     []string // lexical, workspace-relative
	alias   []string // the same seen through symlinks, when different
	outside []string // as given, for paths that lead out of the workspace
}

func (ps paths) all() []string { return append(append([]string{}, ps.rel...), ps.alias...) }

func (p Policy) place(list []string) paths {
	var ps paths
	for _, q := range list {
		rel, alias, ok := p.placeOne(q)
		if !ok {
			ps.outside = append(ps.outside, q)
			continue
		}
		ps.rel = append(ps.rel, rel)
		if alias != "" && alias != rel {
			ps.alias = append(ps.alias, alias)
		}
	}
	return ps
}

// placeOne makes q workspace-relative. alias is q with symlinks resolved
// (for the part of it that exists), when a workspace is known.
func (p Policy) placeOne(q string) (rel, alias string, ok bool) {
	q = cleanPath(q)
	if path.IsAbs(q) || filepath.IsAbs(filepath.FromSlash(q)) {
		if p.Workspace == "" {
			return "", "", false
		}
		r, ok := p.relTo(filepath.FromSlash(q))
		if !ok {
			return "", "", false
		}
		q = r
	}
	if q == ".." || strings.HasPrefix(q, "../") {
		return "", "", false
	}
	if p.Workspace == "" {
		return q, "", true
	}
	real, err := filepath.EvalSymlinks(p.Workspace)
	if err != nil {
		return q, "", true
	}
	resolved := resolveExisting(filepath.Join(real, filepath.FromSlash(q)))
	r, err := filepath.Rel(real, resolved)
	if err != nil {
		return "", "", false
	}
	r = filepath.ToSlash(r)
	if r == ".." || strings.HasPrefix(r, "../") || filepath.IsAbs(r) {
		return "", "", false // a symlink leads out
	}
	return q, r, true
}

// relTo makes an absolute path relative to the workspace, as given or
// with its symlinks resolved.
func (p Policy) relTo(abs string) (string, bool) {
	bases := []string{p.Workspace}
	if real, err := filepath.EvalSymlinks(p.Workspace); err == nil {
		bases = append(bases, real)
	}
	for _, b := range bases {
		r, err := filepath.Rel(b, abs)
		if err != nil {
			continue
		}
		r = filepath.ToSlash(r)
		if r != ".." && !strings.HasPrefix(r, "../") && !filepath.IsAbs(r) {
			return r, true
		}
	}
	return "", false
}

// resolveExisting resolves symlinks in the longest existing prefix of p
// and appends the rest, so that a file about to be created is placed
// where its parent directory really is.
func resolveExisting(p string) string {
	var rest []string
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				r = filepath.Join(r, rest[i])
			}
			return r
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = append(rest, filepath.Base(cur))
		cur = parent
	}
}

// Built-in protected paths: changing them always asks, in every mode.
var builtinProtected = []string{
	"**/.git/config",
	"**/.git/hooks",
	".env*",
	"/.loupe", // workspace settings: the model must not trust itself
}

type protectedPath struct {
	pattern string
	pp      *pathPattern
	exact   string
}

func (p Policy) protectedPaths() []protectedPath {
	var out []protectedPath
	for _, pat := range builtinProtected {
		pp, err := compilePath(pat, true)
		if err != nil {
			panic(err)
		}
		out = append(out, protectedPath{pattern: pat, pp: pp})
	}
	if p.Workspace == "" {
		return out
	}
	for _, f := range p.ProtectedFiles {
		if f == "" {
			continue
		}
		cands := []string{f}
		if r, err := filepath.EvalSymlinks(f); err == nil {
			cands = append(cands, r)
		}
		for _, cand := range cands {
			if rel, ok := p.relTo(cand); ok {
				for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
					out = append(out, protectedPath{pattern: "Loupe's own file", exact: rel + suffix})
				}
			}
		}
	}
	return out
}

// protected says which protected pattern covers rel.
func protectedBy(list []protectedPath, rel string) (string, bool) {
	for _, pr := range list {
		if pr.pp != nil && pr.pp.match(rel) || pr.exact != "" && strings.EqualFold(pr.exact, rel) {
			return pr.pattern, true
		}
	}
	return "", false
}

// Decide says whether c runs, asks or is refused. In order:
//
//  1. Deny wins: a deny rule (or grant) that matches refuses, in every
//     mode; so does a tool set to never, and a path outside the
//     workspace. A deny rule that only might match (the shell expands
//     the words) or that covers a path the command mentions asks.
//  2. Changing a protected path asks, in every mode, every time.
//  3. A remembered allow grant runs.
//  4. An ask rule asks.
//  5. Allow rules run the call when they cover it whole: every path, or
//     every command of a command line that has nothing else to check.
//  6. The tool's setting (always, ask).
//  7. The mode: auto runs; ask_all asks; ask runs reads and asks for
//     the rest.
//
// In auto mode (and for tools set to always) a command that has parts
// Loupe cannot see asks when there are command deny rules to respect.
func (p Policy) Decide(c Call) Decision {
	d := p.decide(c)
	if c.Tool == RunCommand && p.Unconfined != "" && d.Verdict == Run {
		// Without OS confinement nothing but the user stands between a
		// command and the machine: ask every time, whatever allowed it.
		d = Decision{Verdict: Ask, OnceOnly: true, Reasons: append(d.Reasons, "commands are not sandboxed here: "+p.Unconfined)}
	}
	return d
}

func (p Policy) decide(c Call) Decision {
	rs := p.ruleSet()
	ps := p.place(c.Paths)
	if len(ps.outside) > 0 {
		return Decision{Verdict: Refuse, By: "rule: paths outside the workspace are refused",
			Reasons: []string{fmt.Sprintf("%s is outside the workspace", strings.Join(ps.outside, ", "))}}
	}
	if p.Tools[c.Tool] == ToolNever {
		return Decision{Verdict: Refuse, By: fmt.Sprintf("rule: %s is set to never", c.Tool)}
	}

	var a *analysis
	var mentions, writes []string
	if c.Tool == RunCommand {
		a = analyzeCommand(c.Command)
		mentions = p.place(a.mentions).all()
		writes = p.place(a.writes).all()
	}

	// 1. Deny.
	var once []string
	denyUnchecked := false
	for _, r := range rs.deny {
		if !r.appliesTo(c.Tool) {
			continue
		}
		switch {
		case r.cmd != nil:
			if a == nil {
				continue
			}
			if a.opaque {
				denyUnchecked = true
			}
			for _, cmd := range a.all {
				switch r.cmd.matchLoose(cmd.words) {
				case yesMatch:
					return Decision{Verdict: Refuse, By: r.by, Reasons: []string{fmt.Sprintf("it runs %s", cmd)}}
				case maybeMatch:
					once = appendNew(once, fmt.Sprintf("%s might be refused by %s: its words are only known when it runs", cmd, r.by))
				}
			}
		case r.line != "":
			if a != nil && canonicalCommand(c.Command) == r.line {
				return Decision{Verdict: Refuse, By: r.by}
			}
		case r.path != nil:
			for _, q := range ps.all() {
				if r.path.match(q) {
					return Decision{Verdict: Refuse, By: r.by, Reasons: []string{fmt.Sprintf("it touches %s", q)}}
				}
			}
			for _, q := range append(append([]string{}, writes...), mentions...) {
				if r.path.match(q) {
					once = appendNew(once, fmt.Sprintf("it mentions %s, which %s covers", q, r.by))
				}
			}
		default:
			return Decision{Verdict: Refuse, By: r.by}
		}
	}

	// 2. Protected paths.
	prot := p.protectedPaths()
	if !c.ReadOnly {
		for _, q := range ps.all() {
			if pat, ok := protectedBy(prot, q); ok {
				once = appendNew(once, fmt.Sprintf("%s is protected (%s): Loupe asks before every change to it", q, pat))
			}
		}
	}
	for _, q := range writes {
		if pat, ok := protectedBy(prot, q); ok {
			once = appendNew(once, fmt.Sprintf("it writes to %s, which is protected (%s)", q, pat))
		}
	}
	for _, q := range mentions {
		if pat, ok := protectedBy(prot, q); ok {
			once = appendNew(once, fmt.Sprintf("it mentions %s, which is protected (%s)", q, pat))
		}
	}
	if len(once) > 0 {
		return Decision{Verdict: Ask, Reasons: append(once, commandReasons(a, nil)...), OnceOnly: true}
	}

	// 3. Remembered grants.
	if by, ok, _ := allowedBy(rs.grants, c, ps, a, denyUnchecked); ok {
		return Decision{Verdict: Run, By: by}
	}

	// 4. Ask rules, and deny or ask rules that could not be read.
	for _, r := range rs.ask {
		if r.appliesTo(c.Tool) && askMatches(r, c, ps, a, mentions, writes) {
			return Decision{Verdict: Ask, By: r.by, Reasons: append([]string{"a rule asks for it (" + strings.TrimPrefix(r.by, "rule: ") + ")"}, commandReasons(a, nil)...)}
		}
	}
	var broken []string
	for _, b := range rs.broken {
		if b.tool == "" || b.tool == c.Tool {
			broken = append(broken, b.why)
		}
	}
	if len(broken) > 0 {
		return Decision{Verdict: Ask, Reasons: append(broken, commandReasons(a, nil)...)}
	}

	// 5. Allow rules.
	by, ok, missing := allowedBy(rs.allow, c, ps, a, denyUnchecked)
	if ok {
		return Decision{Verdict: Run, By: by}
	}

	unchecked := "parts of it cannot be checked against your deny rules"
	// 6. The tool's own setting.
	switch p.Tools[c.Tool] {
	case ToolAlways:
		if denyUnchecked {
			return Decision{Verdict: Ask, Reasons: append([]string{unchecked}, commandReasons(a, nil)...)}
		}
		return Decision{Verdict: Run, By: fmt.Sprintf("rule: %s is set to always", c.Tool)}
	case ToolAsk:
		return Decision{Verdict: Ask, By: fmt.Sprintf("rule: %s is set to ask", c.Tool), Reasons: p.askReasons(c, ps, a, missing)}
	}

	// 7. The mode.
	switch p.Mode {
	case ModeAuto:
		if denyUnchecked {
			return Decision{Verdict: Ask, Reasons: append([]string{unchecked}, commandReasons(a, nil)...)}
		}
		return Decision{Verdict: Run, By: "auto mode"}
	case ModeAskAll:
		return Decision{Verdict: Ask, Reasons: append([]string{"Ask every time is on"}, p.askReasons(c, ps, a, missing)...)}
	}
	if c.ReadOnly {
		return Decision{Verdict: Run, By: "rule: reads run without asking"}
	}
	return Decision{Verdict: Ask, Reasons: p.askReasons(c, ps, a, missing)}
}

// askReasons explains an ask that no rule caused.
func (p Policy) askReasons(c Call, ps paths, a *analysis, missing []*command) []string {
	if a != nil {
		return commandReasons(a, missing)
	}
	if c.ReadOnly {
		if len(ps.rel) > 0 {
			return []string{"it reads " + strings.Join(ps.rel, ", ")}
		}
		return nil
	}
	if len(ps.rel) > 0 {
		return []string{"it changes " + strings.Join(ps.rel, ", ")}
	}
	return []string{c.Tool + " can change things"}
}

// commandReasons says what about a command needs a person: the
// constructs no word rule vouches for, and the commands no rule allows.
func commandReasons(a *analysis, missing []*command) []string {
	if a == nil {
		return nil
	}
	out := append([]string{}, a.reasons...)
	if len(a.cmds) > 1 && len(missing) > 0 {
		out = append(out, fmt.Sprintf("it runs %d commands; each needs a rule to run without asking", len(a.cmds)))
	}
	if a.background {
		out = append(out, "it runs something in the background (&)")
	}
	const maxListed = 8
	for i, m := range missing {
		if i == maxListed {
			out = append(out, fmt.Sprintf("and %d more commands no rule allows", len(missing)-maxListed))
			break
		}
		out = appendNew(out, fmt.Sprintf("no rule allows %s", wordsText(m.self)))
	}
	return out
}

// askMatches reports whether an ask rule covers c (a might-match counts).
func askMatches(r *compiled, c Call, ps paths, a *analysis, mentions, writes []string) bool {
	switch {
	case r.cmd != nil:
		if a == nil {
			return false
		}
		for _, cmd := range a.all {
			if r.cmd.matchLoose(cmd.words) != noMatch {
				return true
			}
		}
		return false
	case r.line != "":
		return a != nil && canonicalCommand(c.Command) == r.line
	case r.path != nil:
		for _, q := range append(append(ps.all(), mentions...), writes...) {
			if r.path.match(q) {
				return true
			}
		}
		return false
	}
	return true
}

// allowedBy reports whether allow rules cover c entirely, and by which. For
// a command it also lists the commands that no rule allows.
func allowedBy(rules []*compiled, c Call, ps paths, a *analysis, denyUnchecked bool) (string, bool, []*command) {
	var bys []string
	for _, r := range rules {
		if r.Tool == c.Tool && r.cmd == nil && r.line == "" && r.path == nil {
			if a != nil && denyUnchecked {
				continue
			}
			return r.by, true, nil
		}
	}
	if a != nil {
		canon := canonicalCommand(c.Command)
		for _, r := range rules {
			if r.line != "" && r.line == canon {
				return r.by, true, nil
			}
		}
		var missing []*command
		for _, cmd := range a.cmds {
			missing = allowCommand(rules, cmd, &bys, missing)
		}
		if len(a.cmds) == 0 || len(missing) > 0 || len(a.reasons) > 0 {
			return "", false, missing
		}
		if len(bys) == 0 {
			return "rule: cd, true, false, : and pwd run without asking", true, nil
		}
		return strings.Join(bys, "; "), true, nil
	}
	all := ps.all()
	if len(all) == 0 {
		return "", false, nil
	}
	for _, q := range all {
		found := false
		for _, r := range rules {
			if r.path != nil && r.appliesTo(c.Tool) && r.path.match(q) {
				bys = appendNew(bys, r.by)
				found = true
				break
			}
		}
		if !found {
			return "", false, nil
		}
	}
	return strings.Join(bys, "; "), true, nil
}

// allowCommand checks one command and what it runs; it appends the ones
// no rule allows to missing.
func allowCommand(rules []*compiled, cmd *command, bys *[]string, missing []*command) []*command {
	if cmd.self != nil && !cmd.noRule {
		found := false
		for _, r := range rules {
			if r.cmd != nil && r.cmd.matchStrict(cmd.self) {
				*bys = appendNew(*bys, r.by)
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, cmd)
		}
	}
	for _, in := range cmd.inner {
		missing = allowCommand(rules, in, bys, missing)
	}
	return missing
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
