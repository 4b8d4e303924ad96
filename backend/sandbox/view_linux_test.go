package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// These tests run real commands in the view the helper builds (mount
// namespace, pivot_root, read-only binds) and check what the user would
// notice on the host afterwards: bytes of protected files, markers, what a
// listener received.

// scratchDirsOfThisProcess lists the scratch directories this test
// process still has.
func scratchDirsOfThisProcess(t *testing.T) []string {
	t.Helper()
	ents, _ := os.ReadDir(scratchBase())
	var left []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "cmd-"+processTag()+"-") {
			left = append(left, e.Name())
		}
	}
	return left
}

// gitGuard is the guard the policy gives (a simplified copy for these
// tests: the real one is in backend/permission): repository settings and
// hooks read-only, .env hidden, *.pem hidden.
func gitGuard(rel string, isDir bool) Access {
	base := filepath.Base(rel)
	parent := filepath.Base(filepath.Dir(rel))
	switch {
	case base == ".git" && !isDir:
		return ReadOnly // a submodule's pointer to its repository
	case parent == ".git" && (base == "config" || base == "hooks"):
		return ReadOnly
	case strings.Contains(rel, ".git/modules/") && (base == "config" || base == "hooks"):
		return ReadOnly
	case strings.HasPrefix(base, ".env"), strings.HasSuffix(base, ".pem"):
		return Hidden
	}
	return Writable
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=a@b", "-c", "user.name=n", "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// hashTree hashes every file under dir (path, mode and content), so that
// any change shows.
func hashTree(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v\n", p, fi.Mode())
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// repoWithSubmodule makes a workspace that is a git repository with a
// submodule, and returns it.
func repoWithSubmodule(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test (scripts/deps.sh installs it)")
	}
	up := t.TempDir()
	git(t, up, "init", "-q")
	git(t, up, "commit", "-q", "--allow-empty", "-m", "up")
	ws := t.TempDir()
	git(t, ws, "init", "-q")
	os.WriteFile(filepath.Join(ws, "x"), []byte("[core]\n\tfsmonitor = touch MARKER\n"), 0o644)
	git(t, ws, "submodule", "-q", "add", up, "sub")
	git(t, ws, "commit", "-q", "-m", "init")
	return ws
}

func TestViewProtectedPathsAreReadOnly(t *testing.T) {
	p := protections(t)
	needs(t, p.Writes)
	ws := repoWithSubmodule(t)
	gitDir := filepath.Join(ws, ".git")
	protected := func() string {
		var h string
		for _, rel := range []string{"config", "hooks", "modules/sub/config", "modules/sub/hooks"} {
			h += hashTree(t, filepath.Join(gitDir, rel))
		}
		return h
	}
	before := protected()
	subPointer, _ := os.ReadFile(filepath.Join(ws, "sub", ".git"))

	attacks := []string{
		`cp x .gi?/config`,
		`for d in .git/hook?; do printf '#!/bin/sh\ntouch MARKER\n' > $d/pre-commit; chmod +x $d/pre-commit; done`,
		`git log --output .gi?/config`,
		`git config core.fsmonitor 'touch MARKER'`,
		`git config core.hooksPath /tmp`,
		`mv .git .g && mkdir .git && cp -r .g/. .git/ && git config core.hooksPath /tmp`,
		`mv .git/config .git/config.old; cp x .git/config`,
		`rm -rf .git/hooks; mkdir .git/hooks`,
		`cp x .git/modules/sub/config; echo 'touch MARKER' > .git/modules/sub/hooks/post-checkout`,
		`git -C sub config core.fsmonitor 'touch MARKER'`,
		`echo 'gitdir: /tmp/evil' > sub/.git`,
		`ln .git/config hard; echo '[core] fsmonitor=x' >> hard`,
		`chmod 777 .git/config`,
		`mkdir -p ws2 && mv sub ws2/ || true; ls`,
	}
	for _, a := range attacks {
		out := crun(t, Confined{Workspace: ws, Guard: gitGuard}, a)
		t.Logf("%s\n-> exit %d: %s", a, out.ExitCode, strings.TrimSpace(out.Text))
	}
	if before != protected() {
		t.Errorf(".git/config, hooks or a submodule's repository changed:\n%s", git(t, ws, "config", "--list", "--local"))
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "sub", ".git")); !bytes.Equal(b, subPointer) {
		t.Errorf("the submodule's .git pointer changed: %q", b)
	}
	// As the user would: git in the workspace runs nothing planted.
	git(t, ws, "status")
	git(t, ws, "commit", "-q", "--allow-empty", "-m", "after")
	git(t, filepath.Join(ws, "sub"), "status")
	if m, _ := filepath.Glob(filepath.Join(ws, "**", "MARKER")); len(m) > 0 {
		t.Errorf("a planted command ran: %v", m)
	}
	if _, err := os.Stat(filepath.Join(ws, "MARKER")); err == nil {
		t.Error("a planted command ran: MARKER in the workspace")
	}

	// The rest of the repository still works from inside.
	out := crun(t, Confined{Workspace: ws, Guard: gitGuard}, `git -c user.email=a@b -c user.name=n commit -q --allow-empty -m inside && git log --format=%s -1`)
	if strings.TrimSpace(out.Text) != "inside" {
		t.Errorf("git commit inside the sandbox: exit %d, %q", out.ExitCode, out.Text)
	}
}

