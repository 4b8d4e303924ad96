package session_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
	"github.com/loupe-dev/loupe/testkit/procs"
)

// needProc skips a test of lease owners where they cannot be told apart.
func needProc(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("owners are looked at through /proc, which only Linux has")
	}
}

// heldElsewhere is a session as a second window finds it while another
// live Loupe process (loupe run, another window) works on it: run 1 is
// open in call_1, a call of tool name with args (see crashedDuringCall),
// and that process holds the lease. It returns the harness and the
// holder's pid.
func heldElsewhere(t *testing.T, name, args string) (*harness, int) {
	t.Helper()
	needProc(t)
	h := newHarness(t, permission.ModeAuto, nil)
	h.crashedDuringCall(name, args)
	pid := procs.Live(t)
	h.giveLease(pid)
	return h, pid
}

// writesNothing notes how long the log is and returns a check that it has
// not grown since: what a refused command must leave.
func (h *harness) writesNothing() func(what string) {
	h.t.Helper()
	n := len(h.events())
	return func(what string) {
		h.t.Helper()
		if got := len(h.events()); got != n {
			h.t.Fatalf("%s wrote %d events", what, got-n)
		}
	}
}

// giveLease writes the session's lease as the process pid would have taken
// it: on this boot and in this pid namespace, started when it did.
func (h *harness) giveLease(pid int) {
	h.t.Helper()
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	ns, _ := os.Readlink("/proc/self/ns/pid")
	var started int64
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		started, _ = strconv.ParseInt(f[19], 10, 64)
	}
	db, err := sql.Open("sqlite", "file:"+h.st.Path()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		h.t.Fatal(err)
	}
	defer db.Close()
	now := time.Now().UnixNano()
	if _, err := db.Exec(`INSERT OR REPLACE INTO run_leases
		(session_id, owner, token, pid, boot_id, pid_ns, started, taken_at, heartbeat)
		VALUES (?, 'elsewhere', 'theirs', ?, ?, ?, ?, ?, ?)`,
		h.id, pid, strings.TrimSpace(string(boot)), ns, started, now, now); err != nil {
		h.t.Fatal(err)
	}
}

// A session whose run another live process owns (a second window, a
// loupe run) does not start a second run here: the send is refused, says
// why, and writes nothing.
func TestSendToARunOwnedElsewhereIsRefused(t *testing.T) {
	h, other := heldElsewhere(t, "run_command", `{"command":"sleep 100"}`)
	unchanged := h.writesNothing()

	_, err := h.m.Run(context.Background(), h.id, "Hello", session.RunOptions{})
	var held *store.LeaseHeldError
	if !errors.As(err, &held) || held.By.PID != other || !strings.Contains(err.Error(), "another Loupe process") {
		t.Fatalf("send to a run owned elsewhere: %v", err)
	}
	if err := h.m.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	unchanged("a send and a recovery of a run owned elsewhere")
}

// A send to a session whose last run was left open by a process that is
// gone (and that no recovery has closed yet) closes that run first: its
// call gets its one result and its run_end, then the new run begins.
func TestSendClosesARunItsDeadOwnerLeftOpen(t *testing.T) {
	needProc(t)
	h := newHarness(t, permission.ModeAuto, nil)
	h.crashedDuringCall("run_command", `{"command":"sleep 100"}`)
	h.giveLease(procs.Exited(t))
	h.srv.Script(ollamatest.Text("Hello."))
	if end := h.run("Hello"); end.Reason != trace.EndAnswered {
		t.Fatalf("end = %+v", end)
	}
	evs := h.events()
	invariants.Check(t, evs)
	rs := results(t, evs)
	if len(rs) != 1 || rs[0].ErrorKind != trace.ErrInterrupted {
		t.Fatalf("results = %+v", rs)
	}
	var ends []int
	for _, e := range evs {
		if e.Kind == trace.KindRunEnd {
			ends = append(ends, e.Run)
		}
	}
	if len(ends) != 2 || ends[0] != 1 || ends[1] != 2 {
		t.Fatalf("run_ends of runs %v, want 1 then 2", ends)
	}
}

// Undo writes files and the log: not while another live process runs the
// session.
func TestUndoOfARunOwnedElsewhereIsRefused(t *testing.T) {
	h, _ := heldElsewhere(t, "write_file", `{"path":"a.txt","content":"a"}`)
	unchanged := h.writesNothing()
	if _, err := h.m.Do(context.Background(), session.UndoRun{Session: h.id, Run: 1, Force: true}); !errors.Is(err, store.ErrLeaseHeld) {
		t.Fatalf("undo of a run owned elsewhere: %v", err)
	}
	unchanged("an undo of a run owned elsewhere")
}

// Stop, Step or an answer for a run that another live process holds says
// where the run is, and writes nothing.
func TestCommandsToARunOwnedElsewhereSayWhere(t *testing.T) {
	h, other := heldElsewhere(t, "run_command", `{"command":"sleep 100"}`)
	unchanged := h.writesNothing()
	for _, c := range []session.Command{
		session.Stop{Session: h.id}, session.Step{Session: h.id, At: 2}, session.Continue{Session: h.id},
		session.Answer{Session: h.id, CallID: "call_1", Allow: true, Scope: "once"}, session.Skip{Session: h.id, Observation: "no"},
	} {
		_, err := h.m.Do(context.Background(), c)
		var held *store.LeaseHeldError
		if !errors.As(err, &held) || held.By.PID != other {
			t.Errorf("%s on a run owned elsewhere: %v", c.Kind(), err)
		}
	}
	unchanged("commands to a run owned elsewhere")
}
