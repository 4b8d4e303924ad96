// Package attacks is the adversary's end-to-end suite for Loupe's command
// sandbox: "safety at depth". It holds tests only.
//
// Each test builds the real loupe binary (go build -tags desktop,production,
// as scripts/build.sh does), starts a REAL Ollama server (testkit/realollama)
// and gives it a scripted model (testkit/gguf) whose tool calls are the
// attack. It then runs, headless, as a user would:
//
//	loupe run --workspace WS --model attack-… --host URL --db FILE --json [--auto] "prompt"
//
// with $HOME pointing at a home folder the test made (so the secrets and
// sockets planted there are the ones Loupe must hide), and checks only what
// the user would notice afterwards: protected files byte-identical, no
// marker file left by code that escaped, no connection on a socket, no
// secret text in the transcript (the --json lines and `loupe export`), the
// database intact, no process left behind.
//
// Every attack runs twice: in the default mode, where anything that would
// ask is denied because there is no one to ask, and with --auto, where every
// call runs without asking and the OS sandbox alone must hold. Most attacks
// also have a "control" subtest that runs the same command with plain
// `sh -c`, outside Loupe, and checks that it does the damage: an attack that
// cannot do harm unconfined proves nothing when it does none confined.
//
// The attacks:
//
//   - protected_test.go: rewriting .git/config, the hooks, a submodule's git
//     dir and a nested clone's by globs, loops, git itself, replacing .git,
//     a gitlink and a command longer than the classifier reads; each also
//     run too long to check and through a symlinked --workspace. Then the
//     user runs git.
//   - gitdirs_test.go: a git dir of the command's own, in a workspace that
//     is a folder of a bigger repository or a linked worktree.
//   - gitlayouts_test.go: git's files of other layouts (a linked worktree's
//     config.worktree, a workspace that is a .git folder or a bare
//     repository, a commondir naming a folder with no HEAD, laid out before
//     or by the command, a commondir in the repository of a linked
//     worktree's submodule, a file the settings include through another
//     that is not there yet), and Loupe's check after the commands raced by a
//     parallel command swapping a folder with a link to outside.
//   - sockets_test.go: Unix sockets of the user's session (listeners in
//     /tmp, $HOME, /var/tmp, next to the workspace and in the abstract
//     namespace, tmux servers, an ssh-agent).
//   - userdata_test.go: credentials, shell history, other projects, other
//     Loupe databases and loupe's own environment.
//   - race_test.go: write_file racing `ln -sf` to a protected file.
//   - environment_test.go: workspace programs first in PATH.
//   - database_test.go: the run's own database inside the workspace, and
//     workspaces that are /, $HOME or hold Loupe's data folder.
//   - terminal_test.go: terminal control sequences and bidi controls in the
//     model's thinking and answers, a command's output and a file, which
//     nothing loupe run prints (with and without --json) or loupe export
//     writes may carry raw.
//   - limits_test.go: a fork bomb and a memory hog. These run loupe inside a
//     cgroup of the test's own (cage_test.go), with caps above what the
//     sandbox should allow, so that a missing limit fails the test instead
//     of the machine; without such a cgroup they skip and say why.
//
// The tests skip unless LOUPE_REAL_OLLAMA=1; with it, a server or binary
// that cannot be built fails them. Run them with
//
//	LOUPE_REAL_OLLAMA=1 go test -count=1 -v ./testkit/attacks
//
// LOUPE_BIN names a loupe binary to attack instead of building this
// checkout. The suite targets Linux, where the sandbox is.
package attacks
