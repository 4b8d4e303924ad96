package sandbox

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests run real commands through Confined, with this test binary as
// the helper (see TestMain). Each needs a protection the kernel may lack;
// when it does, the test says which and why, in the words of Probe.

func needs(t *testing.T, p Protection) {
	t.Helper()
	if !p.Active {
		t.Skipf("%s protection is not active on this machine: %s", p.Name, p.Detail)
	}
}

func protections(t *testing.T) Protections {
	t.Helper()
	p := Probe()
	t.Logf("probe: %s", p.Summary())
	return p
}

// crun runs script confined in a fresh workspace (c.Workspace if set). It
// runs in BestEffort mode: each test checks the protection it is about
// (with needs), whatever else this machine lacks. The test binary is
// exposed to the command, which uses it as a network client and more (see
// TestMain).
func crun(t *testing.T, c Confined, script string) Output {
	t.Helper()
	c.BestEffort = true
	c.Expose = append(c.Expose, testExe(t))
	if c.Workspace == "" {
		c.Workspace = t.TempDir()
	}
	out, err := c.Run(context.Background(), Command{Dir: c.Workspace, Script: script, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("Run(%q): %v", script, err)
	}
	return out
}

func unique(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, os.Getpid(), rand.Uint64())
}

func testExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestProbeDescribesEveryProtection(t *testing.T) {
	p := protections(t)
	for _, x := range p.List() {
		t.Logf("%-9s active=%-5v %s", x.Name, x.Active, x.Detail)
		if x.Name == "" || x.Detail == "" {
			t.Errorf("protection without name or detail: %+v", x)
		}
	}
	if (p.LandlockABI > 0) != p.Writes.Active {
		t.Errorf("LandlockABI %d but Writes.Active %v", p.LandlockABI, p.Writes.Active)
	}
	want := "commands are not sandboxed: "
	if p.Sandboxed() {
		want = "commands are sandboxed: "
	}
	if !strings.HasPrefix(p.Summary(), want) {
		t.Errorf("Summary %q does not start with %q", p.Summary(), want)
	}
}

func TestConfinedWritesOnlyWorkspaceAndTemp(t *testing.T) {
	needs(t, protections(t).Writes)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir() // a sibling of the workspace, under /tmp too
	existing := filepath.Join(outside, "existing")
	if err := os.WriteFile(existing, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	inHome := filepath.Join(home, unique("loupe-escape-test"))
	inTmp := filepath.Join(os.TempDir(), unique("loupe-escape-test"))
	t.Cleanup(func() { os.Remove(inHome); os.Remove(inTmp) })

	// Each of these must leave the host untouched. A command may well
	// succeed at some of them (its home and /tmp are its own), but
	// nothing of it reaches the user's.
	refused := []struct {
		name, script string
		gone         string // must not exist afterwards
	}{
		{"home", `echo x > ` + inHome, inHome},
		{"tmp", `echo x > ` + inTmp, inTmp},
		{"sibling dir", `echo x > ` + outside + `/new`, outside + "/new"},
		{"mkdir", `mkdir ` + outside + `/d`, outside + "/d"},
		{"through a symlink", `ln -s ` + outside + ` link && echo x > link/via-link`, outside + "/via-link"},
		{"truncate", `: > ` + existing, ""},
		{"append", `echo more >> ` + existing, ""},
		{"remove", `rm -f ` + existing, ""},
		{"move out", `mv ` + existing + ` stolen`, ""},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			crun(t, Confined{}, tt.script)
			if tt.gone != "" {
				if _, err := os.Lstat(tt.gone); err == nil {
					t.Errorf("%s was created", tt.gone)
				}
			}
			if b, err := os.ReadFile(existing); err != nil || string(b) != "keep" {
				t.Errorf("the file outside is now %q, %v", b, err)
			}
		})
	}

	t.Run("allowed", func(t *testing.T) {
		ws := t.TempDir()
		script := `set -e
echo ok > f; cat f
mkdir -p a/b; echo 1 > a/b/c; mv a/b/c moved; rm -r a
echo t > "$TMPDIR/t"; cat "$TMPDIR/t"
echo "$TMPDIR"
echo gone > /dev/null
if [ -d /dev/shm ]; then echo s > /dev/shm/loupe-test; fi`
		out := crun(t, Confined{Workspace: ws}, script)
		if out.ExitCode != 0 {
			t.Fatalf("exit %d: %q", out.ExitCode, out.Text)
		}
		lines := strings.Split(strings.TrimSpace(out.Text), "\n")
		if len(lines) != 3 || lines[0] != "ok" || lines[1] != "t" {
			t.Fatalf("output %q", out.Text)
		}
		if tmp := lines[2]; tmp != "/tmp" {
			t.Errorf("TMPDIR = %q, want the command's own /tmp", tmp)
		}
		if left := scratchDirsOfThisProcess(t); len(left) > 0 {
			t.Errorf("the command's scratch directories were not removed: %v", left)
		}
		if _, err := os.Stat(filepath.Join(ws, "moved")); err != nil {
			t.Errorf("file moved between directories of the workspace: %v", err)
		}
	})

	t.Run("git", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("git is not installed")
		}
		out := crun(t, Confined{}, `git init -q && git -c user.email=a@b -c user.name=n commit -q --allow-empty -m m && git log --format=%s`)
		if out.ExitCode != 0 || strings.TrimSpace(out.Text) != "m" {
			t.Errorf("git in the workspace: exit %d, %q", out.ExitCode, out.Text)
		}
	})
}

