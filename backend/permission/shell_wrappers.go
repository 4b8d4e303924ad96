package permission

import (
	"fmt"
	"path"
	"strings"
)

// This file reads wrappers' options (skipOptions, nice, env, xargs, sh)
// and follows cd, find -exec and git's global options.

// skipOptions skips a wrapper's options before its command. flags are the
// short options it knows; withArg those of them that take a value (the
// next word, or attached). long are long options without a value,
// longArg with one (--x=v or --x v). It stops at "--" or the first
// non-option. ok is false for an unknown option or one whose text is not
// known before running.
func skipOptions(args []word, flags, withArg string, long, longArg []string) (rest []word, ok bool) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w.kind != wLit {
			if w.kind == wGlob && !strings.HasPrefix(w.text, "-") {
				return args[i:], true
			}
			return nil, false
		}
		t := w.text
		switch {
		case t == "--":
			return args[i+1:], true
		case !strings.HasPrefix(t, "-") || t == "-":
			return args[i:], true
		case strings.HasPrefix(t, "--"):
			name, _, hasVal := strings.Cut(t, "=")
			switch {
			case contains(long, name) && !hasVal:
			case contains(longArg, name) && hasVal:
			case contains(longArg, name):
				i++
			default:
				return nil, false
			}
		default:
			for j := 1; j < len(t); j++ {
				f := t[j]
				if strings.IndexByte(flags, f) < 0 {
					return nil, false
				}
				if strings.IndexByte(withArg, f) >= 0 {
					if j == len(t)-1 {
						i++ // value is the next word
					}
					break
				}
			}
		}
	}
	return nil, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasOption(args []word, names ...string) bool {
	for _, w := range args {
		for _, n := range names {
			if w.text == n || strings.HasPrefix(w.text, n+"=") || len(n) == 2 && strings.HasPrefix(w.text, n) {
				return true
			}
		}
	}
	return false
}

// niceArgs skips nice's options: -n N, -nN, -N, --adjustment=N.
func niceArgs(args []word) ([]word, bool) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w.kind != wLit {
			return nil, false
		}
		t := w.text
		switch {
		case t == "--":
			return args[i+1:], true
		case t == "-n" || t == "--adjustment":
			i++
		case strings.HasPrefix(t, "-n") || strings.HasPrefix(t, "--adjustment="):
		case strings.HasPrefix(t, "-") && isDigits(strings.TrimPrefix(strings.TrimPrefix(t, "-"), "-")):
		case strings.HasPrefix(t, "-") && t != "-":
			return nil, false
		default:
			return args[i:], true
		}
	}
	return nil, true
}

// cd follows the directory the script is in, so that later path words are
// placed right.
func (c *classifier) cd(name string, args []word) {
	for len(args) > 0 && args[0].kind == wLit && (args[0].text == "-P" || args[0].text == "-L" || args[0].text == "-e" || args[0].text == "--") {
		args = args[1:]
	}
	if name == "popd" || len(args) != 1 || args[0].kind != wLit || args[0].text == "-" {
		c.a.reason("it changes to a directory that is not known before it runs (%s)", strings.TrimSpace(name+" "+wordsText(args)))
		c.cwd = ""
		return
	}
	p, ok := c.join(args[0].text)
	if !ok || path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
		c.a.reason("it changes to a directory outside the workspace (%s %s)", name, args[0].text)
		c.cwd = ""
		return
	}
	c.cwd = p
}

