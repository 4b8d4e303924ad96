package workspace_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/workspace"
)

// memSettings keeps a workspace's settings in memory.
type memSettings struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memSettings) GetSetting(_ context.Context, key string, dst any) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[key]
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(b, dst)
}

func (s *memSettings) PutSetting(_ context.Context, key string, v any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := json.Marshal(v)
	s.m[key] = b
	return err
}

// nested is a home with ~/.ssh, a project ~/proj (session A's), a folder
// in it ~/proj/pkg (session B's) and another project ~/other.
type nested struct {
	home, ssh, proj, pkg, other string
	w                           *workspace.Workspaces
}

func newNested(t *testing.T) nested {
	t.Helper()
	base := t.TempDir()
	n := nested{home: filepath.Join(base, "home")}
	n.ssh, n.proj, n.other = filepath.Join(n.home, ".ssh"), filepath.Join(n.home, "proj"), filepath.Join(n.home, "other")
	n.pkg = filepath.Join(n.proj, "pkg")
	t.Setenv("HOME", n.home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(base, "state"))
	for _, d := range []string{n.ssh, n.pkg, n.other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(n.ssh, "id_ed25519"), []byte("PRIVATE-KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(base, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	n.w = workspace.New(&memSettings{m: map[string][]byte{}}, filepath.Join(data, "loupe.db"), data)
	return n
}

func (n nested) runner(t *testing.T, dir string) sandbox.Runner {
	t.Helper()
	_, r, _, err := n.w.Assemble(context.Background(), dir, workspace.Run{Mode: permission.ModeAuto})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// keepSwapping is what a command of the session in ~/proj can do to the
// folder inside it until stop is called: swap pkg for a link to to, for
// swapped, then put it back, for between, over and over.
func (n nested) keepSwapping(to string, swapped, between time.Duration) (stop func()) {
	real := n.pkg + ".real"
	done := make(chan struct{})
	var swaps sync.WaitGroup
	swaps.Add(1)
	go func() {
		defer swaps.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if os.Rename(n.pkg, real) == nil {
				_ = os.Symlink(to, n.pkg)
				time.Sleep(swapped)
				_ = os.Remove(n.pkg)
				_ = os.Rename(real, n.pkg)
			}
			time.Sleep(between)
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); swaps.Wait() }) }
}

// waitForFile waits (up to 20 s) for path, which a command makes as it
// starts.
func waitForFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared: the command did not start", path)
		}
	}
}

// Session B's Undo waits (Quiet) for a command of session A, whose
// workspace holds B's; that command replaces B's folder with a link to
// ~/.ssh before it ends. What Loupe's hands open is judged after the
// wait, so the link is refused and nothing is written there.
func TestHandsJudgeTheFolderAfterWaitingForTheCommandsThere(t *testing.T) {
	if !sandbox.Probe().Sandboxed() {
		t.Skip("commands are not confined here")
	}
	n := newNested(t)
	ctx := context.Background()
	a := n.runner(t, n.proj)
	done := make(chan error, 1)
	go func() {
		_, err := a.Run(ctx, sandbox.Command{Dir: n.proj, Script: ": > started; sleep 1; mv pkg pkg.real && ln -s " + n.ssh + " pkg", Timeout: 30 * time.Second})
		done <- err
	}()
	waitForFile(t, filepath.Join(n.proj, "started"))
	root, err := n.w.Hands(ctx, n.pkg)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err == nil {
		root.WriteFile("authorized_keys", []byte("attacker\n"))
		root.Close()
		t.Fatalf("Loupe's hands opened %s, now a link to ~/.ssh", n.pkg)
	}
	if !strings.Contains(err.Error(), ".ssh") {
		t.Errorf("the refusal does not say where the folder leads: %v", err)
	}
	if _, err := os.Stat(filepath.Join(n.ssh, "authorized_keys")); err == nil {
		t.Fatal("something was written into ~/.ssh")
	}
}