func TestConfinedNetwork(t *testing.T) {
	p := protections(t)
	needs(t, p.Network)
	exe := testExe(t)

	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	dial := fmt.Sprintf("%q %s tcp %s", exe, testNetArg, ln.Addr())

	out := crun(t, Confined{}, dial)
	if out.ExitCode == 0 || strings.Contains(out.Text, "connected") {
		t.Errorf("connected to the host's loopback with the network blocked: %q", out.Text)
	}
	out = crun(t, Confined{AllowNetwork: true}, dial)
	if out.ExitCode != 0 || !strings.Contains(out.Text, "connected") {
		t.Errorf("AllowNetwork: %q (exit %d)", out.Text, out.ExitCode)
	}

	t.Run("udp", func(t *testing.T) {
		if !probeHelper(exe).best.NetNS {
			t.Skipf("UDP is blocked only by a network namespace here: %s", p.Network.Detail)
		}
		pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer pc.Close()
		send := fmt.Sprintf("%q %s udp %s", exe, testNetArg, pc.LocalAddr())
		received := func() bool {
			_ = pc.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
			buf := make([]byte, 16)
			n, _, err := pc.ReadFrom(buf)
			return err == nil && string(buf[:n]) == "ping"
		}
		crun(t, Confined{}, send)
		if received() {
			t.Error("a datagram reached the host with the network blocked")
		}
		crun(t, Confined{AllowNetwork: true}, send)
		if !received() {
			t.Error("AllowNetwork: the datagram did not arrive")
		}
	})

	t.Run("own loopback works", func(t *testing.T) {
		if !probeHelper(exe).best.NetNS {
			t.Skipf("without a network namespace Landlock blocks loopback too: %s", p.Network.Detail)
		}
		out := crun(t, Confined{}, fmt.Sprintf("%q %s loopback", exe, testNetArg))
		if !strings.Contains(out.Text, "loopback ok") {
			t.Errorf("a server on the command's own loopback: %q", out.Text)
		}
	})
}

