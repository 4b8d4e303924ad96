package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startHeld starts script confined in ws with grants, and waits until it
// runs confined. The process is entered (its setup) when it returns.
func startHeld(t *testing.T, c Confined, ws, script string, grants ...string) *Process {
	t.Helper()
	p, err := c.Start(context.Background(), []string{"sh", "-c", script}, ws, nil, grants)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Release)
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := p.Confirm(); err != nil {
		t.Fatal(err)
	}
	return p
}

func size(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A process granted paths (an MCP server that may write) runs only for its
// calls: between Leave and Enter neither it nor what it started (a child
// left running in the background, one that left its session) writes
// anything, in a view of its own and with Landlock alone.
func TestAGrantedProcessRunsOnlyBetweenEnterAndLeave(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, tc := range []struct {
		name   string
		adjust func(*probeResult)
	}{
		{"a view of its own", nil},
		{"Landlock alone, no PID namespace", func(pr *probeResult) { pr.best.MountNS, pr.best.PIDNS = false, false }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			os.Mkdir(filepath.Join(ws, "out"), 0o755)
			tick := func(f string) string { return `while :; do echo t >> ` + f + `; sleep 0.02; done` }
			c := Confined{Workspace: ws, BestEffort: true, adjust: tc.adjust}
			// The child is orphaned at once (its parent exits), in a
			// session of its own.
			p := startHeld(t, c, ws, `(setsid sh -c '`+tick("out/orphan")+`' &) ; `+tick("out/main"), "out")
			main, orphan := filepath.Join(ws, "out", "main"), filepath.Join(ws, "out", "orphan")
			waitUntil(t, "both to write", func() bool { return size(main) > 0 && size(orphan) > 0 })
			p.Leave()
			a, b := size(main), size(orphan)
			time.Sleep(400 * time.Millisecond)
			if size(main) != a || size(orphan) != b {
				t.Fatalf("written after Leave: main %d→%d, orphan %d→%d", a, size(main), b, size(orphan))
			}
			if err := p.Enter(context.Background()); err != nil {
				t.Fatal(err)
			}
			waitUntil(t, "both to write again after Enter", func() bool { return size(main) > a && size(orphan) > b })
			p.Leave()
		})
	}
}

// While a call of a granted process is under way, Loupe does not change
// its workspace (Quiet waits, as for a command); once it has left, Quiet
// goes ahead at once, and an Enter waits for Quiet's release.
func TestQuietWaitsForAGrantedProcessCall(t *testing.T) {
	needs(t, protections(t).Writes)
	ws := t.TempDir()
	os.Mkdir(filepath.Join(ws, "out"), 0o755)
	p := startHeld(t, Confined{Workspace: ws, BestEffort: true}, ws, "exec sleep 600", "out")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if release, err := Quiet(ctx, ws); err == nil {
		release()
		t.Fatal("Quiet went ahead while the process's setup (its first call) was under way")
	}
	p.Leave()
	release, err := Quiet(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	entered := make(chan error, 1)
	go func() { entered <- p.Enter(context.Background()) }()
	select {
	case err := <-entered:
		t.Fatalf("Enter went ahead while Loupe changed the workspace: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	release()
	if err := <-entered; err != nil {
		t.Fatal(err)
	}
	p.Leave()
}

// What a granted process leaves that would make the user's git run a
// program — a repository in its grant, a commondir added to the
// workspace's repository — is disarmed by the check after its calls, and
// the check says what it did; a repository the user makes while the
// process is stopped is left alone.
func TestCheckDisarmsWhatAGrantedProcessLeft(t *testing.T) {
	// A view of its own (a mount namespace): with Landlock alone nothing
	// is checked, as for commands.
	needs(t, protections(t).Secrets)
	ws := t.TempDir()
	if b, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, b)
	}
	os.Mkdir(filepath.Join(ws, "out"), 0o755)
	marker := filepath.Join(t.TempDir(), "FSMONITOR-RAN")
	cfg := `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch ` + marker + `; false"\n`
	plant := `mkdir -p out/.git/objects out/.git/refs/heads && printf 'ref: refs/heads/main\n' > out/.git/HEAD && printf '` + cfg + `' > out/.git/config && ` +
		`mkdir -p elsewhere/objects elsewhere/refs/heads && printf '` + cfg + `' > elsewhere/config && echo ../elsewhere > .git/commondir && touch out/planted; exec sleep 600`
	p := startHeld(t, Confined{Workspace: ws, BestEffort: true}, ws, plant, ".")
	p.Who = "MCP server sh"
	waitUntil(t, "the plant", func() bool { return size(filepath.Join(ws, "out", "planted")) == 0 })
	p.Leave()
	notes := p.Check(context.Background())
	t.Logf("notes: %q", notes)
	if len(notes) < 2 || !strings.Contains(strings.Join(notes, "\n"), "MCP server sh left") {
		t.Errorf("the check says %q, want what MCP server sh left and what Loupe renamed", notes)
	}
	for _, dir := range []string{ws, filepath.Join(ws, "out")} {
		c := exec.Command("git", "status")
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(ws))
		b, _ := c.CombinedOutput()
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("git status in %s ran the program the process planted: %s", dir, b)
		}
	}
	if again := p.Check(context.Background()); len(again) != 0 {
		t.Errorf("a second check with no call between says %q", again)
	}

	// The user's own repository, made while the process is stopped.
	user := filepath.Join(ws, "mine")
	if b, err := exec.Command("git", "init", "-q", user).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, b)
	}
	if err := p.Enter(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.Leave()
	if notes := p.Check(context.Background()); len(notes) != 0 {
		t.Errorf("the check after a call that left nothing says %q", notes)
	}
	if _, err := os.Stat(filepath.Join(user, ".git", "HEAD")); err != nil {
		t.Errorf("the user's repository was disarmed: %v", err)
	}
}
