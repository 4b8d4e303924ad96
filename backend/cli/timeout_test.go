package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// --first-token-timeout and --stall-timeout end a run whose model stops
// sending: the partial answer is kept and marked, none of its calls run,
// the request is not sent again, and the run ends with an error that says
// which bound ran out.
func TestRunTimeouts(t *testing.T) {
	for _, tt := range []struct {
		name  string
		reply ollamatest.Reply
		flags []string
		want  string // in the error and the run_end
		calls int    // in the partial answer
	}{
		{
			name:  "nothing comes",
			reply: ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "late"}}, Fault: ollamatest.StallAfter(0)},
			flags: []string{"--first-token-timeout", "300ms"},
			want:  "first-token timeout",
		},
		{
			name: "the answer stops half way",
			reply: ollamatest.Reply{
				Chunks:    []ollamatest.Chunk{{Content: "Let me "}, {Content: "write it."}},
				ToolCalls: []ollamatest.Call{{ID: "call_w", Name: "write_file", Args: `{"path":"x.txt","content":"x"}`}},
				Fault:     ollamatest.StallAfter(3),
			},
			flags: []string{"--stall-timeout", "300ms"},
			want:  "stall timeout",
			calls: 1,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			e.srv.Script(tt.reply, ollamatest.Text("a retry was sent"))
			args := append([]string{"run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--auto"}, tt.flags...)
			start := time.Now()
			done := make(chan struct{})
			var code int
			var out, stderr string
			go func() {
				defer close(done)
				code, out, stderr = e.run(append(args, "write x.txt")...)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("loupe run still waits 10s on a model that sends nothing")
			}
			if took := time.Since(start); code != cli.ExitEnded || took > 5*time.Second {
				t.Fatalf("exit %d after %v, want %d soon after the timeout\n%s\n%s", code, took, cli.ExitEnded, out, stderr)
			}
			if n := len(e.srv.Requests()); n != 1 {
				t.Errorf("%d requests: a timed-out request was sent again", n)
			}
			select {
			case <-e.srv.HungUp(1):
			case <-time.After(2 * time.Second):
				t.Error("the connection of the timed-out request is still open")
			}

			evs := onlySessionLog(t, e.db)
			invariants.Check(t, evs)
			var sawNotice bool
			for _, ev := range evs {
				switch ev.Kind {
				case trace.KindModelResponse:
					r, _ := trace.Decode[trace.ModelResponse](ev)
					if !r.Incomplete || len(r.ToolCalls) != tt.calls {
						t.Errorf("model_response: incomplete %v, %d calls; want marked incomplete with %d", r.Incomplete, len(r.ToolCalls), tt.calls)
					}
				case trace.KindToolCall, trace.KindToolResult:
					t.Errorf("a %s event: a call of the unfinished answer was taken up", ev.Kind)
				case trace.KindNotice:
					p, _ := trace.Decode[trace.Notice](ev)
					sawNotice = sawNotice || p.Code == "timeout" && strings.Contains(p.Message, tt.want)
				case trace.KindError:
					t.Errorf("an error event for a timeout: %s", ev.Payload)
				}
			}
			if !sawNotice {
				t.Errorf("no notice names the %s", tt.want)
			}
			end, err := trace.Decode[trace.RunEnd](evs[len(evs)-1])
			if evs[len(evs)-1].Kind != trace.KindRunEnd || err != nil || end.Reason != trace.EndTimeout || !strings.Contains(end.Detail, tt.want) {
				t.Errorf("last event %s %+v, want a run_end that names the %s", evs[len(evs)-1].Kind, end, tt.want)
			}
		})
	}
}

func TestRunRejectsNegativeTimeouts(t *testing.T) {
	e := setup(t)
	for _, flag := range []string{"--first-token-timeout", "--stall-timeout"} {
		code, _, stderr := e.run("run", "--model", "scripted", "--db", e.db, flag, "-1s", "hi")
		if code != cli.ExitUsage || !strings.Contains(stderr, "0 or more") {
			t.Errorf("%s -1s: exit %d, %s", flag, code, stderr)
		}
	}
}

func TestRunHelpListsTimeoutsAndSignals(t *testing.T) {
	e := setup(t)
	code, out, _ := e.run("run", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"-first-token-timeout DURATION", "Settings' wait, 10m0s unless changed there", "-stall-timeout DURATION", "Settings' wait, 5m0s unless changed there", "SIGTERM and SIGHUP", "128 + the signal's number", "A second signal exits at once"} {
		if !strings.Contains(out, want) {
			t.Errorf("loupe run --help lacks %q:\n%s", want, out)
		}
	}
}

// Without the flags, loupe run waits as long as Settings says (the window
// sets it); a flag wins over Settings.
func TestRunWaitsAsSettingsSay(t *testing.T) {
	e := setup(t)
	st, err := store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	set := settings.Defaults()
	set.FirstTokenTimeoutS = 1
	if err := settings.Save(context.Background(), st, set); err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, tc := range []struct {
		flags []string
		ended bool
	}{
		{nil, true},
		{[]string{"--first-token-timeout", "0"}, false},
	} {
		e.srv.Script(ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "late"}}, Load: 2500 * time.Millisecond})
		args := append([]string{"run", "--workspace", e.ws, "--model", "scripted", "--host", e.srv.URL(), "--db", e.db, "--auto"}, tc.flags...)
		code, out, stderr := e.run(append(args, "hi")...)
		if timedOut := code == cli.ExitEnded && strings.Contains(stderr+out, "first-token timeout"); timedOut != tc.ended {
			t.Fatalf("flags %v: exit %d, timed out %v, want %v\n%s\n%s", tc.flags, code, timedOut, tc.ended, out, stderr)
		}
	}
}