// Kernels without user namespaces block the network with Landlock alone;
// this forces that path.
func TestConfinedNetworkByLandlockAlone(t *testing.T) {
	p := protections(t)
	if p.LandlockABI < 4 {
		t.Skipf("Landlock ABI %d cannot restrict TCP (needs 4): %s", p.LandlockABI, p.Writes.Detail)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	noNetNS := func(pr *probeResult) { pr.best.NetNS = false }
	dial := fmt.Sprintf("%q %s tcp %s", testExe(t), testNetArg, ln.Addr())
	out := crun(t, Confined{adjust: noNetNS}, dial)
	if out.ExitCode == 0 || !strings.Contains(out.Text, "permission denied") {
		t.Errorf("want connect refused by Landlock (permission denied), got %q", out.Text)
	}
	out = crun(t, Confined{adjust: noNetNS, AllowNetwork: true}, dial)
	if !strings.Contains(out.Text, "connected") {
		t.Errorf("AllowNetwork: %q", out.Text)
	}
}

// detachScript starts sleeps with marker m that try every way out of the
// command's process group and session.
func detachScript(t *testing.T, m string) string {
	t.Helper()
	s := fmt.Sprintf(`sleep %[1]s &
( ( sleep %[1]s & ) & )
nohup sleep %[1]s >/dev/null 2>&1 &
sh -c 'trap "" HUP TERM; sleep %[1]s' &
`, m)
	if _, err := exec.LookPath("setsid"); err == nil {
		s += fmt.Sprintf("setsid sleep %[1]s &\nsetsid sh -c '( sleep %[1]s & )' &\n", m)
	} else {
		t.Log("setsid is not installed; testing the other ways to detach")
	}
	return s
}

// waitAlive waits until n processes with arg are running, so that a test
// does not pass merely because the command had not got that far.
func waitAlive(t *testing.T, arg string, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		live := len(liveWithArg(t, arg))
		if live >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d of %d processes with %q started", live, n, arg)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestConfinedTreeDiesOnCancelAndTimeout(t *testing.T) {
	requireLinux(t)
	needs(t, protections(t).Processes)

	t.Run("cancel", func(t *testing.T) {
		m := marker()
		script := detachScript(t, m) + "sleep " + m
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			// Every branch is up: one sleep with the marker per branch.
			waitAlive(t, m, strings.Count(script, "sleep "+m))
			cancel()
		}()
		ws := t.TempDir()
		start := time.Now()
		out, err := Confined{Workspace: ws}.Run(ctx, Command{Dir: ws, Script: script, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("Run took %v after cancel", d)
		}
		if !out.Cancelled {
			t.Errorf("Cancelled = false: %+v", out)
		}
		waitGone(t, m)
	})

	t.Run("timeout", func(t *testing.T) {
		m := marker()
		ws := t.TempDir()
		out, err := Confined{Workspace: ws}.Run(context.Background(),
			Command{Dir: ws, Script: detachScript(t, m) + "echo started; sleep " + m, Timeout: 1500 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if !out.TimedOut || !strings.Contains(out.Text, "started") {
			t.Errorf("TimedOut=%v text %q", out.TimedOut, out.Text)
		}
		waitGone(t, m)
	})

	t.Run("normal exit", func(t *testing.T) {
		// Local cannot do this one: a setsid daemon outlives the command.
		m := marker()
		out := crun(t, Confined{WaitDelay: 10 * time.Second}, detachScript(t, m)+"echo done")
		if strings.TrimSpace(out.Text) != "done" || out.ExitCode != 0 {
			t.Errorf("%+v", out)
		}
		waitGone(t, m)
	})
}

func TestConfinedBackgroundJobReturnsPromptly(t *testing.T) {
	requireLinux(t)
	needs(t, protections(t).Processes)
	m := marker()
	start := time.Now()
	out := crun(t, Confined{WaitDelay: 10 * time.Second}, "sleep "+m+" & echo done")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Run took %v; the background job held it", d)
	}
	if out.Text != "done\n" || out.ExitCode != 0 {
		t.Errorf("%+v", out)
	}
	waitGone(t, m)
}

func TestConfinedRunawayOutputIsStopped(t *testing.T) {
	needs(t, protections(t).Writes)
	start := time.Now()
	out := crun(t, Confined{OutputLimit: 4 << 20}, "yes")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("yes ran for %v", d)
	}
	if !out.OverLimit || out.TimedOut || out.TotalBytes < 4<<20 {
		t.Errorf("OverLimit=%v TimedOut=%v TotalBytes=%d", out.OverLimit, out.TimedOut, out.TotalBytes)
	}
}

func TestConfinedInteractiveFailsFast(t *testing.T) {
	needs(t, protections(t).Writes)
	tests := []struct{ script, want string }{
		{`read x; echo "read=$?"`, "read=1"},
		{`cat; echo eof`, "eof"},
		{`cat /dev/tty 2>/dev/null; echo "tty=$?"`, "tty=1"}, // no controlling terminal
		{`readlink /proc/self/fd/0`, "/dev/null"},
		{`echo "$EDITOR $VISUAL $PAGER $GIT_PAGER"`, "false false cat cat"},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			start := time.Now()
			out := crun(t, Confined{}, tt.script)
			if d := time.Since(start); d > 5*time.Second || out.TimedOut {
				t.Fatalf("took %v", d)
			}
			if strings.TrimSpace(out.Text) != tt.want {
				t.Errorf("got %q, want %q", out.Text, tt.want)
			}
		})
	}
}

