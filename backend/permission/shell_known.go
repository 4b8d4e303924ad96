package permission

import "strings"

// This file lists the programs the classifier knows run no other command,
// whatever their arguments (or whose arguments that do are read in
// shell_writers.go, shell_git.go …). A program that is in no list may run
// commands of its own (rsync -e, scp -S, socat EXEC:, tmux, direnv exec,
// uv run, psql's \!, an editor's eval …): deny and ask rules cannot be
// checked against those, so the command counts as partly unseen. Without
// such rules nothing changes: allow rules and the modes judge the command
// by its words as before.

// plainPrograms run nothing but themselves, or run a program only through
// an option read in shell_programopts.go (install --strip-program …).
// prettier is not one: it loads its configuration and plugins as code.
var plainPrograms = setOf(
	// files and text (coreutils, util-linux, diffutils, findutils' locate)
	"ls", "dir", "vdir", "cat", "tac", "head", "tail", "wc", "uniq", "cut", "tr", "paste", "join", "comm",
	"fold", "fmt", "nl", "od", "hexdump", "base64", "base32", "basenc", "md5sum", "sha1sum", "sha224sum",
	"sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum", "date", "dirname", "basename", "realpath",
	"readlink", "echo", "printf", "yes", "seq", "sleep", "test", "[", "expr", "id", "whoami", "logname",
	"uname", "hostname", "hostid", "df", "du", "stat", "touch", "mkdir", "rmdir", "rm", "cp", "mv", "ln",
	"link", "unlink", "chmod", "chown", "chgrp", "install", "mktemp", "mkfifo", "truncate", "shred",
	"csplit", "rev", "numfmt", "factor", "printenv", "tty", "nproc", "arch", "users", "who", "groups",
	"sync", "diff", "cmp", "diff3", "grep", "egrep", "fgrep", "column", "expand", "unexpand", "strings",
	"tsort", "pr", "ptx", "look", "cal", "ncal", "locate", "which", "whereis", "getconf", "locale",
	"tput", "clear", "lsblk", "free", "uptime", "ps", "pgrep", "pkill", "kill", "killall", "lsof",
	// archives and compression (tar, zip and gzip's options that run
	// programs are read elsewhere)
	"gzip", "gunzip", "zcat", "bzip2", "bunzip2", "bzcat", "xz", "unxz", "xzcat", "zstd", "unzstd",
	"zstdcat", "lz4", "unzip", "zipinfo", "cpio",
	// data
	"jq", "bc", "sqlite3_analyzer", "nm", "objdump", "readelf", "size", "strip", "ar",
	// version control and build tools' reading parts
	"gofmt", "rustfmt", "clang-format", "black", "ruff", "shellcheck", "shfmt",
)

// shellBuiltins are the shell's own commands that the walk reads
// elsewhere (eval, trap, source …) or that run nothing: what they can
// make the shell run later (mapfile -C, enable -f, bind -x, set -H …) is
// read in shell_later.go and shell_eval.go.
var shellBuiltins = setOf(
	"set", "shift", "unset", "export", "readonly", "declare", "typeset", "local", "return", "exit", "break",
	"continue", "wait", "read", "mapfile", "readarray", "type", "hash", "getopts", "let", "shopt", "umask",
	"ulimit", "times", "dirs", "help", "logout", "caller", "disown", "suspend", "jobs", "bg", "fg", "enable",
	"history", "fc", "complete", "compgen", "compopt", "bind", "printf", "echo", "test", "[", "true", "false",
	":", "pwd", "kill", "nameref",
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// ownSubcommands are programs whose own subcommands run nothing else
// (or ask through projectRunners), and that run any other name given as
// their subcommand: an alias from their settings (cargo's
// .cargo/config.toml, gh alias set --shell) or a NAME-SUB program
// (cargo-xtask, a gh extension).
var ownSubcommands = map[string]map[string]bool{
	"cargo": setOf("run", "r", "test", "t", "bench", "build", "b", "check", "c", "clippy", "install", "fix", "doc", "d",
		"rustc", "version", "help", "metadata", "tree", "search", "locate-project", "pkgid", "verify-project", "new",
		"init", "add", "remove", "update", "fetch", "vendor", "login", "logout", "owner", "yank", "generate-lockfile",
		"read-manifest", "fmt", "uninstall", "clean", "info", "config", "report"),
	"gh": setOf("pr", "issue", "repo", "api", "auth", "browse", "codespace", "gist", "release", "run", "workflow",
		"search", "status", "label", "secret", "variable", "ssh-key", "gpg-key", "config", "completion", "cache",
		"ruleset", "project", "attestation", "org", "help", "version"),
}

// unknownProgram notes a program in no list of the classifier's, or a
// subcommand that is not the program's own.
func (c *classifier) unknownProgram(base string, args []word) {
	if own, ok := ownSubcommands[base]; ok {
		for _, w := range args {
			switch {
			case w.kind == wDyn:
				c.a.unseenPart("%s %s (a subcommand only known when it runs)", base, w.text)
			case strings.HasPrefix(w.text, "-") || strings.HasPrefix(w.text, "+"):
				continue // an option, or cargo's +toolchain
			case !own[w.text]:
				c.a.unseenPart("%s %s (an alias or a %s-%s program, which runs what it says)", base, w.text, base, w.text)
			}
			return
		}
		return
	}
	if plainPrograms[base] || shellBuiltins[base] || c.a.funcs[base].body != nil || c.a.aliases[base] != "" {
		return
	}
	if _, ok := projectRunners[base]; ok {
		return
	}
	c.a.unseenPart("%s (a program Loupe does not know: it may run commands of its own)", base)
}
