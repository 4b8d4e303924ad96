package permission

import (
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/backend/cmdshell"
)

// This file finds the options that make commands which usually only read
// write a file or run another program: sort -o, tee FILE, dd of=,
// rg --pre, curl -o, tar x … (find is in shell_wrappers.go, git in
// shell_git.go, sed and awk in shell_programs.go). Such a word is a
// writer: an allow rule for the command ("sort *") does not cover it
// unless the rule spells the option out ("sort -o sorted.txt *"). Files
// they write are recorded, so that protected paths ask in every mode.

// mark notes a writer word of cmd.
func (cmd *command) mark(at int, key, what string) {
	cmd.writers = append(cmd.writers, writer{at: at, key: key, what: what})
}

// target records a file a command writes.
func (c *classifier) target(w word) {
	c.settingsWrite(w)
	if w.kind == wDyn || w.text == "" || harmlessTargets[w.text] {
		return
	}
	if p, ok := c.join(w.text); ok {
		c.a.writes = append(c.a.writes, p)
	}
}

// writesOpt marks an option that writes to the file that is its value.
// A value that is standard output (or, where stdout is true, "-") is
// harmless.
func (c *classifier) writesOpt(cmd *command, o opt, name string, stdout bool) {
	if o.hasVal && o.val.kind == wLit && (harmlessTargets[o.val.text] || stdout && o.val.text == "-") {
		return
	}
	cmd.mark(o.at, o.key, fmt.Sprintf("writes to a file (%s %s)", name, o.name))
	if o.hasVal {
		c.target(o.val)
	}
}

// runsShell: a command given as text that the program runs through a
// shell (a pager, a tar --to-command, a sed e command). Its commands
// count for deny rules and need allow rules of their own.
func (c *classifier) runsShell(cmd *command, w word, what string) {
	if w.kind == wDyn {
		c.a.unseenPart("%s (a command only known when it runs)", what)
		return
	}
	before := c.cwd
	// Programs run such commands with sh -c.
	cmd.inner = append(cmd.inner, c.nestedIn(w.text, nil, false, cmdshell.POSIX, false)...)
	c.cwd = before
}

// runsShellOn is runsShell for a command that the program gives
// arguments of its own (an editor gets the file, git grep -O the files
// found): they stand as "$@", known only when it runs.
func (c *classifier) runsShellOn(cmd *command, w word, what string) {
	if w.kind != wDyn {
		w.text += ` "$@"`
	}
	c.runsShell(cmd, w, what)
}

// runsProgram: a program (with arguments) that the command executes
// directly (rg --pre, sort --compress-program, fd -x).
func (c *classifier) runsProgram(cmd *command, words []word, what string) {
	if len(words) == 0 {
		return
	}
	if words[0].kind == wDyn {
		c.a.unseenPart("%s (a program only known when it runs)", what)
		return
	}
	cmd.inner = append(cmd.inner, c.build(words))
}

