// Package permission decides whether a tool call runs, asks the user or is
// refused, and carries the question to whoever can answer it.
//
// The agent builds a Call with CallFor (only the tool's own path or
// command argument counts; anything else the model sends is ignored),
// asks Policy.Decide, and for Ask sends a Request through the Broker.
// The answer may carry a Grant (session or workspace) that the session
// layer stores and passes back in Policy.Grants.
//
// Decisions this package makes, so that the UI and the docs can say them:
//
//   - Modes: "ask_all" asks for every call, reads too; "ask" (the default)
//     runs reads and asks for changes and commands; "auto" runs
//     everything. In every mode deny rules refuse and changes to protected
//     paths ask. In ask_all, the user's explicit allow rules, remembered
//     grants and tools set to always still run without asking: the mode
//     sets the default, the user's own rules are more specific.
//   - Precedence: deny (rules, deny grants, tool set to never, paths
//     outside the workspace) > protected paths (ask, never remembered) >
//     allow grants > ask rules > allow rules > the tool's setting > the
//     mode. Grants beat ask rules because the user made them for exactly
//     that call.
//   - Protected paths: **/.git/config, **/.git/config.worktree,
//     **/.git/hooks/**, submodules' **/.git/modules/**/config and
//     **/.git/modules/**/hooks/**, .env* at any depth, the workspace's
//     .loupe/ (its settings file: the model must not be able to trust
//     itself) and Loupe's own settings and database files
//     (Policy.ProtectedFiles, with -wal, -shm and -journal) when they lie
//     in the workspace. Changing them asks in every mode including auto,
//     each time (Decision.OnceOnly; the broker refuses to remember such an
//     answer). They are matched case-insensitively, lexically (so a file
//     that does not exist yet is covered) and through symlinks. Reading
//     them is not protected; a deny rule does that. In ask_all a protected
//     change asks like everything else; it is not refused, so that "ask
//     every time" never silently refuses.
//   - Paths are judged as given and where they really lead, found by the
//     tools' own resolver (tools.Workspace.Resolve): every symlink of a
//     chain followed as opening the path follows it, a dangling link to
//     where its target would be created. What the policy judges is what
//     the tool opens.
//   - Decided, then changed: the calls of a message are decided first and
//     run in parallel, so a command may turn a path into a symlink after
//     its decision. DecideGuarded returns, with the decision, a CallGuard
//     that the agent hands the tool (tools.WithGuard); once the tool has
//     opened its file it checks what it opened, and anything but the
//     files the decision was taken on is refused, before a byte is read
//     or written.
//   - Paths that lead outside the workspace ("..", absolute paths
//     elsewhere, symlinks out) are refused; the tools refuse them too.
//     Absolute paths need Policy.Workspace to be placed.
//   - Commands (run_command) are parsed with mvdan.cc/sh in the dialect of
//     the shell that runs them (cmdshell.Commands(): bash where the system
//     has it, /bin/sh read as POSIX sh otherwise), and in the other dialect
//     too: commands only the other reading finds count for deny and ask
//     rules, and where the running shell is not known (sh -c, watch,
//     programs that run sh -c, /bin/sh itself) a difference between the two
//     readings asks. Each simple command of a chain
//     (; && || & newlines, pipes, if/for/while/case bodies) must be
//     allowed by a rule for the line to run without asking. These always
//     ask unless a rule for the exact command line (a grant) allows it:
//     command substitution ($(…) and backticks), process substitution,
//     redirections that write (anything but /dev/null, /dev/stdout,
//     /dev/stderr and fd duplication such as 2>&1), variable assignments
//     and declarations, functions, coprocesses, arithmetic commands, a
//     command name only known at run time, pipes or redirections into an
//     interpreter that then reads its program from stdin (sh, bash, dash,
//     zsh, ksh, python*, perl, ruby, node, php, lua …), eval of text built
//     at run time, sh -c of such text, other shells' languages (fish, csh,
//     pwsh), running as another user (sudo, doas, su, pkexec), runners
//     Loupe does not unwrap exactly (watch, flock, ssh, strace, chroot …),
//     aliases defined in the command, git -c
//     and --config-env (configuration can run programs), git config
//     --global/--system/--file, cd to an unknown place or out of the
//     workspace, control characters, a parse failure. A git config that
//     sets something counts as a write to .git/config (protected).
//   - Writer options: commands that usually only read can write files or
//     run programs with some options, and an allow rule for the read
//     ("git log *", "sort *", "sed *") does not cover them unless it
//     spells the option out in its own word ("sort -o * *", "sed -i *"):
//     find -fprint/-fprint0/-fprintf/-fls/-delete, sort -o/--output and
//     --compress-program, sed -i/--in-place, -f and scripts with w, W,
//     s///w, e or s///e, git --output (log, diff, show …), format-patch
//     and archive -o, git grep -O, ls-remote/fetch/clone --upload-pack,
//     rg --pre/--pre-glob/--hostname-bin, tee FILE, dd of=, awk programs
//     with print > file, pipes, system() or @include and awk -f/-i/-l,
//     curl -o/-O/-D/-c/-K, wget -O FILE/-o/-e, tar in any mode but -t
//     and -d and its -I/--to-command, uniq and xxd's output operand,
//     less -o, man -P/-H, shuf/iconv/sdiff/tree -o, yq -i, file -C,
//     openssl -out, fd -x, vim -c, split --filter, gcc -wrapper and
//     zip -TT/--unzip-command; run-parts and ed (its ! commands) are
//     opaque. A program Loupe does not know that runs another program is
//     not seen (docs/SECURITY.md). A program Loupe cannot read to the
//     end counts as writing. The files they name count as writes, so a
//     protected one asks in every mode. Commands they run (rg --pre CMD,
//     tar --to-command, awk system("…"), sed e …) count for deny rules
//     and need allow rules of their own.
//   - Opaque commands run code no parser can see into: interpreters given
//     inline code or a script (python3 -c, perl -e, node x.js), shells
//     given a script file, source and ., programs run by a path (./x),
//     make and the like, package scripts (npm run, npx, yarn), go
//     run/test/generate, cargo run/test/build, assignments that load code
//     (LD_PRELOAD, PATH, BASH_ENV …). With command deny or ask rules
//     configured, such a command asks, in every mode, auto included,
//     unless a rule for its exact line (a remembered answer) allows it;
//     the reason says what is hidden and which rules it cannot check.
//     With no such rules it is an ordinary command. Rule.Limits says so
//     for the settings page and suggests the equivalent path rule, which
//     the sandbox enforces for commands too.
//   - Text bash evaluates as code when it runs (arithmetic, array
//     subscripts, substring offsets, [[ -eq ]], the names test -v,
//     printf -v, read, unset and declare parse, namerefs, ${!x}, ${x@P},
//     integer variables) is opaque unless its operand is a constant the
//     walk knows (a number, a variable every assignment gives a number,
//     $#, $?, ${#x} …): x=$(cat n.txt); echo $((x)) runs whatever n.txt's
//     subscript holds. Such a command also is not covered by an allow rule
//     for its words, only by one for its exact line (shell_eval.go).
//   - What the command defines for itself is expanded so that deny rules
//     see it: aliases (alias x=rm), functions called with their
//     arguments (f(){ rm -rf "$@"; }; f d), sh -c scripts with their
//     arguments, eval of literal text, scripts written with echo, printf
//     or cat <<EOF and then run (sh s.sh, ./s.sh, source), trap
//     commands, commands named in settings (git -c alias.x='!…',
//     core.pager, LESSOPEN, EDITOR …), and what sudo, doas, su -c,
//     busybox, watch and the like start.
//   - Wrappers are unwrapped and their inner command checked instead:
//     env (its NAME=value words stay in front of the command), timeout,
//     nice, nohup, setsid, stdbuf, ionice, time, exec, command, builtin,
//     xargs (its command gets arguments from input, which no rule can
//     vouch for), sh/bash -c 'script' (parsed), eval of literal words
//     (parsed), find -exec/-execdir/-ok/-okdir (find's own words and the
//     inner command are both checked; "{}" is not known in advance).
//     A wrapper with options Loupe does not know asks.
//   - Words: a word with a variable, substitution or $'…' is not known
//     before it runs and no allow rule matches it, not even *. A word the
//     shell expands (unquoted *, ?, [ ], {a,b}, leading ~) matches only a
//     bare * in an allow rule. Deny and ask rules are checked against
//     every command found, inner and substituted ones too, by base name
//     (deny "rm *" covers /bin/rm and \rm); when such a word might make
//     a deny rule match, Loupe asks (once only), in every mode.
//   - cd, pushd, true, false, :, pwd and command -v need no rule. The
//     classifier follows cd into subdirectories so that paths the command
//     mentions are placed right; a command that mentions or writes a
//     protected path asks, and one that mentions a path a deny rule covers
//     asks (it is not refused: a word is not always a path).
//   - A command with parts that cannot be seen (an interpreter reading
//     stdin, eval of run-time text, a variable command name, the opaque
//     commands above) asks when command deny or ask rules exist, since
//     they could not be checked: in auto mode, for tools set to always
//     and under allow rules alike.
//   - Deny or ask rules that do not compile make the calls they are about
//     ask (allow rules that do not compile are ignored). Validate rules
//     when they are saved (Rule.Validate, Policy.Validate).
//   - A workspace's .loupe/settings.json may propose rules, commands to
//     allow, an Ollama host and network access. Its deny and ask rules
//     always count (they only restrict); Policy ignores the rest unless
//     Policy.Trusted is set, and the session layer must do the same for
//     the host and the network (WorkspaceSettings.IfTrusted).
//
// The classifier decides when to ask; it enforces nothing. The sandbox
// confines what commands can do, whatever was decided here.
package permission