// env unwraps env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… CMD.
func (c *classifier) env(cmd *command, env, args []word) {
options:
	for len(args) > 0 {
		w := args[0]
		if w.kind == wDyn {
			c.a.reason("it runs a command through env with arguments only known when it runs (%s)", w.text)
			c.a.opaque = true
			return
		}
		t := w.text
		switch {
		case t == "--":
			args = args[1:]
			break options
		case t == "-i" || t == "--ignore-environment" || t == "-0" || t == "--null" || t == "-v" || t == "--debug":
			args = args[1:]
		case t == "-u" || t == "--unset":
			if len(args) < 2 {
				return
			}
			args = args[2:]
		case strings.HasPrefix(t, "--unset=") || strings.HasPrefix(t, "-u") && len(t) > 2:
			args = args[1:]
		case t == "-C" || t == "--chdir" || strings.HasPrefix(t, "--chdir=") || strings.HasPrefix(t, "-C"):
			c.a.reason("it changes directory (%s)", wordsText(args[:1]))
			c.a.opaque = true
			return
		case t == "-S" || t == "--split-string" || strings.HasPrefix(t, "--split-string=") || strings.HasPrefix(t, "-S"):
			c.a.reason("it runs a command that env splits from a string (%s)", t)
			c.a.opaque = true
			// The string splits much as the shell splits words: read it so
			// that deny rules see the command.
			str, rest := word{}, args[1:]
			switch {
			case strings.HasPrefix(t, "--split-string="):
				str = word{text: strings.TrimPrefix(t, "--split-string="), kind: w.kind}
			case strings.HasPrefix(t, "-S") && len(t) > 2:
				str = word{text: t[2:], kind: w.kind}
			case len(rest) > 0:
				str, rest = rest[0], rest[1:]
			}
			if str.kind != wDyn && str.text != "" {
				c.runsShell(cmd, joinWords(append(append([]word{}, env...), append([]word{str}, rest...)...)), "env -S")
			}
			return
		case strings.HasPrefix(t, "-") && t != "-":
			c.a.reason("it runs a command through env with options Loupe does not know (%s)", t)
			c.a.opaque = true
			return
		default:
			break options
		}
	}
	for len(args) > 0 && isAssignWord(args[0]) {
		a := args[0]
		a.assign = true
		env = append(env, a)
		args = args[1:]
	}
	if len(args) == 0 {
		return // env alone prints the environment: the command itself
	}
	cmd.self = nil
	cmd.inner = []*command{c.buildInner(withEnv(env, args))}
}