func TestViewHidesDeniedPathsAndLoupesFiles(t *testing.T) {
	p := protections(t)
	needs(t, p.Secrets)
	ws := t.TempDir()
	files := map[string]string{
		".env":            "SECRET-ENV",
		"certs/key.pem":   "SECRET-PEM",
		"loupe.db":        "SECRET-DB",
		"loupe.db-wal":    "SECRET-WAL",
		"loupe.db-shm":    "SECRET-SHM",
		"src/ok.txt":      "visible",
		"deep/a/.env.dev": "SECRET-ENV2",
	}
	for rel, content := range files {
		p := filepath.Join(ws, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(ws, "loupe.db")
	c := Confined{Workspace: ws, Guard: gitGuard, Hide: []string{db, db + "-wal", db + "-shm"}}
	out := crun(t, c, `cat .env certs/key.pem loupe.db loupe.db-wal loupe.db-shm deep/a/.env.dev src/ok.txt; echo
cp /dev/null loupe.db-wal; echo junk > loupe.db; rm -f loupe.db-shm .env; mv certs/key.pem stolen; echo end`)
	if strings.Contains(out.Text, "SECRET") {
		t.Errorf("a hidden file was read:\n%s", out.Text)
	}
	if !strings.Contains(out.Text, "visible") || !strings.HasSuffix(out.Text, "end\n") {
		t.Errorf("output %q", out.Text)
	}
	for rel, content := range files {
		if b, err := os.ReadFile(filepath.Join(ws, rel)); err != nil || string(b) != content {
			t.Errorf("%s on the host is now %q, %v", rel, b, err)
		}
	}
}

func TestViewShowsNothingOfTheUsersHome(t *testing.T) {
	p := protections(t)
	needs(t, p.Secrets)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	// Markers in the real home, where a user's data would be.
	mark := unique("loupe-home-marker")
	dir := filepath.Join(home, mark)
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, rel := range []string{".config/git/credentials", ".pgpass", ".bash_history", "other-project/main.go"} {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte("SECRET-"+rel), 0o600)
	}
	other := t.TempDir() // another project next to the workspace
	os.WriteFile(filepath.Join(other, "code.go"), []byte("SECRET-OTHER"), 0o644)

	out := crun(t, Confined{}, fmt.Sprintf(`ls -A "$HOME" | grep -c loupe-home-marker; cat %[1]s/.config/git/credentials %[1]s/.pgpass %[1]s/.bash_history %[1]s/other-project/main.go %[2]s/code.go
echo "home=$HOME"; echo x > "$HOME/new"; cat "$HOME/new"; ls /tmp /run /var/tmp; echo end`, dir, other))
	if strings.Contains(out.Text, "SECRET") || !strings.HasPrefix(out.Text, "0\n") {
		t.Errorf("the command saw the user's files:\n%s", out.Text)
	}
	if !strings.Contains(out.Text, "home="+home+"\n") || !strings.Contains(out.Text, "x\n") {
		t.Errorf("the command has no private home of its own:\n%s", out.Text)
	}
	if _, err := os.Stat(filepath.Join(home, "new")); err == nil {
		os.Remove(filepath.Join(home, "new"))
		t.Error("a write to the private home reached the user's home")
	}
}

func TestViewExposesExtraPathsReadOnly(t *testing.T) {
	p := protections(t)
	needs(t, p.Secrets)
	tool := t.TempDir()
	os.WriteFile(filepath.Join(tool, "bin.sh"), []byte("#!/bin/sh\necho tool ran\n"), 0o755)
	out := crun(t, Confined{Expose: []string{tool}}, fmt.Sprintf(`%[1]s/bin.sh; echo y > %[1]s/new; rm -f %[1]s/bin.sh; echo end`, tool))
	if !strings.Contains(out.Text, "tool ran") {
		t.Errorf("the exposed tool did not run: %q", out.Text)
	}
	if _, err := os.Stat(filepath.Join(tool, "new")); err == nil {
		t.Error("an exposed path was written")
	}
	if _, err := os.Stat(filepath.Join(tool, "bin.sh")); err != nil {
		t.Error("an exposed file was removed")
	}
}

// listenUnix accepts connections on a Unix socket and counts them.
func listenUnix(t *testing.T, network, path string) *atomic.Int32 {
	t.Helper()
	ln, err := net.Listen(network, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return &n
}

func TestViewReachesNoSocketOutside(t *testing.T) {
	p := protections(t)
	needs(t, p.Sockets)
	home, _ := os.UserHomeDir()
	inTmp := filepath.Join(os.TempDir(), unique("loupe-sock")+".sock")
	inHome := filepath.Join(home, unique("loupe-sock")+".sock")
	abstract := "@" + unique("loupe-abstract")
	counts := map[string]*atomic.Int32{
		inTmp:    listenUnix(t, "unix", inTmp),
		inHome:   listenUnix(t, "unix", inHome),
		abstract: listenUnix(t, "unix", abstract),
	}
	exe := testExe(t)
	for _, allow := range []bool{false, true} {
		for addr := range counts {
			out := crun(t, Confined{AllowNetwork: allow}, fmt.Sprintf("%q %s unix %q", exe, testNetArg, addr))
			if strings.Contains(out.Text, "connected") {
				t.Errorf("network allowed=%v: connected to %s: %q", allow, addr, out.Text)
			}
		}
	}
	// The listeners work: one connection from outside is counted.
	if c, err := net.Dial("unix", inTmp); err == nil {
		c.Close()
	}
	for deadline := time.Now().Add(2 * time.Second); counts[inTmp].Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	for addr, n := range counts {
		want := int32(0)
		if addr == inTmp {
			want = 1
		}
		if got := n.Load(); got != want {
			t.Errorf("%s accepted %d connections, want %d", addr, got, want)
		}
	}
}

func TestViewCleansPath(t *testing.T) {
	p := protections(t)
	needs(t, p.Writes)
	ws := t.TempDir()
	bin := filepath.Join(ws, "node_modules", ".bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "cat"), []byte("#!/bin/sh\ntouch \"$PWD/MARKER\"\n"), 0o755)
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("text\n"), 0o644)
	for _, path := range []string{"node_modules/.bin:" + os.Getenv("PATH"), bin + ":" + os.Getenv("PATH"), ":" + os.Getenv("PATH"), ".:" + os.Getenv("PATH")} {
		t.Setenv("PATH", path)
		out := crun(t, Confined{Workspace: ws}, `cat a.txt; echo "$PATH"`)
		if _, err := os.Stat(filepath.Join(ws, "MARKER")); err == nil {
			t.Fatalf("PATH=%s ran the workspace's cat", path)
		}
		if !strings.HasPrefix(out.Text, "text\n") {
			t.Errorf("PATH=%s: %q", path, out.Text)
		}
	}
}

func TestCleanPath(t *testing.T) {
	ws := t.TempDir()
	got := cleanPath(strings.Join([]string{"", ".", "node_modules/.bin", ws + "/bin", ws, "/usr/bin", "/usr/bin/", "/bin"}, ":"), ws)
	if got != "/usr/bin:/bin" {
		t.Errorf("cleanPath = %q", got)
	}
	if got := cleanPath("relative:"+ws, ws); got != defaultPath {
		t.Errorf("nothing left: %q, want the default", got)
	}
}

func TestViewMemoryLimit(t *testing.T) {
	p := protections(t)
	needs(t, p.Writes)
	out := crun(t, Confined{MaxMemory: 256 << 20}, fmt.Sprintf("%q %s alloc %d; echo rc=$?", testExe(t), testNetArg, 1<<30))
	if strings.Contains(out.Text, "allocated") || strings.Contains(out.Text, "rc=0") {
		t.Errorf("1 GiB allocated under a 256 MiB limit: %q", out.Text)
	}
	out = crun(t, Confined{MaxMemory: 256 << 20}, fmt.Sprintf("%q %s alloc %d; echo rc=$?", testExe(t), testNetArg, 16<<20))
	if !strings.Contains(out.Text, "allocated") {
		t.Errorf("16 MiB under a 256 MiB limit: %q", out.Text)
	}
}

func TestRemoveLeftovers(t *testing.T) {
	if err := os.MkdirAll(scratchBase(), 0o700); err != nil {
		t.Fatal(err)
	}
	// A process that is gone: a PID that cannot exist now.
	dead := filepath.Join(scratchBase(), "cmd-999999999.12345-x")
	os.MkdirAll(filepath.Join(dead, "tmp", "deep"), 0o700)
	os.Chmod(filepath.Join(dead, "tmp"), 0o500) // as a command may leave it
	mine, err := newCommandDir()
	if err != nil {
		t.Fatal(err)
	}
	defer removeAll(mine.root)
	if n := RemoveLeftovers(); n < 1 {
		t.Errorf("RemoveLeftovers removed %d", n)
	}
	if _, err := os.Stat(dead); err == nil {
		t.Error("a dead process's scratch directory is still there")
	}
	if _, err := os.Stat(mine.root); err != nil {
		t.Errorf("a running process's scratch directory was removed: %v", err)
	}
}

func TestPlanWorkspacePinsParents(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, "a", "b", ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(ws, "a", "b", ".git", "config"), nil, 0o644)
	os.WriteFile(filepath.Join(ws, ".env"), nil, 0o644)
	plan, err := planWorkspace(ws, gitGuard, []string{filepath.Join(ws, "loupe.db")})
	if err != nil {
		t.Fatal(err)
	}
	j := func(p ...string) string { return filepath.Join(append([]string{ws}, p...)...) }
	want := viewPlan{
		Pins:     []string{j("a"), j("a", "b"), j("a", "b", ".git")},
		ReadOnly: []string{j("a", "b", ".git", "config"), j("a", "b", ".git", "hooks")},
		Hidden:   []string{j(".env")},
	}
	if fmt.Sprint(plan) != fmt.Sprint(want) {
		t.Errorf("plan\n%v\nwant\n%v", plan, want)
	}
}

func TestConfinedLeavesNoScratch(t *testing.T) {
	// A view is built and torn down per command without leaving
	// directories behind.
	needs(t, protections(t).Writes)
	for range 20 {
		out, err := Confined{}.Run(context.Background(), Command{Dir: t.TempDir(), Script: "true", Timeout: 10 * time.Second})
		if err != nil || out.ExitCode != 0 {
			t.Fatalf("%+v %v", out, err)
		}
	}
	if left := scratchDirsOfThisProcess(t); len(left) > 0 {
		t.Errorf("scratch directories left: %v", left)
	}
}

func TestToolchainsUnderHomeAreShown(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".cargo/bin", ".rustup/toolchains", ".nvm/versions/node/v22/bin", ".nvm/versions/node/v22/lib", ".pyenv/shims", ".pyenv/versions", "secret"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	os.WriteFile(filepath.Join(home, ".cargo", "credentials.toml"), []byte("token"), 0o600)
	ws := filepath.Join(home, "proj")
	os.MkdirAll(filepath.Join(ws, "bin"), 0o755)
	path := strings.Join([]string{home + "/.cargo/bin", home + "/.nvm/versions/node/v22/bin", home + "/.pyenv/shims", ws + "/bin", "/usr/bin", home + "/missing"}, ":")
	got := Toolchains(path, home, ws)
	want := []string{home + "/.cargo/bin", home + "/.rustup", home + "/.nvm/versions/node/v22", home + "/.pyenv/shims", home + "/.pyenv"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Toolchains =\n%v\nwant\n%v", got, want)
	}
}

func TestViewRunsToolchainsFromHomeButNotTheirCredentials(t *testing.T) {
	needs(t, protections(t).Secrets)
	home, _ := os.UserHomeDir()
	dir := filepath.Join(home, unique(".loupe-toolchain"))
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	os.WriteFile(filepath.Join(dir, "bin", "mytool"), []byte("#!/bin/sh\necho mytool ran\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "credentials.toml"), []byte("SECRET-TOKEN"), 0o600)
	t.Setenv("PATH", filepath.Join(dir, "bin")+":"+os.Getenv("PATH"))
	out := crun(t, Confined{}, fmt.Sprintf(`mytool; cat %s/credentials.toml; echo x > %s/bin/new; echo end`, dir, dir))
	if !strings.Contains(out.Text, "mytool ran") || strings.Contains(out.Text, "SECRET") {
		t.Errorf("output %q", out.Text)
	}
	if _, err := os.Stat(filepath.Join(dir, "bin", "new")); err == nil {
		t.Error("a toolchain folder was written")
	}
}

// A command that makes namespaces of its own still cannot undo the view:
// Landlock forbids changing mounts, and mounts carried into a new user
// namespace are locked together by the kernel.
func TestViewCannotBeUnmounted(t *testing.T) {
	needs(t, protections(t).Writes)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Fatal("unshare (util-linux) is needed for this test")
	}
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("keep\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	out := crun(t, Confined{Workspace: ws, Guard: gitGuard}, `
umount .git/config; echo "umount=$?"
mount --bind /tmp .git/hooks; echo "mount=$?"
unshare -Urm sh -c 'umount -l .git/config; echo "inner umount=$?"; echo evil >> .git/config; echo "inner write=$?"; mount -o remount,rw .git/config; echo "inner remount=$?"'
echo evil >> .git/config; echo "write=$?"`)
	t.Logf("%s", out.Text)
	if b, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); string(b) != "keep\n" {
		t.Errorf(".git/config is now %q", b)
	}
	if strings.Contains(out.Text, "umount=0") || strings.Contains(out.Text, "mount=0") {
		t.Errorf("a mount was changed: %s", out.Text)
	}
}

func TestViewHidesSocketsInTheWorkspace(t *testing.T) {
	needs(t, protections(t).Sockets)
	ws := t.TempDir()
	sock := filepath.Join(ws, ".tmux.sock")
	n := listenUnix(t, "unix", sock)
	out := crun(t, Confined{Workspace: ws}, fmt.Sprintf("%q %s unix .tmux.sock", testExe(t), testNetArg))
	if strings.Contains(out.Text, "connected") || n.Load() != 0 {
		t.Errorf("a command reached a server's socket in the workspace: %q", out.Text)
	}
}

// A repository the command makes (here in a folder of a bigger one, where
// nothing existed to make read-only) is disarmed afterwards when its
// settings would run a program.
func TestNewRepositoryThatRunsProgramsIsDisarmed(t *testing.T) {
	needs(t, protections(t).Writes)
	mono := t.TempDir()
	git(t, mono, "init", "-q")
	ws := filepath.Join(mono, "app")
	os.MkdirAll(ws, 0o755)
	marker := filepath.Join(t.TempDir(), "RAN")
	out := crun(t, Confined{Workspace: ws, Guard: gitGuard}, `git init -q && for d in .gi?; do printf '[core]\n\tfsmonitor = touch `+marker+`\n' >> $d/config; done; mkdir -p sub && cd sub && git init -q && echo '#!/bin/sh' > .git/hooks/post-checkout; echo done`)
	t.Logf("%s", out.Text)
	if !strings.Contains(out.Text, "renamed it to .git.loupe-disarmed") || !strings.Contains(out.Text, "fsmonitor") || !strings.Contains(out.Text, "hook, post-checkout") {
		t.Errorf("output does not say what was disarmed: %q", out.Text)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git")); err == nil {
		t.Fatal("the planted repository is still where git finds it")
	}
	git(t, ws, "status") // as the user would: finds the bigger repository
	git(t, filepath.Join(ws, "sub"), "status")
	if _, err := os.Stat(marker); err == nil {
		t.Error("git ran the planted fsmonitor")
	}
	// A plain `git init` stays as it is.
	ws2 := t.TempDir()
	out = crun(t, Confined{Workspace: ws2, Guard: gitGuard}, `git init -q && git -c user.email=a@b -c user.name=n commit -q --allow-empty -m m && echo ok`)
	if _, err := os.Stat(filepath.Join(ws2, ".git", "HEAD")); err != nil || strings.Contains(out.Text, "disarmed") {
		t.Errorf("a plain new repository was touched: %q", out.Text)
	}
}

// core.hooksPath = .husky/_ puts hooks in the working tree, where the guard
// sees plain files: they are read-only too.
func TestHooksInTheWorkingTreeAreReadOnly(t *testing.T) {
	needs(t, protections(t).Writes)
	ws := t.TempDir()
	git(t, ws, "init", "-q")
	os.MkdirAll(filepath.Join(ws, ".husky", "_"), 0o755)
	os.WriteFile(filepath.Join(ws, ".husky", "pre-commit"), []byte("npm test\n"), 0o755)
	git(t, ws, "config", "core.hooksPath", ".husky/_")
	out := crun(t, Confined{Workspace: ws, Guard: gitGuard}, `echo 'touch MARKER' >> .husky/pre-commit; echo x > .husky/_/h; echo end`)
	if b, _ := os.ReadFile(filepath.Join(ws, ".husky", "pre-commit")); string(b) != "npm test\n" {
		t.Errorf("a hook in the working tree was changed: %q (%s)", b, out.Text)
	}
	if _, err := os.Stat(filepath.Join(ws, ".husky", "_", "h")); err == nil {
		t.Error("a hook was added to the working tree's hooks folder")
	}
}

// A workspace that is a linked worktree can commit, and cannot change the
// settings of the repository it belongs to.
func TestLinkedWorktreeWorks(t *testing.T) {
	needs(t, protections(t).Writes)
	main := t.TempDir()
	git(t, main, "init", "-q")
	git(t, main, "commit", "-q", "--allow-empty", "-m", "first")
	ws := filepath.Join(t.TempDir(), "feature")
	git(t, main, "worktree", "add", "-q", "-b", "feature", ws)
	cfg, _ := os.ReadFile(filepath.Join(main, ".git", "config"))
	out := crun(t, Confined{Workspace: ws, Guard: gitGuard}, `git -c user.email=a@b -c user.name=n commit -q --allow-empty -m inside && git log --format=%s -1
git config core.fsmonitor 'touch MARKER'; echo '../../../../evil' > "$(git rev-parse --git-dir)/commondir"; echo end`)
	t.Logf("%s", out.Text)
	if !strings.HasPrefix(out.Text, "inside\n") {
		t.Errorf("git in a linked worktree: %q", out.Text)
	}
	if b, _ := os.ReadFile(filepath.Join(main, ".git", "config")); string(b) != string(cfg) {
		t.Errorf("the repository's settings changed:\n%s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(main, ".git", "worktrees", "feature", "commondir")); strings.Contains(string(b), "evil") {
		t.Error("the worktree's pointer to its repository was changed")
	}
	git(t, ws, "status")
}

// Without a mount namespace there is no view: protected paths, the home
// folder and sockets outside are reachable, and the probe says so, so that
// the policy asks before every command.
func TestDescribeWithoutAView(t *testing.T) {
	why := map[string]string{"mount": "refused by this kernel", "net": "refused by this kernel"}
	p := describe(setup{UserNS: true, PIDNS: true}, 7, "", why, false)
	for _, x := range []Protection{p.Writes, p.Secrets, p.Sockets} {
		if x.Active {
			t.Errorf("%s is active without a view: %s", x.Name, x.Detail)
		}
		if !strings.Contains(x.Detail, "refused by this kernel") {
			t.Errorf("%s does not say why: %s", x.Name, x.Detail)
		}
	}
	if p.Sandboxed() || !strings.HasPrefix(p.Summary(), "commands are not sandboxed: ") {
		t.Errorf("Sandboxed()=%v, Summary %q", p.Sandboxed(), p.Summary())
	}
	full := describe(setup{UserNS: true, PIDNS: true, MountNS: true, NetNS: true, PrivateProc: true}, 7, "", nil, true)
	if !full.Sandboxed() {
		t.Errorf("everything there, yet not sandboxed: %s", full.Summary())
	}
	noLandlock := describe(setup{UserNS: true, PIDNS: true, MountNS: true, NetNS: true}, 0, "no Landlock here", nil, true)
	if noLandlock.Writes.Active || noLandlock.Sandboxed() {
		t.Errorf("without Landlock writes count as confined: %s", noLandlock.Writes.Detail)
	}
}
