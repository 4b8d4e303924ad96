package sandbox_test

// Attacks found by a security review, kept as tests. Each runs a real
// command through sandbox.Confined with the real policy's CommandGuard,
// then does what the user would do on the host afterwards (run git) and
// checks for a marker: a repository's settings files that did not exist
// (commondir, config.worktree), a bare repository in a subfolder, settings
// the disarm step did not know, files it could not read, a FIFO, another
// project's worktree adopted through a planted .git file, and the kernel
// session keyring.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"golang.org/x/sys/unix"
)

func advRun(t *testing.T, c sandbox.Confined, script string) sandbox.Output {
	t.Helper()
	if p := sandbox.Probe(); !p.Sandboxed() {
		t.Skipf("this kernel cannot confine commands: %s", p.Summary())
	}
	c.BestEffort = true
	exe, _ := os.Executable()
	c.Expose = append(c.Expose, exe)
	if c.Guard == nil {
		c.Guard = permission.Policy{Workspace: c.Workspace}.CommandGuard()
	}
	out, err := c.Run(context.Background(), sandbox.Command{Dir: c.Workspace, Script: script, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Logf("command output (exit %d, confined=%v):\n%s", out.ExitCode, out.Confined, out.Text)
	return out
}

func hostGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=a@b", "-c", "user.name=n"}, args...)...)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	return string(out)
}

func initRepo(t *testing.T, dir string) {
	t.Helper()
	hostGit(t, dir, "init", "-q")
	os.WriteFile(filepath.Join(dir, "README"), []byte("hi\n"), 0o644)
	hostGit(t, dir, "add", "README")
	hostGit(t, dir, "commit", "-q", "-m", "init")
}

func ran(t *testing.T, marker string) bool {
	t.Helper()
	_, err := os.Stat(marker)
	return err == nil
}

// 1. .git/commondir does not exist, so it is not a read-only mount: a
// command creates it and points the repository's common dir (config,
// hooks, refs) at a folder of its own.
func TestAdversaryCommondir(t *testing.T) {
	ws := t.TempDir()
	initRepo(t, ws)
	marker := filepath.Join(t.TempDir(), "PWNED")
	advRun(t, sandbox.Confined{Workspace: ws}, `set -e
mkdir -p build/.cache-x
cp -r .git/objects .git/refs build/.cache-x/
cp .git/HEAD build/.cache-x/
printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = "touch `+marker+`; false"\n' > build/.cache-x/config
mkdir -p build/.cache-x/hooks
printf '#!/bin/sh\ntouch `+marker+`.hook\n' > build/.cache-x/hooks/pre-commit; chmod +x build/.cache-x/hooks/pre-commit
echo ../build/.cache-x > .git/commondir
git status --short; echo planted`)
	t.Logf("host git status:\n%s", hostGit(t, ws, "status"))
	hostGit(t, ws, "commit", "-q", "--allow-empty", "-m", "user commit")
	if ran(t, marker) || ran(t, marker+".hook") {
		t.Errorf("FINDING: the user's git ran a program the command planted via .git/commondir (fsmonitor=%v hook=%v)", ran(t, marker), ran(t, marker+".hook"))
	}
}

// 2. .git/config.worktree is read by git when the repository has
// extensions.worktreeConfig (git sparse-checkout sets it). Not existing, it
// is not protected.
func TestAdversaryConfigWorktree(t *testing.T) {
	ws := t.TempDir()
	initRepo(t, ws)
	hostGit(t, ws, "config", "extensions.worktreeConfig", "true")
	marker := filepath.Join(t.TempDir(), "PWNED")
	advRun(t, sandbox.Confined{Workspace: ws}, `printf '[core]\n\tfsmonitor = "touch `+marker+`; false"\n' > .git/config.worktree; echo planted`)
	hostGit(t, ws, "status")
	if ran(t, marker) {
		t.Errorf("FINDING: .git/config.worktree created by the command ran on the user's git status")
	}
}

// 3. A bare-repository look-alike in an ordinary folder of the working
// tree: git finds it (safe.bareRepository defaults to all) before the
// workspace's .git, and disarmNewRepos only looks at folders named .git.
func TestAdversaryBareRepoInSubdir(t *testing.T) {
	ws := t.TempDir()
	initRepo(t, ws)
	os.MkdirAll(filepath.Join(ws, "src"), 0o755)
	marker := filepath.Join(t.TempDir(), "PWNED")
	out := advRun(t, sandbox.Confined{Workspace: ws}, `set -e; cd src
mkdir -p objects refs/heads
echo 'ref: refs/heads/main' > HEAD
cat > config <<'CFG'
[core]
	pager = "touch MARK.pager; cat"
[protocol "ext"]
	allow = always
[remote "origin"]
	url = "ext::sh -c touch% MARK.fetch"
CFG
sed -i "s|MARK|`+marker+`|g" config
echo planted`)
	src := filepath.Join(ws, "src")
	t.Logf("host git -C src rev-parse: %s", hostGit(t, src, "rev-parse", "--git-dir", "--is-bare-repository"))
	// the user in a terminal: git log (script gives it a tty)
	c := exec.Command("script", "-qec", "git log; git branch", "/dev/null")
	c.Dir = src
	b, _ := c.CombinedOutput()
	t.Logf("host git log in a tty: %q", b)
	t.Logf("host git fetch: %s", hostGit(t, src, "fetch", "-q", "origin"))
	if ran(t, marker+".pager") || ran(t, marker+".fetch") {
		t.Errorf("FINDING: git run by the user in src/ ran a program of a bare-repository look-alike the command made (pager=%v fetch=%v, disarm note=%v)", ran(t, marker+".pager"), ran(t, marker+".fetch"), strings.Contains(out.Text, "disarm"))
	}
}

// 4. A new repository (which disarmNewRepos checks) whose settings run a
// program under keys the list does not know, or hidden behind a line
// longer than readGitConfig's 1 MiB buffer.
func TestAdversaryDisarmBypass(t *testing.T) {
	cases := map[string]string{
		"ext-remote":   `git init -q sub && printf '[protocol "ext"]\n\tallow = always\n[remote "origin"]\n\turl = "ext::sh -c touch%% MARK"\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n' >> sub/.git/config && cat sub/.git/config`,
		"pager-status": `git init -q sub && printf '[pager]\n\tstatus = "touch MARK; cat"\n' >> sub/.git/config`,
		"long-line":    `git init -q sub && { printf '#'; head -c 1200000 /dev/zero | tr '\0' x; printf '\n[core]\n\tfsmonitor = "touch MARK; false"\n'; } >> sub/.git/config`,
		"big-pointer": `mkdir -p sub notgit/objects notgit/refs && echo 'ref: refs/heads/main' > notgit/HEAD &&
printf '[core]\n\tbare = false\n\tfsmonitor = "touch MARK; false"\n' > notgit/config &&
{ printf 'gitdir: ../notgit'; head -c 6000 /dev/zero | tr '\0' '\n'; } > sub/.git`,
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			marker := filepath.Join(t.TempDir(), "PWNED")
			out := advRun(t, sandbox.Confined{Workspace: ws}, strings.ReplaceAll(script, "MARK", marker)+"; echo planted")
			sub := filepath.Join(ws, "sub")
			t.Logf("host git status: %s", hostGit(t, sub, "status"))
			t.Logf("host git fetch: %s", hostGit(t, sub, "fetch", "-q", "origin"))
			c := exec.Command("script", "-qec", "git status", "/dev/null")
			c.Dir = sub
			c.Run()
			if ran(t, marker) {
				t.Errorf("FINDING: %s: a repository the command made ran a program on the user's git (disarmed note: %v)", name, strings.Contains(out.Text, "disarmed"))
			}
		})
	}
}

