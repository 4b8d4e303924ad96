package permission

import (
	"strings"
)

// This file marks what runs code Loupe cannot read: interpreters given
// inline code or a script, shells given a script file, source, programs
// started from the workspace, make and package scripts, test runners,
// environment variables that load code. Such a command is opaque: deny
// rules cannot be checked against what it runs, so where they would
// decide (auto mode, a tool set to always, an allow rule) it asks
// instead. With no command deny or ask rules it changes nothing. It also
// unwraps the commands that sudo-like tools and other runners start, so
// that deny rules see them.

// infoArgs only ask a program about itself.
var infoArgs = map[string]bool{"--version": true, "-V": true, "--help": true, "-h": true, "-version": true, "-v": true}

func onlyInfo(args []word) bool {
	for _, w := range args {
		if w.kind != wLit || !infoArgs[w.text] {
			return false
		}
	}
	return len(args) > 0
}

// interpreter notes code an interpreter runs (one that reads its program
// from its input is judged in build: that input is never known).
func (c *classifier) interpreter(base string, args []word) {
	if onlyInfo(args) {
		return
	}
	for _, w := range args {
		if w.kind != wLit {
			break
		}
		t := w.text
		if t == "-m" {
			c.a.unseenPart("%s -m (a module's code)", base)
			return
		}
		if strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.ContainsAny(t[1:], "ceEr") || t == "--eval" || t == "--print" || t == "--command" {
			c.a.unseenPart("%s %s (inline interpreter code)", base, t)
			return
		}
		if !strings.HasPrefix(t, "-") {
			c.a.unseenPart("%s %s (a script)", base, t)
			return
		}
	}
	c.a.unseenPart("%s (code Loupe cannot read)", base)
}

// projectRunners run code from the workspace (a Makefile, package.json
// scripts, tests): for each, the subcommands that do; nil means every use
// but asking for the version or help.
var projectRunners = map[string][]string{
	"make": nil, "gmake": nil, "bmake": nil, "ninja": nil, "just": nil, "rake": nil, "gradle": nil,
	"mvn": nil, "ant": nil, "scons": nil, "meson": nil, "cmake": nil, "bazel": nil, "bazelisk": nil,
	"pytest": nil, "tox": nil, "nox": nil, "npx": nil, "pnpx": nil, "bunx": nil, "yarn": nil,
	"m4": nil, "dc": nil, "sqlite3": nil, "java": nil, "prettier": nil,
	"npm": {"run", "run-script", "rum", "urn", "test", "t", "tst", "start", "stop", "restart", "exec", "x",
		"install", "i", "ci", "add", "rebuild", "install-test", "it", "install-ci-test", "cit", "pack", "publish"},
	"pnpm":   {"run", "run-script", "test", "t", "start", "stop", "restart", "exec", "dlx", "x", "install", "i", "add", "rebuild", "pack", "publish", "create"},
	"go":     {"run", "test", "generate", "tool"},
	"cargo":  {"run", "r", "test", "t", "bench", "build", "b", "check", "c", "clippy", "install", "fix", "doc", "d", "rustc"},
	"dotnet": {"run", "test", "build"},
	"swift":  {"run", "test", "build"},
}

// projectRunner notes a command that runs the workspace's own code.
func (c *classifier) projectRunner(base string, args []word) {
	subs, ok := projectRunners[base]
	if !ok || onlyInfo(args) {
		return
	}
	if subs == nil {
		if len(args) == 0 && base == "java" {
			return // prints its usage
		}
		if len(args) == 0 {
			// dc's !, sqlite3's .shell, m4's syscmd: what its input
			// holds runs, and that input is never known to be empty.
			c.a.unseenPart("%s (it runs what its input holds, which Loupe does not see)", base)
			return
		}
		c.a.unseenPart("%s (the commands it runs come from files Loupe does not read)", base)
		return
	}
	for _, w := range args {
		switch {
		case w.kind == wDyn:
			c.a.unseenPart("%s %s (a subcommand only known when it runs)", base, w.text)
			return
		case contains(subs, w.text):
			c.a.unseenPart("%s %s (it runs code from the workspace)", base, w.text)
			return
		case base == "go" && (strings.HasPrefix(w.text, "-exec") || strings.HasPrefix(w.text, "-toolexec") || strings.HasPrefix(w.text, "-vettool")):
			c.a.unseenPart("go %s (it runs the program it names)", w.text)
			return
		}
	}
}

// systemProgram reports whether an absolute command name is a program of
// the system rather than one from the workspace.
func systemProgram(p string) bool {
	for _, d := range []string{"/usr/", "/bin/", "/sbin/", "/nix/store/", "/opt/homebrew/", "/snap/bin/"} {
		if strings.HasPrefix(p, d) {
			return true
		}
	}
	return false
}

