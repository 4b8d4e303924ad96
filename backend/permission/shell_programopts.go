package permission

import (
	"fmt"
	"strings"
)

// This file reads the options by which programs Loupe otherwise knows run
// another program they are given (install --strip-program, diff3
// --diff-program, split --filter, binutils' --plugin). GNU tools accept any
// unambiguous start of a long option (--strip-prog, --fil), so every such
// option is matched as written or abbreviated: a start that two options
// share counts as the one that runs something, which asks more, never less.

// runOption is one option whose value is something the program runs.
type runOption struct {
	long string // the long option, e.g. "--strip-program"
	// how the value runs: a program given arguments of its own (the file
	// it works on), a shell command, or code loaded into the program.
	how  runHow
	what string // what the program does with it, for the reason
}

type runHow int

const (
	runsAProgram runHow = iota
	runsAShellCommand
	loadsCode
)

var binutilsPlugin = []runOption{{"--plugin", loadsCode, "loads a plugin, whose code runs in it"}}

// runOptions are the programs of plainPrograms (and split) with options
// that run something.
var runOptions = map[string][]runOption{
	"install": {{"--strip-program", runsAProgram, "strips what it installs with a program of its choice"}},
	"diff3":   {{"--diff-program", runsAProgram, "compares with a program of its choice"}},
	"cpio":    {{"--rsh-command", runsAProgram, "reaches a remote archive through a program of its choice"}},
	"split":   {{"--filter", runsAShellCommand, "runs a command for each piece"}},
	"nm":      binutilsPlugin, "ar": binutilsPlugin, "strip": binutilsPlugin,
	"objdump": binutilsPlugin, "size": binutilsPlugin, "readelf": binutilsPlugin,
}

// longMatch reports which of fulls the long option given names, as written
// or abbreviated ("--fil" names "--filter").
func longMatch(given string, fulls ...string) (string, bool) {
	for _, f := range fulls {
		if given == f {
			return f, true
		}
	}
	if len(given) <= 2 || !strings.HasPrefix(given, "--") {
		return "", false
	}
	for _, f := range fulls {
		if strings.HasPrefix(f, given) {
			return f, true
		}
	}
	return "", false
}

// programOptions marks the options of runOptions[base] in args (args[0] is
// the word at index off) and reads what they run; it reports whether base
// has such options.
func (c *classifier) programOptions(cmd *command, base string, off int, args []word) bool {
	list, ok := runOptions[base]
	if !ok {
		return false
	}
	longs := make([]string, len(list))
	for i, o := range list {
		longs[i] = o.long
	}
	for j := 0; j < len(args); j++ {
		w := args[j]
		if w.text == "--" {
			break
		}
		name, _, _ := strings.Cut(w.text, "=")
		at := j
		full, v, next, ok := longValue(args, j, longs...)
		if !ok {
			continue
		}
		j = next
		var o runOption
		for _, r := range list {
			if r.long == full {
				o = r
			}
		}
		what := fmt.Sprintf("%s %s", base, full)
		cmd.mark(off+at, name, fmt.Sprintf("%s (%s)", o.what, what))
		switch {
		case v.text == "" && v.kind != wDyn:
		case o.how == runsAShellCommand:
			c.runsShell(cmd, v, what)
		case o.how == runsAProgram:
			c.runsProgram(cmd, []word{v, {text: "<the file it works on>", kind: wDyn}}, what)
		default:
			c.a.unseenPart("%s %s (code it loads and runs)", what, clip(v.text))
		}
	}
	return true
}

// isLong reports whether the word given is one of the long options fulls,
// as written or abbreviated.
func isLong(given string, fulls ...string) bool {
	_, ok := longMatch(given, fulls...)
	return ok
}

// longValue reads the long option at args[j] if it is one of fulls (as
// written or abbreviated), with its value: attached with =, or the next
// word (empty when there is none). next is the index of the last word it
// took.
func longValue(args []word, j int, fulls ...string) (full string, v word, next int, ok bool) {
	name, val, attached := strings.Cut(args[j].text, "=")
	if full, ok = longMatch(name, fulls...); !ok {
		return "", word{}, j, false
	}
	switch {
	case attached:
		return full, word{text: val, kind: args[j].kind}, j, true
	case j+1 < len(args):
		return full, args[j+1], j + 1, true
	}
	return full, word{}, j, true
}