// 5. The post-command check reads a "config" wherever a .git file points,
// outside the workspace too, and prints the value of the first setting
// that runs a program: a channel to read files of the user's home.
func TestAdversaryDisarmLeaksOutsideConfig(t *testing.T) {
	secretDir := t.TempDir() // stands for ~/.config/git or ~/.aws
	os.WriteFile(filepath.Join(secretDir, "config"), []byte("[default]\nregion = x\ncredential_process = /usr/bin/fetch --token SECRET-abc123\n"), 0o600)
	os.MkdirAll(filepath.Join(secretDir, "hooks", "id_ed25519-SECRET-NAME"), 0o700)
	ws := t.TempDir()
	out := advRun(t, sandbox.Confined{Workspace: ws}, fmt.Sprintf(`mkdir a b; echo 'gitdir: %s' > a/.git; echo 'gitdir: %s/nope' > b/.git; ls %s 2>&1 | head -1`, secretDir, secretDir, secretDir))
	if strings.Contains(out.Text, "SECRET") {
		t.Errorf("FINDING: Loupe's post-command check printed a secret from outside the sandbox into the command's output")
	}
}

// 6. The post-command check opens a "config" that is a FIFO: Loupe's run
// blocks forever after the command ended.
func TestAdversaryDisarmHangsOnFIFO(t *testing.T) {
	ws := t.TempDir()
	done := make(chan sandbox.Output, 1)
	go func() {
		c := sandbox.Confined{Workspace: ws, BestEffort: true, Guard: permission.Policy{Workspace: ws}.CommandGuard()}
		out, _ := c.Run(context.Background(), sandbox.Command{Dir: ws, Script: `mkdir x y && mkfifo x/config && echo 'gitdir: ../x' > y/.git && echo planted`, Timeout: 5 * time.Second})
		done <- out
	}()
	select {
	case out := <-done:
		t.Logf("returned: %q", out.Text)
	case <-time.After(15 * time.Second):
		t.Errorf("FINDING: Confined.Run (5s command timeout) had not returned 15s after: Loupe blocks on a FIFO planted for its post-command check")
		// unblock it
		f, err := os.OpenFile(filepath.Join(ws, "x", "config"), os.O_WRONLY, 0)
		if err == nil {
			f.Close()
		}
		select {
		case <-done:
			t.Log("returned after the FIFO was opened for writing")
		case <-time.After(5 * time.Second):
		}
	}
}