// readerOptions handles the commands this file knows; it reports whether
// base is one of them.
func (c *classifier) readerOptions(cmd *command, base string, off int, args []word) bool {
	switch base {
	case "sort":
		opts, _ := scanOpts(args, off, optSpec{withArg: "kotST", long: []string{"--key", "--output", "--field-separator", "--buffer-size", "--temporary-directory", "--compress-program", "--random-source", "--files0-from", "--parallel", "--batch-size", "--sort"}})
		for _, o := range opts {
			switch {
			case o.is("-o", "--output"):
				c.writesOpt(cmd, o, base, false)
			case o.is("--compress-program"):
				cmd.mark(o.at, o.key, "runs a program (sort --compress-program)")
				c.runsProgram(cmd, []word{o.val}, "sort --compress-program")
			}
		}
	case "shuf", "iconv", "sdiff", "tree":
		specs := map[string]optSpec{
			"shuf":  {withArg: "ino", long: []string{"--input-range", "--head-count", "--output", "--random-source"}},
			"iconv": {withArg: "fto", long: []string{"--from-code", "--to-code", "--output"}},
			"sdiff": {withArg: "owI", long: []string{"--output", "--width", "--ignore-matching-lines", "--diff-program", "--tabsize"}},
			"tree":  {withArg: "LPIoHT", long: []string{"--charset", "--filelimit", "--timefmt", "--sort"}},
		}
		opts, _ := scanOpts(args, off, specs[base])
		for _, o := range opts {
			switch {
			case o.is("-o", "--output") && (base != "tree" || o.name == "-o"):
				c.writesOpt(cmd, o, base, false)
			case base == "sdiff" && o.is("--diff-program"):
				cmd.mark(o.at, o.key, "runs a program (sdiff --diff-program)")
				c.runsProgram(cmd, []word{o.val}, "sdiff --diff-program")
			}
		}
	case "uniq", "xxd":
		// The second operand is the output file (uniq IN OUT, xxd IN OUT).
		// Every operand after the first counts, so that an option value
		// Loupe misreads as an operand cannot hide the real one.
		var operands []int
		if base == "uniq" {
			_, operands = scanOpts(args, off, optSpec{withArg: "fsw", long: []string{"--skip-fields", "--skip-chars", "--check-chars"}, optLong: []string{"--all-repeated", "--group"}})
		} else {
			operands = xxdOperands(args, off)
		}
		for n, at := range operands {
			if n == 0 {
				continue
			}
			w := args[at-off]
			if w.kind == wLit && harmlessTargets[w.text] {
				continue
			}
			cmd.mark(at, w.text, fmt.Sprintf("writes to a file (%s … %s)", base, w.text))
			c.target(w)
		}
	case "tee":
		_, operands := scanOpts(args, off, optSpec{optLong: []string{"--output-error"}})
		for _, at := range operands {
			w := args[at-off]
			if w.kind == wLit && harmlessTargets[w.text] {
				continue
			}
			cmd.mark(at, w.text, fmt.Sprintf("writes to a file (tee %s)", w.text))
			c.target(w)
		}
	case "dd":
		for j, w := range args {
			if v, ok := strings.CutPrefix(w.text, "of="); ok && !(w.kind == wLit && harmlessTargets[v]) {
				cmd.mark(off+j, "of=", "writes to a file (dd of=)")
				c.target(word{text: v, kind: w.kind})
			}
		}
	case "rg":
		c.ripgrep(cmd, off, args)
	case "curl":
		c.curl(cmd, off, args)
	case "wget":
		opts, _ := scanOpts(args, off, optSpec{withArg: "oaeiBtOTwQPlARDIXUn", long: []string{"--output-document", "--output-file", "--append-output", "--execute", "--config", "--directory-prefix", "--input-file"}})
		for _, o := range opts {
			switch {
			case o.is("-O", "--output-document"):
				c.writesOpt(cmd, o, base, true)
			case o.is("-o", "--output-file", "-a", "--append-output"):
				c.writesOpt(cmd, o, base, false)
			case o.is("-e", "--execute", "--config"):
				cmd.mark(o.at, o.key, fmt.Sprintf("takes wget commands that can write files (wget %s)", o.name))
			}
		}
	case "tar":
		c.tar(cmd, off, args)
	case "less":
		for j := 0; j < len(args); j++ {
			t := args[j].text
			name, _, attached := strings.Cut(t, "=")
			switch {
			case t == "-o" || t == "-O" || isLong(name, "--log-file", "--LOG-FILE"):
				o := opt{at: off + j, name: name, key: name}
				if !attached && j+1 < len(args) {
					j++
					o.val, o.hasVal = args[j], true
				} else if attached {
					o.val, o.hasVal = word{text: t[len(name)+1:], kind: args[j].kind}, true
				}
				c.writesOpt(cmd, o, base, false)
			case strings.HasPrefix(t, "-o") || strings.HasPrefix(t, "-O"):
				c.writesOpt(cmd, opt{at: off + j, name: t[:2], key: t[:2], val: word{text: t[2:], kind: args[j].kind}, hasVal: true}, base, false)
			case strings.HasPrefix(t, "+") || args[j].kind == wDyn:
				// +CMD runs less's commands at the start, and ! among
				// them runs a shell command.
				c.a.unseenPart("less %s (less's own commands, which can run shell commands)", clip(t))
			}
		}
	case "man":
		opts, _ := scanOpts(args, off, optSpec{withArg: "CLmMSePrEp", optArg: "THX", long: []string{"--config-file", "--locale", "--systems", "--manpath", "--sections", "--extension", "--pager", "--prompt", "--encoding", "--preprocessor"}, optLong: []string{"--html", "--troff-device", "--gxditview", "--warnings"}})
		for _, o := range opts {
			if o.is("-P", "--pager", "-H", "--html") {
				cmd.mark(o.at, o.key, fmt.Sprintf("runs a command (man %s)", o.name))
				switch {
				case !o.hasVal:
				case o.is("-P", "--pager"):
					c.runsShell(cmd, o.val, "man "+o.name) // it reads the page from its input
				default:
					c.runsShellOn(cmd, o.val, "man "+o.name) // the browser gets the file
				}
			}
		}
	case "vi", "vim", "nvim", "view", "ex", "gvim", "vimdiff", "evim":
		for j, w := range args {
			t := w.text
			if t == "-c" || t == "--cmd" || t == "-S" || t == "-s" || t == "-w" || t == "-W" || t == "-u" || strings.HasPrefix(t, "+") && len(t) > 1 {
				key := t
				if strings.HasPrefix(t, "+") {
					key = "+"
				}
				cmd.mark(off+j, key, fmt.Sprintf("runs editor commands (%s %s)", base, key))
				c.a.unseenPart("%s %s (editor commands)", base, key)
			}
		}
	case "fd", "fdfind":
		for j := 0; j < len(args); j++ {
			t := args[j].text
			if t != "-x" && t != "-X" && !isLong(t, "--exec", "--exec-batch") {
				continue
			}
			cmd.mark(off+j, t, fmt.Sprintf("runs a command for what it finds (%s %s)", base, t))
			var in []word
			for j++; j < len(args) && !(args[j].kind == wLit && args[j].text == ";"); j++ {
				w := args[j]
				if strings.Contains(w.text, "{") {
					w = word{text: w.text, kind: wDyn}
				}
				in = append(in, w)
			}
			if len(in) > 0 {
				in = append(in, word{text: "<found path>", kind: wDyn})
			}
			c.runsProgram(cmd, in, base+" "+t)
		}
	case "openssl":
		for j := 0; j+1 < len(args); j++ {
			if t := args[j].text; t == "-out" || t == "-keyout" {
				c.writesOpt(cmd, opt{at: off + j, name: t, key: t, val: args[j+1], hasVal: true}, base, false)
			}
		}
	case "file":
		for j, w := range args {
			if w.text == "-C" || isLong(w.text, "--compile") {
				cmd.mark(off+j, w.text, "writes a compiled magic file (file -C)")
			}
		}
	case "yq":
		opts, _ := scanOpts(args, off, optSpec{})
		for _, o := range opts {
			if o.is("-i", "--inplace") {
				cmd.mark(o.at, o.key, "changes files in place (yq -i)")
			}
		}
	case "sed":
		c.sed(cmd, off, args)
	case "awk", "gawk", "mawk", "nawk":
		c.awk(cmd, base, off, args)
	case "gcc", "g++", "cc", "c++", "clang", "clang++", "gfortran":
		// -wrapper PROG,ARGS runs every tool through PROG.
		for j, w := range args {
			if w.text != "-wrapper" || j+1 >= len(args) {
				continue
			}
			cmd.mark(off+j, w.text, fmt.Sprintf("runs a program around its tools (%s -wrapper)", base))
			v := args[j+1]
			if v.kind == wDyn {
				c.a.unseenPart("%s -wrapper %s (a program only known when it runs)", base, v.text)
				continue
			}
			var ws []word
			for _, part := range strings.Split(v.text, ",") {
				ws = append(ws, word{text: part})
			}
			c.runsProgram(cmd, append(ws, word{text: "<the tool it wraps>", kind: wDyn}), base+" -wrapper")
		}
	case "zip":
		// -TT COMMAND / --unzip-command: the command that tests the archive.
		for j, w := range args {
			name, val, attached := strings.Cut(w.text, "=")
			if full, ok := longMatch(name, "--unzip-command"); ok {
				name = full
			} else if name != "-TT" {
				continue
			}
			cmd.mark(off+j, name, fmt.Sprintf("runs a command to test the archive (zip %s)", name))
			if attached {
				c.runsShellOn(cmd, word{text: val, kind: w.kind}, "zip "+name)
			} else if j+1 < len(args) {
				c.runsShellOn(cmd, args[j+1], "zip "+name)
			}
		}
	case "run-parts":
		if !hasOption(args, "--test", "--list", "--help", "--version") {
			c.a.unseenPart("run-parts (it runs every program in a folder)")
		}
	case "ed":
		// ed reads its commands from its input, and ! runs a shell
		// command; -r (restricted) refuses it.
		if !hasOption(args, "-r", "--restricted") && !onlyInfo(args) {
			c.a.unseenPart("ed (its commands come from its input, and ! runs them through a shell)")
		}
	default:
		return false
	}
	return true
}

