package permission

import (
	"fmt"
	"strings"
)

// This file reads the options of git subcommands that write files or run
// programs although the subcommand looks like a read (git log --output,
// git grep -O, git ls-remote --upload-pack), and the commands git runs
// for bisect run, submodule foreach, rebase -x and filter-branch.

// longIs reports whether given is the long option full, as written or
// abbreviated.
func longIs(given, full string) bool {
	return given == full || len(given) > 2 && strings.HasPrefix(given, "--") && strings.HasPrefix(full, given)
}

// gitSub reads the words after git's subcommand; off is the index of
// args[0] in cmd's words.
func (c *classifier) gitSub(cmd *command, sub string, off int, args []word) {
	switch sub {
	case "bisect":
		if len(args) > 0 && args[0].text == "run" {
			cmd.mark(off, "run", "runs a command (git bisect run)")
			c.runsProgram(cmd, args[1:], "git bisect run")
		}
		return
	case "submodule":
		for j, w := range args {
			if w.text != "foreach" {
				continue
			}
			rest := args[j+1:]
			for len(rest) > 0 && (rest[0].text == "--recursive" || rest[0].text == "--") {
				rest = rest[1:]
			}
			cmd.mark(off+j, "foreach", "runs a command in every submodule (git submodule foreach)")
			if len(rest) > 0 {
				c.runsShell(cmd, joinWords(rest), "git submodule foreach")
			}
			return
		}
		return
	}
	for j := 0; j < len(args); j++ {
		w := args[j]
		t := w.text
		if t == "--" {
			return
		}
		at := off + j
		name, val, attached := strings.Cut(t, "=")
		// value is the option's value: attached, or the next word.
		value := func() (word, bool) {
			if attached {
				return word{text: val, kind: w.kind}, true
			}
			if j+1 < len(args) {
				j++
				return args[j], true
			}
			return word{}, false
		}
		short := func() (word, bool) {
			if len(t) > 2 {
				return word{text: t[2:], kind: w.kind}, true
			}
			return value()
		}
		runs := func(v word, ok bool, what string) {
			cmd.mark(at, name, fmt.Sprintf("runs a command (git %s %s)", sub, what))
			if ok {
				c.runsShellOn(cmd, v, "git "+sub+" "+what)
			}
		}
		isShort := strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--")
		switch {
		case longIs(name, "--output") || sub == "format-patch" && longIs(name, "--output-directory"):
			v, ok := value()
			c.writesOpt(cmd, opt{at: at, name: name, key: name, val: v, hasVal: ok}, "git "+sub, false)
		case (sub == "format-patch" || sub == "archive") && isShort && strings.HasPrefix(t, "-o"):
			v, ok := short()
			c.writesOpt(cmd, opt{at: at, name: "-o", key: "-o", val: v, hasVal: ok}, "git "+sub, false)
		case sub == "grep" && (isShort && strings.HasPrefix(t, "-O") || longIs(name, "--open-files-in-pager")):
			// The pager is optional and only ever attached.
			key := name
			if isShort {
				key, attached, val = "-O", len(t) > 2, strings.TrimPrefix(t, "-O")
			}
			cmd.mark(at, key, "runs a command on the files it finds (git grep -O)")
			if attached {
				c.runsShellOn(cmd, word{text: val, kind: w.kind}, "git grep -O")
			}
		case sub == "clone" && (isShort && strings.ContainsRune(t[1:], 'c') || longIs(name, "--config")):
			// clone -c KEY=VALUE: settings of the new repository, which the
			// git commands after it in the script run.
			v, ok := word{}, false
			if isShort {
				if k := strings.IndexByte(t, 'c'); k+1 < len(t) {
					v, ok = word{text: t[k+1:], kind: w.kind}, true
				} else if j+1 < len(args) {
					j++
					v, ok = args[j], true
				}
			} else {
				v, ok = value()
			}
			if ok {
				c.newRepoSetting(cmd, v, "git clone "+name)
			}
		case (sub == "clone" || sub == "init" || sub == "init-db") && longIs(name, "--template"):
			// The template folder's config and hooks become the new
			// repository's: what the commands after it run.
			c.a.unseenPart("git %s --template (settings and hooks copied from a folder the script may have written)", sub)
		case (sub == "ls-remote" || sub == "clone") && t == "-u":
			v, ok := value()
			runs(v, ok, "-u")
		case (sub == "ls-remote" || sub == "fetch" || sub == "pull" || sub == "clone") && longIs(name, "--upload-pack"),
			sub == "push" && (longIs(name, "--receive-pack") || longIs(name, "--exec")),
			(sub == "archive" || sub == "ls-remote") && longIs(name, "--exec"),
			sub == "difftool" && longIs(name, "--extcmd"),
			sub == "rebase" && longIs(name, "--exec"),
			sub == "filter-branch" && strings.HasPrefix(name, "--") && strings.HasSuffix(name, "-filter"):
			v, ok := value()
			runs(v, ok, name)
		case (sub == "difftool" || sub == "rebase") && t == "-x":
			v, ok := value()
			runs(v, ok, "-x")
		}
	}
}

