package cli_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
	"github.com/loupe-dev/loupe/testkit/procs"
)

// asRecoverer, set to a database path in a child's environment, makes this
// test binary a process that opens that database and recovers it, as the
// window does when it starts. With recoverGo set, it waits for that file to
// exist before it recovers, so that several start at the same moment.
const (
	asRecoverer = "LOUPE_CLI_TEST_RECOVER_DB"
	recoverGo   = "LOUPE_CLI_TEST_RECOVER_GO"
)

func recoverer(db, goFile string) int {
	st, err := store.Open(db)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	for goFile != "" {
		if _, err := os.Stat(goFile); err == nil {
			break
		}
		time.Sleep(200 * time.Microsecond)
	}
	if err := session.NewManager(st, nil, nil, nil).Recover(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// startRecoverers starts n processes that recover db together once goFile
// is created.
func startRecoverers(t *testing.T, db, goFile string, n int) []*exec.Cmd {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	for range n {
		c := exec.Command(bin)
		c.Env = append(os.Environ(), asRecoverer+"="+db, recoverGo+"="+goFile)
		c.Stderr = &lockedWriter{}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		cmds = append(cmds, c)
	}
	return cmds
}

func waitAll(t *testing.T, cmds []*exec.Cmd) {
	t.Helper()
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("recovering process: %v\n%s", err, c.Stderr)
		}
	}
}

// A run has an owner: while `loupe run` works on it in its own process,
// recovery in another process (a window opening, another loupe run) does
// not touch it. Once that process is killed, recovery closes the run, and
// exactly once when several processes recover at the same moment.
func TestRecoveryClosesOnlyRunsWhoseOwnerIsGone(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("owners are looked at through /proc, which only Linux has")
	}
	e := setup(t)
	sleep := fmt.Sprintf("62.%06d", time.Now().Nanosecond()/1000)
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "call_sleep", Name: "run_command", Args: `{"command":"sleep ` + sleep + `"}`}}},
		ollamatest.Text("The command finished."),
	)
	p := startLoupe(t, "run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--json", "--auto", "work slowly")
	p.waitFor(t, trace.KindToolCall)
	waitForProcs(t, sleep, true, p)
	before := onlySessionLog(t, e.db)

	// Recovery here, as a window opening on the database would, and in two
	// other processes.
	st, err := store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	if err := session.NewManager(st, nil, nil, nil).Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	goFile := filepath.Join(t.TempDir(), "go")
	os.WriteFile(goFile, nil, 0o600)
	waitAll(t, startRecoverers(t, e.db, goFile, 2))
	after := onlySessionLog(t, e.db)
	if len(after) != len(before) || !trace.StateOf(after).Open {
		t.Fatalf("recovery touched a live run: %d events before, %d after (last %s)", len(before), len(after), after[len(after)-1].Kind)
	}
	ss, _ := st.ListSessions(context.Background())
	if o, ok, err := st.LeaseOf(context.Background(), ss[0].ID); err != nil || !ok || o.PID != p.cmd.Process.Pid {
		t.Fatalf("lease = %+v %v %v, want loupe run's (pid %d)", o, ok, err, p.cmd.Process.Pid)
	}
	st.Close()

	// The owner dies without a word: its command goes with it.
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.wait(t, 5*time.Second)
	waitForProcs(t, sleep, false, p)

	// Three processes recover at once: the run is closed once.
	goFile = filepath.Join(t.TempDir(), "go")
	cmds := startRecoverers(t, e.db, goFile, 3)
	time.Sleep(300 * time.Millisecond) // each has opened the database
	os.WriteFile(goFile, nil, 0o600)
	waitAll(t, cmds)
	evs := onlySessionLog(t, e.db)
	invariants.Check(t, evs)
	checkLog(t, evs)
	if st := trace.StateOf(evs); st.Open {
		t.Fatal("the dead owner's run is still open")
	}
	var interrupted bool
	for _, e := range evs {
		if e.Kind == trace.KindToolResult {
			r, _ := trace.Decode[trace.ToolResult](e)
			interrupted = r.CallID == "call_sleep" && r.ErrorKind == trace.ErrInterrupted
		}
	}
	if !interrupted {
		t.Errorf("the killed command's call was not answered as interrupted")
	}
	st, err = store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if o, ok, _ := st.LeaseOf(context.Background(), evs[0].SessionID); ok {
		t.Errorf("a lease is left on the closed run: %+v", o)
	}
}

// `loupe run` recovers the database when it opens it: a run whose owner
// was killed is closed before the new one starts, and none of that shows
// in the new run's timeline. --help says so.
func TestRunRecoversRunsLeftOpen(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("owners are looked at through /proc, which only Linux has")
	}
	e := setup(t)
	e.srv.Script(ollamatest.Reply{Chunks: slices50("word "), Delay: 20 * time.Millisecond})
	p := startLoupe(t, "run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--json", "work slowly")
	p.waitFor(t, trace.KindModelRequest)
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(t, 5*time.Second)
	killed := onlySessionLog(t, e.db)
	if !trace.StateOf(killed).Open {
		t.Fatal("the killed run is not open")
	}

	e.srv.Script(ollamatest.Text("Hello."))
	code, out, stderr := e.run("run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--json", "hi")
	if code != cli.ExitAnswered {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(out, killed[0].SessionID) {
		t.Errorf("the recovered session's events are in the new run's timeline:\n%s", out)
	}
	st, err := store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs, err := st.Events(context.Background(), killed[0].SessionID)
	if err != nil {
		t.Fatal(err)
	}
	invariants.Check(t, evs)
	checkLog(t, evs)
	if last := evs[len(evs)-1]; last.Kind != trace.KindRunEnd {
		t.Fatalf("the killed run was not closed: its log ends with %s", last.Kind)
	}
	// Neither the recovered run nor the one that ended keeps a lease.
	ss, _ := st.ListSessions(context.Background())
	for _, s := range ss {
		if o, ok, err := st.LeaseOf(context.Background(), s.ID); ok || err != nil {
			t.Errorf("session %s still has a lease after its run ended: %+v %v", s.ID, o, err)
		}
	}

	_, help, _ := e.run("run", "--help")
	if !strings.Contains(help, "closes the runs left open by a Loupe") || !strings.Contains(help, "never touched") {
		t.Errorf("loupe run --help does not say it recovers:\n%s", help)
	}
}

// waitForProcs waits until a process with arg in its command line is
// alive (want) or none is.
func waitForProcs(t *testing.T, arg string, want bool, p *loupeProc) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for (len(procs.Containing(arg)) > 0) != want {
		if time.Now().After(deadline) {
			t.Fatalf("processes with %q: %v, want alive=%v\n%s", arg, procs.Containing(arg), want, p.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkLog asserts what invariants.Check leaves out: seqs are 1, 2, 3…;
// runs follow each other, each from its user_message to its run_end, with
// nothing of a run after its run_end.
func checkLog(t *testing.T, evs []trace.Event) {
	t.Helper()
	run, ended := 0, true
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Errorf("event %d has seq %d: seqs are not dense", i+1, e.Seq)
		}
		switch {
		case e.Kind == trace.KindUserMessage:
			if !ended {
				t.Errorf("seq %d: run %d starts before run %d ended", e.Seq, e.Run, run)
			}
			run, ended = e.Run, false
		case ended:
			t.Errorf("seq %d: a %s of run %d after that run's run_end", e.Seq, e.Kind, e.Run)
		case e.Run != run:
			t.Errorf("seq %d: a %s of run %d inside run %d", e.Seq, e.Kind, e.Run, run)
		case e.Kind == trace.KindRunEnd:
			ended = true
		}
	}
}