// xxdOperands: xxd's options are single-dash words, some with a value.
func xxdOperands(args []word, off int) []int {
	withValue := map[string]bool{"-c": true, "-cols": true, "-g": true, "-groupsize": true, "-l": true, "-len": true, "-o": true, "-offset": true, "-s": true, "-seek": true, "-n": true, "-name": true}
	var operands []int
	for j := 0; j < len(args); j++ {
		w := args[j]
		switch {
		case w.kind == wDyn || w.text == "-" || !strings.HasPrefix(w.text, "-"):
			operands = append(operands, off+j)
		case withValue[w.text]:
			j++
		}
	}
	return operands
}

// ripgrep: --pre runs a program on every file searched; --pre-glob says
// which; --hostname-bin runs a program too.
func (c *classifier) ripgrep(cmd *command, off int, args []word) {
	for j := 0; j < len(args); j++ {
		t := args[j].text
		if t == "--" {
			return
		}
		name, v, next, ok := longValue(args, j, "--pre", "--pre-glob", "--hostname-bin")
		if !ok {
			continue
		}
		j = next
		switch name {
		case "--pre":
			cmd.mark(off+j, name, "runs a program on every file it searches (rg --pre)")
			if v.text != "" || v.kind == wDyn {
				c.runsProgram(cmd, []word{v, {text: "<file>", kind: wDyn}}, "rg --pre")
			}
		case "--pre-glob":
			cmd.mark(off+j, name, "chooses the files rg --pre runs a program on (rg --pre-glob)")
		default:
			cmd.mark(off+j, name, "runs a program (rg --hostname-bin)")
			c.runsProgram(cmd, []word{v}, "rg --hostname-bin")
		}
	}
}