// Environment variables a command's assignments may set.
var (
	// codeVars make programs load code Loupe does not read.
	codeVars = map[string]bool{
		"PATH": true, "LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true, "DYLD_INSERT_LIBRARIES": true,
		"BASH_ENV": true, "ENV": true, "NODE_OPTIONS": true, "PERL5OPT": true, "PERL5LIB": true, "RUBYOPT": true,
		"RUBYLIB": true, "PYTHONSTARTUP": true, "PYTHONPATH": true, "GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_COUNT": true,
		"GIT_EXEC_PATH": true, "GOFLAGS": true, "MAKEFLAGS": true,
		// Where programs read settings that can run commands (git's
		// aliases, fsmonitor, textconv; a shell's startup files): a file
		// the script itself wrote becomes one of them.
		"HOME": true, "XDG_CONFIG_HOME": true, "GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true, "GIT_CONFIG": true,
	}
	// commandVars hold a command that programs run through a shell;
	// true when they give it arguments of their own (an editor, the file).
	commandVars = map[string]bool{
		"PAGER": false, "MANPAGER": false, "GIT_PAGER": false, "PROMPT_COMMAND": false,
		"EDITOR": true, "VISUAL": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true, "GIT_SSH_COMMAND": true,
		"GIT_SSH": true, "GIT_EXTERNAL_DIFF": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true,
		"BROWSER": true, "LESSOPEN": true, "LESSCLOSE": true,
	}
)

// envWords reads a command's assignments for variables that run code.
func (c *classifier) envWords(cmd *command, env []word) {
	for _, w := range env {
		name, val, _ := strings.Cut(w.text, "=")
		name = strings.TrimSuffix(name, "+")
		switch {
		case codeVars[name]:
			c.a.unseenPart("%s=… (code it makes programs load)", name)
		default:
			withArgs, ok := commandVars[name]
			v := strings.TrimLeft(val, "|")
			switch {
			case !ok:
			case w.kind == wDyn:
				c.a.unseenPart("%s=… (a command only known when it runs)", name)
			case v != "" && withArgs:
				c.runsShellOn(cmd, word{text: v}, name)
			case v != "":
				c.runsShell(cmd, word{text: v}, name)
			}
		}
	}
}

// asUser runs a command as another user: it always asks (the reason),
// and the command it runs is unwrapped for deny rules.
func (c *classifier) asUser(cmd *command, base string, env, args []word) {
	c.a.reason("it runs a command as another user (%s)", base)
	c.a.opaque = true
	var rest []word
	viaShell := false
	switch base {
	case "sudo":
		rest, viaShell = sudoArgs(args)
	case "doas":
		rest, _ = skipOptions(args, "nsLuC", "uC", nil, nil)
	case "pkexec":
		rest, _ = skipOptions(args, "", "", []string{"--disable-internal-agent", "--keep-cwd"}, []string{"--user"})
	case "su", "runuser", "sg":
		for j, w := range args {
			name, val, attached := strings.Cut(w.text, "=")
			if w.text == "-c" || name == "--command" || name == "--session-command" {
				if attached {
					c.runsShell(cmd, word{text: val, kind: w.kind}, base+" -c")
				} else if j+1 < len(args) {
					c.runsShell(cmd, args[j+1], base+" -c")
				}
				return
			}
			if w.text == "--" && base == "runuser" {
				rest = args[j+1:]
				break
			}
		}
		if base == "sg" && len(args) > 1 {
			rest, viaShell = args[1:], true
		}
	}
	if len(rest) == 0 {
		c.denyCandidates(args)
		return
	}
	if viaShell {
		c.runsShell(cmd, joinWords(rest), base)
		return
	}
	cmd.inner = append(cmd.inner, c.buildInner(withEnv(env, rest)))
}

// sudoArgs skips sudo's options; shell is set for -s and -i, whose
// command runs through a shell.
func sudoArgs(args []word) (rest []word, shell bool) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case args[i].kind == wDyn:
			return nil, false
		case t == "--":
			return args[i+1:], shell
		case strings.HasPrefix(t, "--"):
			name, _, attached := strings.Cut(t, "=")
			switch name {
			case "--shell", "--login":
				shell = true
			case "--edit", "--list", "--validate", "--reset-timestamp", "--remove-timestamp", "--version", "--help":
				return nil, false
			case "--close-from", "--chdir", "--group", "--host", "--prompt", "--chroot", "--role", "--type", "--command-timeout", "--other-user", "--user":
				if !attached {
					i++
				}
			}
		case strings.HasPrefix(t, "-") && len(t) > 1:
			for j := 1; j < len(t); j++ {
				f := t[j]
				if strings.IndexByte("elvkKV", f) >= 0 {
					return nil, false // no command: edit, list, validate …
				}
				if f == 's' || f == 'i' {
					shell = true
				}
				if strings.IndexByte("CDghpRrtTUu", f) >= 0 {
					if j == len(t)-1 {
						i++
					}
					break
				}
			}
		default:
			for i < len(args) && isAssignWord(args[i]) {
				i++
			}
			return args[i:], shell
		}
	}
	return nil, shell
}