func isAssignWord(w word) bool {
	name, _, ok := strings.Cut(w.text, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// xargs unwraps xargs [options] [CMD [ARGS]]: CMD runs with arguments
// read from stdin, which are not known before it runs.
func (c *classifier) xargs(cmd *command, env, args []word) {
	rest, ok := skipOptions(args, "0aEeIiLlnoprsPtxd", "aEILnsPd",
		[]string{"--null", "--interactive", "--no-run-if-empty", "--open-tty", "--verbose", "--exit", "--show-limits"},
		[]string{"--arg-file", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args", "--max-chars", "--max-procs", "--process-slot-var"})
	if !ok {
		c.a.reason("it runs a command through xargs with options Loupe does not know (%s)", wordsText(args))
		c.a.opaque = true
		return
	}
	opts := args[:len(args)-len(rest)]
	if len(rest) == 0 {
		rest = []word{{text: "echo"}}
	}
	// With -I R (-i, --replace: R is {}) xargs puts each input line in
	// place of R inside the words themselves, where a shell's script
	// makes it code: those words are only known when it runs.
	if marks := xargsReplaceStrings(opts); len(marks) > 0 {
		rest = append([]word{}, rest...)
		for i, w := range rest {
			for _, m := range marks {
				if strings.Contains(w.text, m) {
					rest[i] = word{text: w.text, kind: wDyn}
				}
			}
		}
		in := append(append([]word{}, env...), rest...)
		cmd.self = nil
		cmd.inner = []*command{c.buildInner(in)}
		return
	}
	in := append(append(append([]word{}, env...), rest...), word{text: "<arguments from input>", kind: wDyn})
	cmd.self = nil
	cmd.inner = []*command{c.buildInner(in)}
}

// xargsReplaceStrings are the strings xargs's options (as skipOptions
// accepted them) tell it to replace with each input line: -I R, -IR,
// -i and --replace (both {} unless given attached: -iR, --replace=R).
func xargsReplaceStrings(opts []word) []string {
	var marks []string
	for i := 0; i < len(opts); i++ {
		t := opts[i].text
		if t == "--" {
			break
		}
		if strings.HasPrefix(t, "--") {
			name, val, hasVal := strings.Cut(t, "=")
			switch {
			case name == "--replace" && hasVal && val != "":
				marks = append(marks, val)
			case name == "--replace":
				marks = append(marks, "{}")
				if !hasVal && i+1 < len(opts) {
					i++ // skipOptions took the next word as its value
				}
			case !hasVal && contains([]string{"--arg-file", "--delimiter", "--eof", "--max-lines", "--max-args", "--max-chars", "--max-procs", "--process-slot-var"}, name):
				i++
			}
			continue
		}
		for j := 1; j < len(t); j++ {
			f := t[j]
			if f == 'i' {
				marks = append(marks, "{}")
			}
			if strings.IndexByte("aEILnsPd", f) < 0 {
				continue
			}
			val := t[j+1:]
			if val == "" && i+1 < len(opts) {
				i++
				val = opts[i].text
			}
			if f == 'I' {
				if val == "" {
					val = "{}"
				}
				marks = append(marks, val)
			}
			break
		}
	}
	return marks
}

// find checks find's own words and each -exec/-execdir/-ok/-okdir command;
// "{}" (a found path) is not known before it runs.
func (c *classifier) find(cmd *command, words []word) {
	var self []word
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w.kind == wLit && (w.text == "-exec" || w.text == "-execdir" || w.text == "-ok" || w.text == "-okdir") {
			var in []word
			j := i + 1
			for ; j < len(words); j++ {
				t := words[j]
				if t.kind == wLit && (t.text == ";" || t.text == "+") {
					break
				}
				if strings.Contains(t.text, "{}") {
					t = word{text: t.text, kind: wDyn}
				}
				in = append(in, t)
			}
			if j == len(words) || len(in) == 0 {
				c.a.reason("it runs a command through find %s that Loupe cannot read", w.text)
				c.a.opaque = true
				return
			}
			cmd.inner = append(cmd.inner, c.buildInner(in))
			i = j
			continue
		}
		if w.kind == wLit {
			switch w.text {
			case "-fprint", "-fprint0", "-fprintf", "-fls":
				cmd.mark(len(self), w.text, fmt.Sprintf("writes to a file (find %s)", w.text))
				if i+1 < len(words) {
					c.target(words[i+1])
				}
			case "-delete":
				cmd.mark(len(self), w.text, "deletes what it finds (find -delete)")
			}
		}
		self = append(self, w)
	}
	cmd.self = self
}

// shell unwraps sh -c SCRIPT; a shell with no script reads its program
// from its input.
func (c *classifier) shell(cmd *command, name string, args []word) {
	if onlyInfo(args) {
		return // bash --version reads nothing
	}
	script, stdin := false, false
	i := 0
loop:
	for ; i < len(args); i++ {
		w := args[i]
		if w.kind != wLit {
			if w.kind == wDyn && strings.HasPrefix(w.text, "-") || w.kind == wDyn && i == 0 {
				c.a.reason("it runs a %s whose options are only known when it runs", name)
				c.a.opaque = true
				return
			}
			break
		}
		t := w.text
		switch {
		case t == "--" || t == "-":
			i++
			break loop
		case t == "--rcfile" || t == "--init-file":
			if i+1 < len(args) {
				c.a.unseenPart("%s %s %s (a startup file)", name, t, args[i+1].text)
			}
			i++
		case t == "-o" || t == "+o" || t == "-O" || t == "+O":
			if i+1 < len(args) && !knownShellOption(t, args[i+1]) {
				c.a.unseenPart("%s %s %s (a shell option Loupe does not model)", name, t, args[i+1].text)
			}
			i++
		case strings.HasPrefix(t, "--"):
			if !plainLongShellOptions[t] {
				c.a.unseenPart("%s %s (a login shell reads startup files from its home, which a command can write; Loupe does not model this option)", name, t)
			}
		case (strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+")) && len(t) > 1:
			if o := t[len(t)-1]; (o == 'o' || o == 'O') && len(t) > 2 {
				// -eo NAME: the cluster's last option takes the next word.
				if i+1 < len(args) && !knownShellOption(t[:1]+string(o), args[i+1]) {
					c.a.unseenPart("%s %s %s (a shell option Loupe does not model)", name, t, args[i+1].text)
				}
				i++
				if strings.Trim(t[1:len(t)-1], plainShellFlags) != "" {
					c.a.unseenPart("%s %s (%s)", name, t, shellFlagWhy(t))
				}
				script = script || strings.ContainsRune(t[1:], 'c')
				stdin = stdin || strings.ContainsRune(t[1:], 's')
				continue
			}
			if strings.Trim(t[1:], plainShellFlags) != "" {
				c.a.unseenPart("%s %s (%s)", name, t, shellFlagWhy(t))
			}
			if strings.ContainsRune(t[1:], 'c') {
				script = true
			}
			if strings.ContainsRune(t[1:], 's') {
				stdin = true
			}
		default:
			break loop
		}
	}
	if name == "zsh" && !hasOption(args[:i], "-f", "--no-rcs") {
		// zsh reads ~/.zshenv (in its home, which a command can write)
		// before any script, interactive or not.
		c.a.unseenPart("zsh (it reads ~/.zshenv from its home first)")
	}
	switch {
	case script:
		if i >= len(args) {
			return // sh -c with nothing: fails
		}
		if args[i].kind == wDyn {
			c.a.reason("it runs a %s script built at run time (%s -c %s)", name, name, args[i].text)
			c.a.opaque = true
			return
		}
		cmd.self = nil
		// sh -c SCRIPT NAME ARGS…: ARGS are $1 … for the script.
		var pos []word
		if i+2 < len(args) {
			pos = args[i+2:]
		}
		d, known := shellDialect(name)
		cmd.inner = c.nestedIn(args[i].text, pos, true, d, known)
	case i < len(args) && !stdin:
		// A script file: the command itself, as written, needs a rule,
		// and what the script runs is not seen.
		c.a.unseenPart("%s %s (a script file)", name, args[i].text)
		c.runFile(cmd, args[i], false)
	default:
		// No script: it runs what its input holds.
		c.a.reason("it runs a %s script read from its standard input, which Loupe cannot see", name)
		c.a.opaque = true
	}
}

// readsProgramFromStdin reports whether an interpreter given these
// arguments reads its program from stdin: only options, or "-".
func readsProgramFromStdin(args []word) bool {
	for _, w := range args {
		if w.kind == wDyn {
			return true
		}
		if w.text == "-" {
			return true
		}
		if !strings.HasPrefix(w.text, "-") {
			return false
		}
	}
	return true
}

// git flags global options that change what git runs, and reads the
// subcommand's options (shell_git.go). off is the index of args[0] in
// cmd's words.
func (c *classifier) git(cmd *command, off int, args []word) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w.kind == wDyn {
			c.a.reason("it runs git with options only known when it runs (%s)", w.text)
			c.a.opaque = true
			return
		}
		t := w.text
		switch {
		case t == "-c" || strings.HasPrefix(t, "--config-env"):
			c.a.reason("it sets git configuration on the command line (git %s), which can run programs", t)
			c.a.opaque = true
			if t == "-c" && i+1 < len(args) {
				c.gitConfigValue(cmd, args[i+1])
			}
			return
		case strings.HasPrefix(t, "--exec-path="):
			// git NAME then runs DIR/git-NAME, a program the script may
			// have just written.
			c.a.reason("it points git somewhere else (git %s)", t)
			c.a.unseenPart("git %s (it runs git's commands from that folder)", clip(t))
			return
		case t == "--git-dir" || t == "--work-tree" || t == "--namespace":
			// Git takes the value as the next word too; what follows is
			// still a git command line, read on.
			c.a.reason("it points git somewhere else (git %s)", t)
			i++
		case strings.HasPrefix(t, "--git-dir="), strings.HasPrefix(t, "--work-tree="), strings.HasPrefix(t, "--namespace="):
			c.a.reason("it points git somewhere else (git %s)", t)
		case t == "-C":
			i++
		case strings.HasPrefix(t, "-"):
		case t == "config":
			c.gitConfig(args[i+1:])
			return
		case t == "hook":
			c.a.unseenPart("git hook (it runs a hook program of the repository)")
			return
		case !gitCommands[t]:
			// An alias (which runs what the settings say, a shell command
			// when it starts with !) or a git-NAME program.
			c.a.unseenPart("git %s (an alias or a git-%s program, which runs what it says)", clip(t), clip(t))
			return
		default:
			c.gitSub(cmd, t, off+i+1, args[i+1:])
			return
		}
	}
}

// gitConfig: git config that sets something writes .git/config (which is
// protected) or the user's own git configuration.
func (c *classifier) gitConfig(args []word) {
	reading := false
	for _, w := range args {
		switch w.text {
		case "--global", "--system", "--file", "-f", "--blob":
			c.a.reason("it changes git configuration outside the workspace (git config %s)", w.text)
			c.a.opaque = true
			return
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "get", "list", "--show-origin", "--show-scope":
			reading = true
		}
	}
	if !reading && len(args) != 1 { // "git config NAME" reads NAME
		c.a.writes = append(c.a.writes, ".git/config")
		c.a.reason("it changes git configuration (git config)")
	}
}

// What a shell's options may be for the walk to read its script as the
// script alone. Any other makes the shell run code it does not show: an
// interactive shell (-i) reads ~/.bashrc, a login shell (-l, --login, a
// name starting with -) ~/.bash_profile or ~/.profile, files in the
// command's own home that an earlier command can write; -H expands
// history in the lines it reads; an option Loupe does not know may do
// either.
const plainShellFlags = "abcefhkmnprstuvxBCEPTD"

var plainLongShellOptions = map[string]bool{
	"--norc": true, "--noprofile": true, "--posix": true, "--noediting": true, "--restricted": true,
	"--verbose": true, "--version": true, "--help": true, "--dump-strings": true, "--dump-po-strings": true,
}

// knownShellOption reports whether -o NAME or -O NAME is an option the
// walk knows changes nothing it reads.
func knownShellOption(flag string, w word) bool {
	if w.kind != wLit {
		return false
	}
	if flag == "-o" || flag == "+o" {
		switch w.text {
		case "errexit", "nounset", "pipefail", "xtrace", "verbose", "noglob", "noclobber", "posix", "noexec", "allexport", "notify", "monitor", "braceexpand", "hashall", "physical", "errtrace", "functrace", "keyword", "onecmd", "privileged", "ignoreeof", "nolog", "emacs", "vi":
			return true
		}
		return false
	}
	switch w.text {
	case "extglob", "nullglob", "globstar", "failglob", "dotglob", "nocaseglob", "nocasematch", "inherit_errexit", "lastpipe", "globasciiranges", "xpg_echo", "checkhash", "cmdhist", "lithist", "sourcepath", "expand_aliases", "shift_verbose", "patsub_replacement", "localvar_inherit", "localvar_unset", "assoc_expand_once":
		return true
	}
	return false
}

// shellFlagWhy says why a shell's flags make it run code it does not show.
func shellFlagWhy(t string) string {
	switch {
	case strings.ContainsAny(t[1:], "il"):
		return "an interactive or login shell reads startup files from its home, which a command can write"
	case strings.ContainsRune(t[1:], 'H'):
		return "history expansion rewrites lines before the shell reads them"
	}
	return "a shell option Loupe does not model"
}