// curl writes files with -o, -O, -D, -c and friends, and reads further
// options from -K files.
func (c *classifier) curl(cmd *command, off int, args []word) {
	opts, _ := scanOpts(args, off, optSpec{
		withArg: "EKCbcdDFPHhmoUQreXYytzTuAwx",
		long:    []string{"--output", "--dump-header", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--libcurl", "--etag-save", "--alt-svc", "--hsts", "--config", "--output-dir", "--write-out"},
	})
	for _, o := range opts {
		switch {
		case o.is("-o", "--output", "-D", "--dump-header"):
			c.writesOpt(cmd, o, "curl", true)
		case o.is("-c", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--libcurl", "--etag-save", "--alt-svc", "--hsts"):
			c.writesOpt(cmd, o, "curl", true)
		case o.is("-O", "--remote-name", "--remote-name-all", "--output-dir"):
			cmd.mark(o.at, o.key, fmt.Sprintf("writes to a file (curl %s)", o.name))
		case o.is("-K", "--config"):
			cmd.mark(o.at, o.key, fmt.Sprintf("reads options from a file Loupe does not read (curl %s)", o.name))
		case o.is("-w", "--write-out") && strings.Contains(o.val.text, "%output{"):
			cmd.mark(o.at, o.key, "writes to a file (curl -w %output{…})")
		}
	}
}

// tarValues are tar's short options that take a value.
const tarValues = "gCTXfFLbHVIKN"

// tar writes unless it only lists (-t) or compares (-d); some options run
// programs (-I, --to-command, --checkpoint-action=exec=…).
func (c *classifier) tar(cmd *command, off int, args []word) {
	var opts []opt
	start := 0
	if len(args) > 0 && args[0].kind == wLit && args[0].text != "" && !strings.HasPrefix(args[0].text, "-") {
		// Old style: "tar xzf a.tgz": the letters' values follow in order.
		next := 1
		for _, f := range args[0].text {
			o := opt{at: off, name: "-" + string(f), key: args[0].text, valAt: -1}
			if strings.ContainsRune(tarValues, f) && next < len(args) {
				o.val, o.hasVal, o.valAt = args[next], true, off+next
				next++
			}
			opts = append(opts, o)
		}
		start = next
	}
	more, _ := scanOpts(args[start:], off+start, optSpec{withArg: tarValues, long: []string{
		"--file", "--directory", "--files-from", "--exclude-from", "--use-compress-program", "--info-script", "--new-volume-script",
		"--to-command", "--rsh-command", "--rmt-command", "--listed-incremental", "--blocking-factor", "--tape-length", "--label",
		"--exclude", "--transform", "--xform", "--owner", "--group", "--mode", "--mtime", "--format", "--checkpoint-action",
		"--index-file", "--volno-file", "--strip-components", "--newer", "--after-date", "--newer-mtime", "--starting-file",
	}})
	opts = append(opts, more...)
	var mode *opt
	for i, o := range opts {
		switch {
		case o.is("-A", "--catenate", "--concatenate", "-c", "--create", "-r", "--append", "-u", "--update", "-x", "--extract", "--get", "--delete"):
			if mode == nil {
				mode = &opts[i]
			}
		case o.is("-I", "--use-compress-program", "-F", "--info-script", "--new-volume-script", "--to-command"):
			cmd.mark(o.at, o.key, fmt.Sprintf("runs a command (tar %s)", o.name))
			if o.hasVal {
				c.runsShell(cmd, o.val, "tar "+o.name)
			}
		case o.is("--rsh-command", "--rmt-command"):
			cmd.mark(o.at, o.key, fmt.Sprintf("runs a program (tar %s)", o.name))
			c.runsProgram(cmd, []word{o.val}, "tar "+o.name)
		case o.is("--checkpoint-action"):
			if v, ok := strings.CutPrefix(o.val.text, "exec="); ok || o.val.kind == wDyn {
				cmd.mark(o.at, o.key, "runs a command (tar --checkpoint-action=exec=)")
				c.runsShell(cmd, word{text: v, kind: o.val.kind}, "tar --checkpoint-action")
			}
		}
	}
	// Listing (-t) and comparing (-d) only read; every other mode writes.
	if mode != nil {
		cmd.mark(mode.at, mode.key, fmt.Sprintf("writes files (tar %s)", mode.name))
	}
}
