package permission

import (
	"path"
	"strings"

	"github.com/loupe-dev/loupe/backend/cmdshell"
)

// This file builds a simple command from its words and unwraps the
// commands it runs (timeout, nice, env, xargs, find, eval, sh -c …).

// Commands that run another command.
var (
	// shells whose -c script Loupe parses.
	shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "rbash": true}
	// otherShells run scripts in languages Loupe does not parse.
	otherShells = map[string]bool{"fish": true, "csh": true, "tcsh": true, "pwsh": true, "powershell": true, "nu": true, "elvish": true, "xonsh": true}
	// asUser run a command as another user.
	asUser = map[string]bool{"sudo": true, "doas": true, "su": true, "pkexec": true, "runuser": true, "sg": true, "newgrp": true}
	// runners run a command in a way Loupe does not unwrap.
	runners = map[string]bool{
		"watch": true, "flock": true, "chroot": true, "chrt": true, "taskset": true, "strace": true,
		"ltrace": true, "script": true, "unbuffer": true, "parallel": true, "ssh": true, "systemd-run": true,
		"fakeroot": true, "proot": true, "busybox": true, "gdb": true, "valgrind": true, "nsenter": true,
		"unshare": true, "firejail": true, "bwrap": true, "at": true, "batch": true, "prlimit": true,
		"cgexec": true, "numactl": true, "catchsegv": true, "rlwrap": true, "expect": true, "dbus-run-session": true,
	}
	// noRule builtins do nothing a rule needs to vouch for.
	noRule = map[string]bool{"true": true, "false": true, ":": true, "pwd": true}
)

// interpreters run programs they are given (python3.12 and pypy3 by
// their prefix).
var interpreters = []string{"python", "pypy", "perl", "ruby", "php", "lua", "luajit", "node", "nodejs", "deno", "bun", "Rscript", "tclsh", "wish", "osascript", "irb", "jshell", "guile", "racket", "julia", "ghci", "runghc", "scala", "groovy", "kotlin", "R"}

// isInterpreter reports whether name runs programs it is given; those
// read their program from stdin when given no script.
func isInterpreter(name string) bool {
	for _, p := range interpreters {
		if name == p || strings.HasPrefix(name, p) && strings.Trim(name[len(p):], "0123456789.-") == "" {
			return true
		}
	}
	return false
}

// fileMovers put a file where one of their operands names (a settings
// file among them, for settingsWrite).
var fileMovers = map[string]bool{"cp": true, "mv": true, "ln": true, "install": true, "rsync": true, "touch": true}

