package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// A command makes a repository whose settings run a program, and waits
// until a command of another session runs in the same workspace; then it
// ends (alone, or as the last of a round), while the other still runs.
// That one keeps trying to swap the repository's parent folder with a
// link to a folder outside (its view holds the repository's settings
// read-only, so the kernel refuses to move the folder), and makes the
// repository again whenever it finds it renamed: to its own check the
// repository was there before it started. The check of what the first
// command left waits for it (Quiet): the repository ends renamed in the
// workspace, the user's git runs nothing of it, and nothing outside the
// workspace is renamed or moved in.
func TestCheckWaitsForACommandOfAnotherSession(t *testing.T) {
	needs(t, protections(t).Writes)
	isolateGit(t)
	for _, round := range []bool{true, false} {
		name := "a command on its own"
		if round {
			name = "a round"
		}
		t.Run(name, func(t *testing.T) { checkWhileAnotherRuns(t, round) })
	}
}

func checkWhileAnotherRuns(t *testing.T, round bool) {
	base := t.TempDir()
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	sandbox.PlantRepo(t, filepath.Join(out, "victim", ".git")) // the user's
	os.MkdirAll(filepath.Join(out, "evil"), 0o755)
	os.MkdirAll(filepath.Join(ws, "a", "victim"), 0o755)
	outBefore := sandbox.Listing(t, out)
	marker := filepath.Join(t.TempDir(), "RAN")
	c := sandbox.Confined{Workspace: ws, Guard: guardFor(ws, ""), BestEffort: true}
	run := func(sw *sandbox.Sweep, script string) sandbox.Output {
		o, err := c.Run(context.Background(), sandbox.Command{Dir: ws, Script: script, Timeout: 60 * time.Second, Sweep: sw})
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		return o
	}
	waitFor := func(file, who string) {
		t.Helper()
		for i := 0; ; i++ {
			if _, err := os.Stat(filepath.Join(ws, file)); err == nil {
				return
			}
			if i == 500 {
				t.Fatalf("%s did not get going", who)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	tell := func(file string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(ws, file), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	plant := `g=a/evil/.git
mkdir -p $g/objects $g/refs/heads $g/hooks
echo 'ref: refs/heads/main' > $g/HEAD
printf '[core]\n\tfsmonitor = "touch ` + marker + `; false"\n' > $g/config`
	var sw *sandbox.Sweep
	if round {
		sw = sandbox.NewSweep()
	}
	checked := make(chan []string, 1)
	go func() {
		o := run(sw, plant+"\ntouch planted\nwhile [ ! -e go ]; do sleep 0.01; done")
		t.Logf("the first command: %s", o.Text)
		if sw != nil {
			checked <- sw.Run(context.Background())
		} else {
			checked <- []string{o.Text}
		}
	}()
	waitFor("planted", "the first command")
	other := make(chan sandbox.Output, 1)
	go func() {
		other <- run(nil, `touch swapping
tries=0 swaps=0 remade=0
while [ ! -e stop ]; do
	tries=$((tries+1))
	if mv a a.real 2>/dev/null; then ln -s `+out+` a; rm a; mv a.real a; swaps=$((swaps+1)); fi
	if [ ! -e a/evil/.git ]; then
`+plant+`
		remade=$((remade+1))
	fi
	sleep 0.01
done
echo "tries=$tries swaps=$swaps remade=$remade"`)
	}()
	waitFor("swapping", "the other session's command")
	// The first ends; the other goes on until told to stop, a while
	// after.
	tell("go")
	time.Sleep(1500 * time.Millisecond)
	tell("stop")
	o := <-other
	t.Logf("the other session's command: %s", o.Text)
	if !strings.Contains(o.Text, "tries=") || strings.Contains(o.Text, "tries=0 ") {
		t.Fatalf("the other session's command did not run its loop: %q", o.Text)
	}
	select {
	case notes := <-checked:
		t.Logf("the check: %q", notes)
	case <-time.After(30 * time.Second):
		t.Fatal("the check of what the first command left did not end once the other command had")
	}

	if got := sandbox.Listing(t, out); got != outBefore {
		t.Errorf("the folder outside the workspace changed:\nbefore:\n%s\nafter:\n%s", outBefore, got)
	}
	if fi, err := os.Lstat(filepath.Join(ws, "a")); err != nil || !fi.IsDir() {
		t.Fatalf("the workspace's folder a is not a folder after the commands: %v", err)
	}
	// Renamed once by the check of the first command, and again by the
	// other's own check when that one came second (to it, the renamed
	// folder is new): either way, beside where it was.
	if _, err := os.Lstat(filepath.Join(ws, "a", "evil", ".git")); err == nil {
		t.Error("a/evil/.git is there after the commands")
	}
	if moved, _ := filepath.Glob(filepath.Join(ws, "a", "evil", ".git.loupe-disarmed*", "config")); len(moved) != 1 {
		t.Errorf("the repository the first command made is not renamed beside where it was: %v", moved)
	}
	hostGit(t, filepath.Join(ws, "a", "evil"), "status")
	if ran(t, marker) {
		t.Error("the user's git ran the program of the repository the first command made")
	}
}

// The check after a round waits for a command of another session that
// runs in the workspace; the run is stopped meanwhile. The round's check
// is not made, and a sentence says so and what to do; what was made to
// hold a path for the round's command (the hooks folder core.hooksPath
// names) still goes, once the other command, which found it there, ends.
func TestStoppedRoundCheckSaysSoAndLetsGoOfPlaceholders(t *testing.T) {
	needs(t, protections(t).Writes)
	isolateGit(t)
	ws := t.TempDir()
	initRepo(t, ws)
	hostGit(t, ws, "config", "core.hooksPath", ".githooks")
	c := sandbox.Confined{Workspace: ws, Guard: guardFor(ws, ""), BestEffort: true}
	sw := sandbox.NewSweep()
	if o, err := c.Run(context.Background(), sandbox.Command{Dir: ws, Timeout: 30 * time.Second, Sweep: sw,
		Script: "git init -q sub; echo made"}); err != nil || !strings.Contains(o.Text, "made") {
		t.Fatalf("the round's command: %v %q", err, o.Text)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".githooks")); err != nil {
		t.Fatalf("no placeholder for the hooks folder during the round: %v", err)
	}
	other := make(chan sandbox.Output, 1)
	go func() {
		o, _ := c.Run(context.Background(), sandbox.Command{Dir: ws, Timeout: 30 * time.Second,
			Script: "touch running; while [ ! -e stop ]; do sleep 0.02; done"})
		other <- o
	}()
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(ws, "running")); err == nil {
			break
		}
		if i == 500 {
			t.Fatal("the other session's command did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	notes := sw.Run(ctx)
	t.Logf("after %v: %q", time.Since(start), notes)
	if len(notes) != 1 || !strings.Contains(notes[0], "did not check "+ws) || !strings.Contains(notes[0], "before you run git there, look for .git folders") {
		t.Errorf("the stopped check does not say it was not made and what to do: %q", notes)
	}
	if err := os.WriteFile(filepath.Join(ws, "stop"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	<-other
	if _, err := os.Lstat(filepath.Join(ws, ".githooks")); err == nil {
		t.Error("the hooks folder's placeholder is left after every command ended")
	}
}
