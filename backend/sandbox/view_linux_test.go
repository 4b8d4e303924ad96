package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
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

// A PATH entry in the workspace is dropped however it is spelled: as
// written, or through a link.
func TestCleanPath(t *testing.T) {
	ws := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	got := cleanPath(strings.Join([]string{"", ".", "node_modules/.bin", ws + "/bin", ws, link + "/bin", "/usr/bin", "/usr/bin/", "/bin"}, ":"), ws)
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
	full := describe(setup{UserNS: true, PIDNS: true, MountNS: true, NetNS: true, PrivateProc: true, IPCNS: true, UTSNS: true, CgroupNS: true}, 7, "", nil, true)
	if !full.Sandboxed() {
		t.Errorf("everything there, yet not sandboxed: %s", full.Summary())
	}
	noLandlock := describe(setup{UserNS: true, PIDNS: true, MountNS: true, NetNS: true}, 0, "no Landlock here", nil, true)
	if noLandlock.Writes.Active || noLandlock.Sandboxed() {
		t.Errorf("without Landlock writes count as confined: %s", noLandlock.Writes.Detail)
	}
}