// build makes a command of words and unwraps what it runs.
func (c *classifier) build(words []word) *command {
	mentioned := c.mentioned
	c.mentioned = false
	cmd := &command{words: words, self: words}
	if len(c.a.all) >= maxCommands {
		c.a.reason("it has too many commands to check")
		c.a.opaque = true
		return cmd
	}
	c.a.all = append(c.a.all, cmd)
	if !mentioned {
		c.mention(words)
	}
	i := 0
	for i < len(words) && words[i].assign {
		i++
	}
	if i == len(words) {
		return cmd
	}
	env, name, args := words[:i], words[i], words[i+1:]
	if name.kind != wLit {
		c.a.reason("the command name is only known when it runs (%s)", name.text)
		c.a.opaque = true
		return cmd
	}
	base := path.Base(name.text)
	off := i + 1 // index of args[0] in words
	c.envWords(cmd, env)
	if fileMovers[base] {
		for _, w := range args {
			if !strings.HasPrefix(w.text, "-") {
				c.settingsWrite(w)
			}
		}
	}
	if strings.Contains(name.text, "/") && !systemProgram(name.text) {
		c.a.unseenPart("%s (a program from the workspace or elsewhere)", name.text)
		c.runFile(cmd, name, false)
	}
	inner := func(rest []word) {
		if len(rest) == 0 {
			return
		}
		cmd.self = nil
		cmd.inner = []*command{c.buildInner(withEnv(env, rest))}
	}
	opaque := func(format string, args ...any) {
		c.a.reason(format, args...)
		c.a.opaque = true
	}
	switch {
	case base == "cd" || base == "pushd" || base == "popd":
		c.cd(base, args)
		cmd.noRule = len(env) == 0
	case noRule[base]:
		cmd.noRule = len(env) == 0
	case base == "timeout":
		if rest, ok := skipOptions(args, "skv", "sk", []string{"--foreground", "--preserve-status", "--verbose"}, []string{"--signal", "--kill-after"}); !ok {
			opaque("it runs a command through timeout with options Loupe does not know (%s)", wordsText(words))
		} else if len(rest) > 0 {
			inner(rest[1:]) // rest[0] is the duration
		}
	case base == "nice":
		rest, ok := niceArgs(args)
		if !ok {
			opaque("it runs a command through nice with options Loupe does not know (%s)", wordsText(words))
		} else {
			inner(rest)
		}
	case base == "nohup":
		if len(args) > 0 && args[0].kind == wLit && args[0].text == "--" {
			args = args[1:]
		}
		inner(args)
	case base == "setsid":
		if rest, ok := skipOptions(args, "cfw", "", []string{"--ctty", "--fork", "--wait"}, nil); ok {
			inner(rest)
		} else {
			opaque("it runs a command through setsid with options Loupe does not know (%s)", wordsText(words))
		}
	case base == "stdbuf":
		if rest, ok := skipOptions(args, "ioe", "ioe", nil, []string{"--input", "--output", "--error"}); ok {
			inner(rest)
		} else {
			opaque("it runs a command through stdbuf with options Loupe does not know (%s)", wordsText(words))
		}
	case base == "ionice":
		if rest, ok := skipOptions(args, "cnt", "cn", []string{"--ignore"}, []string{"--class", "--classdata"}); ok {
			inner(rest)
		} else {
			// -p/-P/-u change other processes: no command of its own.
			cmd.self = words
		}
	case base == "time":
		rest, ok := skipOptions(args, "pvaqfo", "fo", []string{"--portability", "--verbose", "--append", "--quiet"}, []string{"--format", "--output"})
		if !ok {
			opaque("it runs a command through time with options Loupe does not know (%s)", wordsText(words))
			break
		}
		if hasOption(args[:len(args)-len(rest)], "-o", "--output") {
			c.a.reason("it writes to a file (time -o)")
		}
		inner(rest)
	case base == "exec":
		if rest, ok := skipOptions(args, "cla", "a", nil, nil); ok {
			// -l, or a name starting with -, makes a shell it starts
			// a login shell, which reads startup files from its home.
			for j, w := range args[:len(args)-len(rest)] {
				login := w.kind == wLit && strings.HasPrefix(w.text, "-") && strings.ContainsRune(strings.TrimPrefix(w.text, "-"), 'l')
				named := w.text == "-a" && j+1 < len(args) && strings.HasPrefix(args[j+1].text, "-")
				if login || named {
					c.a.unseenPart("exec %s (a login shell reads startup files from its home)", w.text)
				}
			}
			inner(rest)
		} else {
			opaque("it runs a command through exec with options Loupe does not know (%s)", wordsText(words))
		}
	case base == "command":
		rest, ok := skipOptions(args, "pvV", "", nil, nil)
		switch {
		case !ok:
			opaque("it runs a command through command with options Loupe does not know (%s)", wordsText(words))
		case hasOption(args[:len(args)-len(rest)], "-v", "-V"):
			cmd.noRule = len(env) == 0 // only looks a name up
		default:
			inner(rest)
		}
	case base == "builtin":
		inner(args)
	case base == "env":
		c.env(cmd, env, args)
	case base == "xargs":
		c.xargs(cmd, env, args)
	case base == "find":
		c.find(cmd, words)
	case base == "source" || base == ".":
		if len(args) > 0 {
			c.a.unseenPart("%s %s (a script file)", base, args[0].text)
			c.runFile(cmd, args[0], true)
		}
	case base == "alias" && name.text == "alias":
		c.alias(args)
	case base == "trap":
		// trap 'COMMAND' SIGNAL… runs COMMAND later, in this shell.
		if len(args) > 1 && args[0].text != "-" && !strings.HasPrefix(args[0].text, "-") {
			c.runsShell(cmd, args[0], "trap")
		}
	case base == "eval":
		texts := make([]string, len(args))
		for j, w := range args {
			if w.kind == wDyn {
				opaque("it runs text built at run time (eval %s)", w.text)
				return cmd
			}
			texts[j] = w.text
		}
		cmd.self = nil
		cmd.inner = c.nested(strings.Join(texts, " "))
	case shells[base]:
		c.shell(cmd, base, args)
	case otherShells[base]:
		// With no script it reads one from its input: the same.
		opaque("it runs a %s script, which Loupe cannot check", base)
	case asUser[base]:
		c.asUser(cmd, base, env, args)
	case runners[base]:
		c.runner(cmd, base, args)
	case base == "git":
		c.git(cmd, off, args)
	case isInterpreter(base):
		if !onlyInfo(args) && readsProgramFromStdin(args) {
			opaque("it runs a %s program read from its standard input, which Loupe cannot see", base)
		} else {
			c.interpreter(base, args)
		}
	case c.programOptions(cmd, base, off, args), c.readerOptions(cmd, base, off, args):
	default:
		c.projectRunner(base, args)
		c.unknownProgram(base, args)
	}
	c.callFunc(cmd, words)
	return cmd
}

// buildInner builds a command whose words are some of a command already
// built (a wrapper's command, find -exec's): their paths are noted once.
func (c *classifier) buildInner(words []word) *command {
	c.mentioned = true
	return c.build(words)
}

// withEnv puts a wrapper's assignments in front of the command it runs,
// copying only when there are any.
func withEnv(env, rest []word) []word {
	if len(env) == 0 {
		return rest
	}
	return append(append(make([]word, 0, len(env)+len(rest)), env...), rest...)
}

// nested walks an eval script or an alias's expansion: it runs in this
// shell, with this shell's $1 ….
func (c *classifier) nested(src string) []*command {
	return c.nestedIn(src, c.args, c.hasArgs, c.dialect, c.known)
}

// nestedIn walks src as a shell of dialect d runs it (known: that shell
// is sure to read d; see cmdshell.Shell); hasArgs says whether args are
// its $1 … (when not, they are unknown).
func (c *classifier) nestedIn(src string, args []word, hasArgs bool, d cmdshell.Dialect, known bool) []*command {
	sub := &classifier{a: c.a, src: c.src, depth: c.depth, cwd: c.cwd, args: args, hasArgs: hasArgs, dialect: d, known: known}
	cmds := sub.script(src, c.depth+1)
	c.cwd = sub.cwd
	return cmds
}
