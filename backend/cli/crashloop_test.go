package cli_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
	"github.com/loupe-dev/loupe/testkit/procs"
)

// crashSeed replays a crash loop's kill times: LOUPE_CRASH_SEED=<the seed
// it logged>. What each process has done by then still varies with the
// machine's timing; a failure shows in the log the test checks.
const crashSeed = "LOUPE_CRASH_SEED"

// `loupe run` killed with SIGKILL at random moments, again and again, on
// one database: while it streams, writes files, runs commands, records
// results, and while it recovers the runs the kill before left open (each
// loupe run recovers the database when it opens it). Afterwards, and one
// last recovery, the whole database keeps every rule: one result per call,
// one run_end per run, nothing after a run_end, dense seqs, no run left
// open, an intact file, and no command left running.
func TestCrashLoop(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the commands left alive are looked for in /proc, which only Linux has")
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv(crashSeed); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("%s=%q: %v", crashSeed, s, err)
		}
	}
	t.Logf("seed %d (replay with %s=%d)", seed, crashSeed, seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	kills := 30
	if testing.Short() {
		kills = 8
	}

	e := setup(t)
	// A unique sleep, to find the commands by.
	sleep := fmt.Sprintf("0.15%06d", time.Now().Nanosecond()/1000)
	var ids atomic.Int64
	call := func(name, args string) ollamatest.Call {
		return ollamatest.Call{ID: fmt.Sprintf("call_%d", ids.Add(1)), Name: name, Args: args}
	}
	words := func(n int) []ollamatest.Chunk {
		c := make([]ollamatest.Chunk, n)
		for i := range c {
			c[i] = ollamatest.Chunk{Content: "word "}
		}
		return c
	}
	// Each run: a write and a command, then a read, a command and a write
	// in parallel, then the answer; every answer streams for a while.
	e.srv.Respond(func(req ollamatest.ChatRequest) ollamatest.Reply {
		round := 0
		for _, m := range req.Messages {
			switch m.Role {
			case "user":
				round = 0
			case "assistant":
				round++
			}
		}
		r := ollamatest.Reply{Chunks: words(5), Delay: 15 * time.Millisecond}
		switch round {
		case 0:
			r.ToolCalls = []ollamatest.Call{
				call("write_file", `{"path":"notes.txt","content":"one\ntwo\n"}`),
				call("run_command", `{"command":"sleep `+sleep+`"}`),
			}
		case 1:
			r.ToolCalls = []ollamatest.Call{
				call("read_file", `{"path":"notes.txt"}`),
				call("run_command", `{"command":"sleep `+sleep+` && echo done"}`),
				call("write_file", `{"path":"out/result.txt","content":"done\n"}`),
			}
		}
		return r
	})

	args := []string{"run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--json", "--auto", "work"}
	// Until about 30 kills have landed; a run that ends before its kill
	// counts as a run, not a kill. A run takes at least two commands'
	// sleeps and three streamed answers, so most kills land; the attempts
	// and the time are bounded all the same. Most kills come after a
	// random delay; every third waits for a command to run first, so that
	// kills mid-command happen however slow the machine is (a busy one
	// spends the random delays starting up).
	start := time.Now()
	killed, finished, midCommand := 0, 0, 0
	for killed < kills && killed+finished < 3*kills && time.Since(start) < 3*time.Minute {
		p := startLoupe(t, args...)
		var at <-chan time.Time
		if (killed+finished)%3 == 2 {
			at = whenRunning(p.exited, "sleep "+sleep, 20*time.Second)
		} else {
			at = time.After(time.Duration(rng.Int64N(int64(800 * time.Millisecond))))
		}
		select {
		case <-p.exited:
			finished++
			continue
		case <-at:
		}
		if len(procs.Containing("sleep "+sleep)) > 0 {
			midCommand++
		}
		err := p.cmd.Process.Signal(syscall.SIGKILL)
		if errors.Is(err, os.ErrProcessDone) {
			// It ended (and was reaped) just before the kill.
			<-p.exited
			finished++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		p.wait(t, 5*time.Second)
		killed++
	}
	t.Logf("%d kills in %v, %d of them while a command ran; %d runs ended before their kill", killed, time.Since(start).Round(time.Millisecond), midCommand, finished)
	if killed < kills/3 || midCommand == 0 {
		t.Fatalf("only %d of %d runs were killed, %d while a command ran: the loop tests too little", killed, killed+finished, midCommand)
	}

	st, err := store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if err := session.NewManager(st, nil, nil, nil).Recover(ctx); err != nil {
		t.Fatal(err)
	}

	// Killing loupe takes its commands with it (the sandbox's process
	// tree dies with its parent), if not in the same instant.
	deadline := time.Now().Add(5 * time.Second)
	for left := procs.Containing("sleep " + sleep); len(left) > 0; left = procs.Containing("sleep " + sleep) {
		if time.Now().After(deadline) {
			t.Errorf("commands outlived the loupe that ran them: pids %v", left)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}

	ss, err := st.ListSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	runs, interrupted := 0, 0
	for _, s := range ss {
		evs, err := st.Events(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		invariants.Check(t, evs)
		checkLog(t, evs)
		if s.OpenRun != 0 || s.EventCount != len(evs) {
			t.Errorf("session %s: open run %d, event count %d for %d events", s.ID, s.OpenRun, s.EventCount, len(evs))
		}
		for _, e := range evs {
			if e.Kind == trace.KindRunEnd {
				runs++
				if end, _ := trace.Decode[trace.RunEnd](e); end.Reason == trace.EndInterrupted {
					interrupted++
				}
			}
		}
	}
	t.Logf("%d sessions, %d runs, %d closed by recovery", len(ss), runs, interrupted)
	if interrupted == 0 {
		t.Error("no run was closed by recovery")
	}

	db, err := sql.Open("sqlite", "file:"+e.db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check = %q, %v", check, err)
	}
}

// whenRunning fires once a process whose command line holds marker runs,
// or after limit, or never if exited closes first.
func whenRunning(exited <-chan struct{}, marker string, limit time.Duration) <-chan time.Time {
	out := make(chan time.Time, 1)
	go func() {
		deadline := time.Now().Add(limit)
		for time.Now().Before(deadline) {
			select {
			case <-exited:
				return
			case <-time.After(5 * time.Millisecond):
			}
			if len(procs.Containing(marker)) > 0 {
				out <- time.Now()
				return
			}
		}
		out <- time.Now()
	}()
	return out
}