// gitConfigValue reads git -c NAME=VALUE for deny rules: an alias that
// starts with ! and settings that name a command (core.pager,
// core.sshCommand, diff.external …) run what they say.
func (c *classifier) gitConfigValue(cmd *command, w word) {
	if w.kind == wDyn {
		return
	}
	key, val, ok := strings.Cut(w.text, "=")
	if !ok || val == "" {
		return
	}
	key = strings.ToLower(key)
	if strings.HasPrefix(val, "!") {
		c.runsShellOn(cmd, word{text: val[1:]}, "git -c "+key)
		return
	}
	for _, part := range []string{"pager", "editor", "command", "external", "textconv", "program", "askpass", "cmd", "helper", "fsmonitor"} {
		switch {
		case !strings.Contains(key, part):
			continue
		case part == "pager":
			c.runsShell(cmd, word{text: val}, "git -c "+key) // it reads from its input
		default:
			c.runsShellOn(cmd, word{text: val}, "git -c "+key)
		}
		return
	}
}

// harmlessNewRepoSettings are settings a new repository may be given that
// make git run nothing.
var harmlessNewRepoSettings = setOf("user.name", "user.email", "core.autocrlf", "core.eol", "core.filemode",
	"core.symlinks", "core.ignorecase", "init.defaultbranch", "http.sslverify", "protocol.version",
	"core.longpaths", "advice.detachedhead", "pull.rebase", "push.default", "commit.gpgsign")

// newRepoSetting reads one KEY=VALUE given to a repository a command makes
// (git clone -c): a command it names counts for deny rules, and any
// setting not known to run nothing counts as partly unseen (a hooks path,
// an include, a filter: what later git commands run).
func (c *classifier) newRepoSetting(cmd *command, w word, what string) {
	c.a.reason("it gives a new repository settings (%s), which can run programs", what)
	c.gitConfigValue(cmd, w)
	key, _, _ := strings.Cut(w.text, "=")
	if w.kind == wDyn || !harmlessNewRepoSettings[strings.ToLower(key)] {
		c.a.unseenPart("%s %s (a setting of the new repository that later git commands may run)", what, clip(w.text))
	}
}

// joinWords is several words as one, as a command that joins its
// arguments with spaces sees them.
func joinWords(ws []word) word {
	parts := make([]string, len(ws))
	kind := wLit
	for i, w := range ws {
		parts[i] = w.text
		kind = max(kind, w.kind)
	}
	if kind == wGlob {
		kind = wLit // the glob was expanded before the join; its text is what we have
	}
	return word{text: strings.Join(parts, " "), kind: kind}
}

// gitCommands are git's own commands (git --list-cmds=main): any other
// word in their place is an alias or a git-NAME program.
var gitCommands = setOf(
	"add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bugreport", "bundle", "cat-file",
	"check-attr", "check-ignore", "check-mailmap", "check-ref-format", "checkout", "checkout-index", "cherry",
	"cherry-pick", "clean", "clone", "column", "commit", "commit-graph", "commit-tree", "config", "count-objects",
	"credential", "credential-cache", "credential-store", "daemon", "describe", "diagnose", "diff", "diff-files",
	"diff-index", "diff-tree", "difftool", "fast-export", "fast-import", "fetch", "fetch-pack", "filter-branch",
	"fmt-merge-msg", "for-each-ref", "for-each-repo", "format-patch", "fsck", "fsck-objects", "gc",
	"get-tar-commit-id", "grep", "hash-object", "help", "http-backend", "http-fetch", "http-push", "imap-send",
	"index-pack", "init", "init-db", "instaweb", "interpret-trailers", "log", "ls-files", "ls-remote", "ls-tree",
	"mailinfo", "mailsplit", "maintenance", "merge", "merge-base", "merge-file", "merge-index", "merge-one-file",
	"merge-tree", "mergetool", "mktag", "mktree", "multi-pack-index", "mv", "name-rev", "notes", "pack-objects",
	"pack-redundant", "pack-refs", "patch-id", "prune", "prune-packed", "pull", "push", "quiltimport",
	"range-diff", "read-tree", "rebase", "receive-pack", "reflog", "remote", "repack", "replace", "request-pull",
	"rerere", "reset", "restore", "rev-list", "rev-parse", "revert", "rm", "send-pack", "shortlog", "show",
	"show-branch", "show-index", "show-ref", "sparse-checkout", "stage", "stash", "status", "stripspace",
	"submodule", "subtree", "switch", "symbolic-ref", "tag", "unpack-file", "unpack-objects", "update-index",
	"update-ref", "update-server-info", "upload-archive", "upload-pack", "var", "verify-commit", "verify-pack",
	"verify-tag", "version", "whatchanged", "worktree", "write-tree",
	// newer gits' own commands
	"backfill", "last-modified", "refs", "repo", "replay",
)