// 9. The session keyring is inherited by the command (keyctl is not
// confined by Landlock or the namespaces).
func TestAdversarySessionKeyring(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("perl")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, err := unix.KeyctlJoinSessionKeyring("loupe-adversary"); err != nil {
		t.Skipf("join session keyring: %v", err)
	}
	id, err := unix.AddKey("user", "loupe-adv-secret", []byte("SECRET-KEYRING-VALUE"), unix.KEY_SPEC_SESSION_KEYRING)
	if err != nil {
		t.Skipf("add_key: %v", err)
	}
	t.Logf("key %d in a session keyring of this thread", id)
	ws := t.TempDir()
	out := advRun(t, sandbox.Confined{Workspace: ws}, `perl -e '
my ($t, $d) = ("user", "loupe-adv-secret");
my $id = syscall(250, 10, -3, $t, $d, 0);  # KEYCTL_SEARCH in @s
print "search: $id ($!)\n";
my $buf = "\0" x 256; my $n = syscall(250, 11, $id, $buf, 256); # KEYCTL_READ
print "read: ", substr($buf, 0, $n), "\n" if $n > 0;'`)
	if strings.Contains(out.Text, "SECRET-KEYRING-VALUE") {
		t.Errorf("FINDING: the command read a key from Loupe's session keyring")
	}
}

// 13. A non-repository workspace: the command writes a .git file pointing
// at another project's linked-worktree git directory. disarmNewRepos finds
// nothing dangerous in it; the next command's view (worktreeShares) then
// shows the other project's repository and makes its objects, refs and
// logs writable.
func TestAdversaryAdoptOtherProjectsWorktree(t *testing.T) {
	other := filepath.Join(t.TempDir(), "proj") // stands for ~/src/proj
	os.MkdirAll(other, 0o755)
	initRepo(t, other)
	os.WriteFile(filepath.Join(other, "secret.txt"), []byte("OTHER-PROJECT-SECRET\n"), 0o644)
	hostGit(t, other, "add", "secret.txt")
	hostGit(t, other, "commit", "-q", "-m", "s")
	hostGit(t, other, "worktree", "add", "-q", "-b", "feature", filepath.Join(filepath.Dir(other), "proj-feature"))
	wtGitDir := filepath.Join(other, ".git", "worktrees", "proj-feature")
	ws := t.TempDir()
	advRun(t, sandbox.Confined{Workspace: ws}, "echo 'gitdir: "+wtGitDir+"' > .git; echo planted")
	out := advRun(t, sandbox.Confined{Workspace: ws}, `g=`+other+`/.git
git --git-dir=$g show main:secret.txt 2>&1 || git --git-dir=$g show master:secret.txt
c=$(git --git-dir=$g commit-tree -m evil $(git --git-dir=$g mktree </dev/null)) && echo $c > $g/refs/heads/main-evil && echo wrote-ref
git --git-dir=$g update-ref refs/heads/master $c && echo moved-master`)
	if strings.Contains(out.Text, "OTHER-PROJECT-SECRET") {
		t.Errorf("FINDING: the command read another project's repository")
	}
	if _, err := os.Stat(filepath.Join(other, ".git", "refs", "heads", "main-evil")); err == nil {
		t.Errorf("FINDING: the command wrote a ref in another project's repository: %s", hostGit(t, other, "log", "--oneline", "-1", "master"))
	}
}