// A workspace spelled with ".." after a link (an imported session's, as
// its file spells it) is judged as Check cleans it, and opened so: the
// kernel, which follows the link before the "..", is never handed the
// spelling.
func TestHandsOpenTheFolderCheckJudged(t *testing.T) {
	n := newNested(t)
	autostart := filepath.Join(n.home, ".config", "autostart")
	if err := os.MkdirAll(autostart, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(autostart, filepath.Join(n.proj, "l")); err != nil {
		t.Fatal(err)
	}
	root, err := n.w.Hands(context.Background(), n.proj+"/l/..")
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := root.WriteFile("written.txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(n.proj, "written.txt")); err != nil {
		t.Fatalf("the write did not land in the folder judged, %s: %v", n.proj, err)
	}
	if _, err := os.Stat(filepath.Join(n.home, ".config", "written.txt")); err == nil {
		t.Fatal("the write landed in ~/.config")
	}
}

// A run's commands run in the folder judged when the run began, or not at
// all: while another session's command keeps swapping the run's folder
// with a link to another project (accepted as a workspace of its own), no
// command of the run ever writes there, and each one refused says why.
func TestCommandsRunOnlyInTheFolderJudgedAsTheRunBegan(t *testing.T) {
	if !sandbox.Probe().Sandboxed() {
		t.Skip("commands are not confined here")
	}
	n := newNested(t)
	ctx := context.Background()
	b := n.runner(t, n.pkg)

	// Swapped once, for good: refused on the host, before any view.
	real := n.pkg + ".real"
	if err := os.Rename(n.pkg, real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(n.ssh, n.pkg); err != nil {
		t.Fatal(err)
	}
	out, err := b.Run(ctx, sandbox.Command{Dir: n.pkg, Script: "cat id_ed25519; : > config", Timeout: 30 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "no longer the folder this run began in") {
		t.Fatalf("a command ran in the swapped folder: %v %q", err, out.Text)
	}
	if strings.Contains(out.Text, "PRIVATE-KEY") {
		t.Fatal("the command read ~/.ssh")
	}
	os.Remove(n.pkg)
	if err := os.Rename(real, n.pkg); err != nil {
		t.Fatal(err)
	}

	// Swapped back and forth all along: every command runs in pkg or
	// not at all (refused on the host, or in its view once mounted).
	stop := n.keepSwapping(n.other, 2*time.Millisecond, 15*time.Millisecond)
	ran, refused, inView := 0, 0, 0
	for i := 0; i < 100; i++ {
		_, err := b.Run(ctx, sandbox.Command{Script: ": > from-b", Timeout: 30 * time.Second})
		switch {
		case err == nil:
			ran++
		case strings.Contains(err.Error(), "replaced while the command's view was made"):
			inView++
		default:
			refused++
		}
	}
	stop()
	t.Logf("%d commands ran, %d were refused as they started, %d once their view was made", ran, refused, inView)
	if _, err := os.Stat(filepath.Join(n.other, "from-b")); err == nil {
		t.Fatal("a command of the run wrote into the other project its folder was swapped for")
	}
	if ran == 0 {
		t.Fatal("no command ran at all: the test swapped too often to show anything")
	}
}

// A run is assembled in one folder: while another session's command keeps
// swapping the run's folder with a link to ~/.ssh, every run that is
// assembled at all has its commands bound to the real folder, never to
// ~/.ssh (it was judged, and its settings read, through one handle).
func TestARunIsAssembledInTheFolderItJudged(t *testing.T) {
	n := newNested(t)
	ssh, err := os.Stat(n.ssh)
	if err != nil {
		t.Fatal(err)
	}
	stop := n.keepSwapping(n.ssh, 500*time.Microsecond, 2*time.Millisecond)
	defer stop()
	assembled, refused := 0, 0
	why := map[string]int{}
	for i := 0; i < 2000; i++ {
		_, r, _, err := n.w.Assemble(context.Background(), n.pkg, workspace.Run{Mode: permission.ModeAuto})
		if err != nil {
			refused++
			why[strings.ReplaceAll(err.Error(), n.home, "~")]++
			continue
		}
		assembled++
		if c, ok := r.(sandbox.Confined); !ok || c.Checked == nil || os.SameFile(c.Checked, ssh) {
			t.Fatalf("a run was assembled to work in ~/.ssh (try %d)", i)
		}
	}
	stop()
	t.Logf("%d runs assembled, %d refused: %v", assembled, refused, why)
	if assembled == 0 {
		t.Fatal("no run was assembled at all: the test swapped too often to show anything")
	}
}

// The check after a command looks at the folder the command ran in, or at
// none: when the path was swapped for a link to another project while the
// command ran, the check does not walk (and rename in) the project the
// link leads to, and the command's output says it did not check and what
// to do.
func TestTheCheckAfterACommandLooksAtTheFolderItRanIn(t *testing.T) {
	if !sandbox.Probe().Sandboxed() {
		t.Skip("commands are not confined here")
	}
	n := newNested(t)
	if out, err := exec.Command("git", "init", "-q", n.other).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(n.other, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := n.runner(t, n.pkg)
	done := make(chan sandbox.Output, 1)
	go func() {
		out, err := b.Run(context.Background(), sandbox.Command{Script: ": > started; sleep 1", Timeout: 30 * time.Second})
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	waitForFile(t, filepath.Join(n.pkg, "started"))
	// What a command of the session in ~/proj would do meanwhile.
	if err := os.Rename(n.pkg, n.pkg+".real"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(n.other, n.pkg); err != nil {
		t.Fatal(err)
	}
	out := <-done
	if _, err := os.Stat(filepath.Join(n.other, ".git", "HEAD")); err != nil {
		t.Fatalf("the check renamed the repository of the project the link leads to: %v\n%s", err, out.Text)
	}
	if !strings.Contains(out.Text, "no longer leads to the folder they ran in") {
		t.Fatalf("the command's output does not say the check was not made:\n%s", out.Text)
	}
}