// runner handles commands that run another command in a way Loupe does
// not unwrap exactly (watch, flock, strace …): it always asks (the
// reason), and the commands it may run count for deny rules.
func (c *classifier) runner(cmd *command, base string, args []word) {
	c.a.reason("it runs another command through %s, which Loupe cannot check", base)
	c.a.opaque = true
	switch base {
	case "busybox":
		if len(args) > 0 {
			cmd.inner = append(cmd.inner, c.buildInner(args))
		}
		return
	case "watch":
		if rest, ok := skipOptions(args, "dtbegcxpwnq", "nq", []string{"--differences", "--no-title", "--beep", "--errexit", "--chgexit", "--color", "--exec", "--precise", "--no-wrap"}, []string{"--interval", "--equexit"}); ok && len(rest) > 0 {
			// watch runs sh -c with its words joined. Plain words read
			// back as themselves, so they are built directly rather
			// than joined and parsed again at every level of a chain.
			if c.plainCommand(rest) {
				cmd.inner = append(cmd.inner, c.buildInner(rest))
			} else {
				c.runsShell(cmd, joinWords(rest), "watch")
			}
		}
	case "flock", "script", "unbuffer", "expect":
		for j, w := range args {
			if (w.text == "-c" || w.text == "--command") && j+1 < len(args) {
				c.runsShell(cmd, args[j+1], base+" -c")
			}
		}
	case "ssh", "at", "batch":
		return // on another machine, or later from its input
	}
	c.denyCandidates(args)
}

// shellWords are words that sh reads as syntax, not as a command name,
// at the start of a command.
var shellWords = map[string]bool{
	"!": true, "if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true, "done": true,
	"case": true, "esac": true, "while": true, "until": true, "for": true, "in": true, "function": true,
	"select": true, "time": true, "coproc": true, "declare": true, "typeset": true, "local": true,
	"export": true, "readonly": true, "let": true, "eval": true, "alias": true,
}

// plainCommand reports whether a shell given ws joined with spaces would
// read back the same words as one simple command: literal words with
// nothing the shell reads as syntax, the first neither a keyword nor an
// assignment.
func (c *classifier) plainCommand(ws []word) bool {
	if len(ws) == 0 || isAssignWord(ws[0]) || shellWords[ws[0].text] {
		return false
	}
	return len(ws) <= c.a.plainTail(ws)
}

// plainTail is how many words at the end of ws are plain. The words of a
// chain of wrappers are suffixes of one slice, which share their last
// element: it is counted once for all of them, so a chain costs linear
// time, not quadratic.
func (a *analysis) plainTail(ws []word) int {
	last := &ws[len(ws)-1]
	if n, ok := a.plain[last]; ok {
		return n
	}
	n := 0
	for i := len(ws) - 1; i >= 0; i-- {
		if w := ws[i]; w.kind != wLit || w.text == "" || needsQuote(w.text) {
			break
		}
		n++
	}
	if a.plain == nil {
		a.plain = map[*word]int{}
	}
	if old, ok := a.plain[last]; !ok || n > old {
		a.plain[last] = n
	}
	return a.plain[last]
}

// denyCandidates walks each way of reading args as a command (after
// options Loupe cannot tell apart from their values), so that a deny
// rule sees the command whichever it is. They are not counted as what
// the command runs: it asks anyway.
func (c *classifier) denyCandidates(args []word) {
	// Candidates of candidates nest like sh -c does, so that a chain of
	// runners costs a bounded number of readings.
	sub := &classifier{a: c.a, src: c.src, depth: c.depth + 1, cwd: c.cwd, args: c.args, hasArgs: c.hasArgs, dialect: c.dialect, known: c.known}
	if sub.depth > maxNesting {
		c.a.reason("it nests commands too deeply to check")
		c.a.opaque = true
		return
	}
	n := 0
	for s := 0; s < len(args) && n < 3; s++ {
		w := args[s]
		if w.kind != wLit || strings.HasPrefix(w.text, "-") || strings.HasPrefix(w.text, "+") || isAssignWord(w) || isDigits(w.text) {
			continue
		}
		sub.buildInner(args[s:])
		n++
	}
}