func TestConfinedEnvironmentHasNoSecrets(t *testing.T) {
	needs(t, protections(t).Writes)
	secrets := map[string]string{
		"GITHUB_TOKEN": "tok", "OPENAI_API_KEY": "key", "MY_SECRET_STUFF": "s",
		"DB_PASSWORD": "p", "SSH_AUTH_SOCK": "/tmp/agent.sock",
		"DBUS_SESSION_BUS_ADDRESS": "unix:path=/x", "LC_API_KEY": "k", "SOME_OTHER_VAR": "x",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	out := crun(t, Confined{}, "env; echo ---; cat /proc/1/environ | tr '\\0' '\\n'")
	for k := range secrets {
		if strings.Contains(out.Text, k+"=") {
			t.Errorf("%s reached the command:\n%s", k, out.Text)
		}
	}
	if !strings.Contains(out.Text, "TMPDIR=/tmp\n") {
		t.Errorf("no per-command TMPDIR:\n%s", out.Text)
	}
}

func TestConfinedHidesSecretsAndOtherProcesses(t *testing.T) {
	p := protections(t)
	needs(t, p.Secrets)
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	extra := t.TempDir()
	for _, f := range []string{filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(home, ".netrc"), filepath.Join(extra, "loupe.db")} {
		if err := os.WriteFile(f, []byte("SECRET"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pid := strconv.Itoa(os.Getpid())
	script := fmt.Sprintf(`cat ~/.ssh/id_ed25519 ~/.netrc %s/loupe.db 2>&1
ls -A ~/.ssh | wc -l
test -e /proc/%[2]s && echo "sees pid %[2]s"
kill -0 %[2]s 2>/dev/null && echo "can signal %[2]s"
echo end`, extra, pid)
	out := crun(t, Confined{Hide: []string{extra}}, script)
	if strings.Contains(out.Text, "SECRET") {
		t.Errorf("a hidden file was read:\n%s", out.Text)
	}
	if strings.Contains(out.Text, "sees pid") || strings.Contains(out.Text, "can signal") {
		t.Errorf("the command reached a process outside its sandbox:\n%s", out.Text)
	}
	if !strings.HasSuffix(out.Text, "0\nend\n") {
		t.Errorf("output %q", out.Text)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".netrc")); string(b) != "SECRET" {
		t.Errorf("the hidden file changed on the host: %q", b)
	}
}

func TestConfinedLimits(t *testing.T) {
	p := protections(t)
	needs(t, p.Writes)
	t.Run("file size", func(t *testing.T) {
		ws := t.TempDir()
		out := crun(t, Confined{Workspace: ws, MaxFileSize: 1 << 20}, `head -c 3000000 /dev/zero > big; echo "rc=$?"`)
		fi, err := os.Stat(filepath.Join(ws, "big"))
		if err != nil || fi.Size() > 1<<20 {
			t.Errorf("big: %v, %v", fi, err)
		}
		if strings.Contains(out.Text, "rc=0") {
			t.Errorf("the write past the limit succeeded: %q", out.Text)
		}
	})
	t.Run("processes", func(t *testing.T) {
		needs(t, p.Limits)
		m := marker()
		// As root the cap is a pid_max, which the kernel keeps above 300.
		out := crun(t, Confined{MaxProcesses: 100},
			fmt.Sprintf(`i=0; while [ $i -lt 700 ]; do sleep %s & i=$((i+1)); done; echo spawned`, m))
		if !strings.Contains(strings.ToLower(out.Text), "fork") {
			t.Errorf("700 processes started under a limit of 100: %q", out.Text)
		}
		waitGone(t, m)
	})
	t.Run("privileges", func(t *testing.T) {
		out := crun(t, Confined{}, `ulimit -c; grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status`)
		want := "0\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nNoNewPrivs:\t1\n"
		if out.Text != want {
			t.Errorf("got %q, want %q", out.Text, want)
		}
	})
}

func TestConfinedExitCodes(t *testing.T) {
	needs(t, protections(t).Writes)
	tests := []struct {
		script string
		want   int
	}{
		{"true", 0},
		{"exit 3", 3},
		{"no-such-command-xyz 2>/dev/null", 127},
		{"kill -9 $$", 128 + 9},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			if out := crun(t, Confined{}, tt.script); out.ExitCode != tt.want {
				t.Errorf("exit code = %d, want %d (%q)", out.ExitCode, tt.want, out.Text)
			}
		})
	}
}

func TestConfinedRefusesWhatItCannotConfine(t *testing.T) {
	noLandlock := func(pr *probeResult) {
		pr.best.Landlock = 0
		pr.prot.Writes = Protection{Name: "Writes", Detail: "test: no Landlock"}
	}
	ws := t.TempDir()
	_, err := Confined{Workspace: ws, adjust: noLandlock}.Run(context.Background(), Command{Dir: ws, Script: "touch ran"})
	if !errors.Is(err, ErrNotConfined) || !strings.Contains(err.Error(), "test: no Landlock") {
		t.Errorf("err = %v, want ErrNotConfined saying why", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Fatal("the command ran")
	}

	out, err := Confined{Workspace: ws, adjust: noLandlock, BestEffort: true}.Run(context.Background(), Command{Dir: ws, Script: "touch ran"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Confined || !strings.Contains(out.NotConfined, "test: no Landlock") || !strings.Contains(out.Text, "not sandboxed") {
		t.Errorf("BestEffort without Landlock: %+v", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err != nil {
		t.Error("BestEffort did not run the command")
	}
}

func TestConfinedHelperMustReport(t *testing.T) {
	// A binary whose main does not call MaybeRunHelper never reports: the
	// command must not run, and Run must say so rather than hang.
	ws := t.TempDir()
	start := time.Now()
	_, err := Confined{Workspace: ws, Helper: "/bin/true"}.Run(context.Background(), Command{Dir: ws, Script: "touch ran"})
	if !errors.Is(err, ErrNotConfined) {
		t.Errorf("err = %v, want ErrNotConfined", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Error("the command ran")
	}
}

func TestConfinedCancelledBeforeStartRunsNothing(t *testing.T) {
	ws := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := Confined{Workspace: ws, BestEffort: true}.Run(ctx, Command{Dir: ws, Script: "touch ran"})
	if err != nil || !out.Cancelled {
		t.Errorf("out %+v, err %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Error("the command ran")
	}
}

func TestConfinedInheritsNoStrayDescriptors(t *testing.T) {
	needs(t, protections(t).Writes)
	// A descriptor the app opened without close-on-exec (C libraries do)
	// would reach the command, and Landlock does not check open files.
	outside := filepath.Join(t.TempDir(), "outside")
	fd, err := syscall.Open(outside, syscall.O_CREAT|syscall.O_WRONLY, 0o644) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	out := crun(t, Confined{}, fmt.Sprintf(`echo leaked >&%d; ls /proc/self/fd | tr '\n' ' '`, fd))
	if b, _ := os.ReadFile(outside); len(b) > 0 {
		t.Errorf("the command wrote %q through an inherited descriptor", b)
	}
	// ls has its own directory open as fd 3.
	if !strings.HasSuffix(out.Text, "\n0 1 2 3 ") {
		t.Errorf("the command has descriptors beyond stdin, stdout, stderr: %q", out.Text)
	}
}
