package session_test

// Recordings for the frontend. Each scenario drives the Manager the way
// the window does (the methods app.go binds: Do with a Command, and the
// queries) and records the commands it sends interleaved with
// what came back on the window's channels. The frontend's replay bridge
// plays these files into the real UI: the UI's specs test against what
// the engine really does, and there is no second engine in TypeScript.
//
// `go test ./backend/session -run Recordings -update` rewrites them; a
// normal run fails when the engine's output changes.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/otlp"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/workspace"
	"github.com/loupe-dev/loupe/testkit/golden"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// Where the frontend reads the recordings from.
var recordingsDir = filepath.Join("..", "..", "frontend", "src", "lib", "replay", "recordings")

// What a recording calls the things that differ from run to run.
const (
	recordedWorkspace = "/home/me/project"
	recordedSession   = "session-1"
	recordedHome      = "/home/me"
	recordedModel     = "qwen3:0.6b"
)

var recordedStart = time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)

// window is the Loupe window as the scenarios see it: a Manager wired like
// app.go wires it, whose every call from the UI and every message to the
// UI is recorded.
type window struct {
	t       *testing.T
	srv     *ollamatest.Server
	st      *store.Store
	m       *session.Manager
	rec     *golden.Recorder
	broker  *permission.Broker
	ws      string
	id      string
	replace [][2]string
	// from is the number of steps when the last command began: waits look
	// at what came after it.
	from int
	// deleted is set once the UI deleted the session.
	deleted bool
}

// windowSink forwards what the Manager sends the UI to the recording, in
// the shapes app.go emits.
type windowSink struct{ rec *golden.Recorder }

func (s windowSink) Event(e trace.Event) { s.rec.Event(e) }
func (s windowSink) Delta(d agent.Delta) { s.rec.Delta(d) }

// openWindow starts a recording: a fresh database and workspace (README.md
// and notes.txt), the fake Ollama with one model, saved settings in the
// given mode, and one new session.
func openWindow(t *testing.T, scenario, about string, mode permission.Mode, edit func(*settings.Settings)) *window {
	t.Helper()
	w := newWindow(t, scenario, about, mode, edit)
	ctx := context.Background()
	sum, err := w.m.Create(ctx, w.ws, recordedModel)
	if err != nil {
		t.Fatal(err)
	}
	w.started(&sum)
	return w
}

// started begins the recording with the session the window shows (nil:
// none yet) and the saved settings.
func (w *window) started(sum *session.Summary) {
	w.t.Helper()
	saved, err := settings.Load(context.Background(), w.st)
	w.must(err)
	if sum == nil {
		w.rec.Start(nil, saved)
		return
	}
	w.id = sum.ID
	w.rec.Start(sum, saved)
}

// newWindow wires the window without a session.
func newWindow(t *testing.T, scenario, about string, mode permission.Mode, edit func(*settings.Settings)) *window {
	t.Helper()
	srv := ollamatest.New(t)
	srv.SetClock(func() time.Time { return recordedStart })
	srv.AddModel(ollamatest.ModelSpec{Name: recordedModel, ContextLength: 40960})
	st := tempStore(t)
	// Once the scenario's runs are over (cleanups run last first), every
	// session it recorded comes back whole from its JSON export.
	t.Cleanup(func() { checkJSONRoundTrip(t, st) })
	rec := golden.NewRecorder(t, scenario, about)
	broker := permission.NewBroker()
	m := session.NewManager(st, ollama.New(srv.URL(), nil), broker, windowSink{rec})
	t.Cleanup(m.StopAll)
	w := &window{t: t, srv: srv, st: st, m: m, rec: rec, broker: broker, ws: demoWorkspace(t)}
	saveSettings(t, st, mode, edit)
	// The home folder first: the other stable names must not be touched.
	if home, err := os.UserHomeDir(); err == nil && len(home) > 1 {
		w.replace = append(w.replace, [2]string{home, recordedHome})
	}
	w.replace = append(w.replace, [2]string{w.ws, recordedWorkspace}, [2]string{srv.URL(), ollama.DefaultHost})
	return w
}

func (w *window) write(name, content string) {
	w.t.Helper()
	writeIn(w.t, w.ws, name, content)
}

func (w *window) read(name string) string {
	b, _ := os.ReadFile(filepath.Join(w.ws, name))
	return string(b)
}

// --- the UI's commands --------------------------------------------------

func (w *window) command(method string, do func() (any, error), args ...any) error {
	w.from = w.rec.Len()
	return w.rec.Command(method, do, args...)
}

func (w *window) must(err error) {
	w.t.Helper()
	if err != nil {
		w.t.Fatal(err)
	}
}

func none(err error) (any, error) { return nil, err }

// do sends one command as the window does (App.Do), for this session.
// The command goes as JSON (session.EncodeCommand), and is read back as
// App.Do reads what the window sends (session.DecodeCommand).
func (w *window) do(c session.Command) (session.Outcome, error) {
	w.t.Helper()
	raw, err := session.EncodeCommand(c)
	if err != nil {
		w.t.Fatal(err)
	}
	var out session.Outcome
	err = w.command("do", func() (any, error) {
		c, err := session.DecodeCommand(raw)
		if err != nil {
			return nil, err
		}
		out, err = w.m.Do(context.Background(), c)
		return out, err
	}, raw)
	return out, err
}

func (w *window) mustDo(c session.Command) session.Outcome {
	w.t.Helper()
	out, err := w.do(c)
	w.must(err)
	return out
}

// at is the paused checkpoint the window shows, which a pause command
// names: the log's.
func (w *window) at() int64 {
	w.t.Helper()
	_, st := trace.Waiting(w.events())
	if st.Paused == nil {
		w.t.Fatal("the run is not paused")
	}
	return st.PausedSeq
}

func (w *window) send(text string) {
	w.t.Helper()
	w.mustDo(session.Send{Session: w.id, Text: text})
}

func (w *window) newSession(model string) {
	w.t.Helper()
	out := w.mustDo(session.Create{Workspace: w.ws, Model: model})
	w.id = out.Summary.ID
}

func (w *window) setModel(model string) {
	w.t.Helper()
	w.mustDo(session.SetModel{Session: w.id, Model: model})
}

func (w *window) deleteSession() {
	w.t.Helper()
	w.keep()
	w.deleted = true
	w.mustDo(session.Delete{Session: w.id})
}

// trySend is a send the backend may refuse.
func (w *window) trySend(text string) error {
	_, err := w.do(session.Send{Session: w.id, Text: text})
	return err
}

func (w *window) answer(callID string, allow bool, scope permission.Scope) {
	w.t.Helper()
	w.mustDo(session.Answer{Session: w.id, CallID: callID, Allow: allow, Scope: string(scope)})
}

func (w *window) stop() {
	w.t.Helper()
	w.mustDo(session.Stop{Session: w.id})
}

func (w *window) setStepping(on bool) {
	w.t.Helper()
	w.mustDo(session.SetStepping{Session: w.id, On: on})
}

func (w *window) setBreakpoints(bp session.Breakpoints) {
	w.t.Helper()
	w.mustDo(session.SetBreakpoints{Session: w.id, Breakpoints: &bp})
}

func (w *window) step() {
	w.t.Helper()
	w.mustDo(session.Step{Session: w.id, At: w.at()})
}

func (w *window) continueRun() {
	w.t.Helper()
	w.mustDo(session.Continue{Session: w.id, At: w.at()})
}

func (w *window) editRequest(e agent.RequestEdit) {
	w.t.Helper()
	w.mustDo(session.EditRequest{Session: w.id, At: w.at(), Request: &e})
}

func (w *window) editArgs(args string) error {
	_, err := w.do(session.EditArgs{Session: w.id, At: w.at(), Args: args})
	return err
}

func (w *window) skipCall(observation string) {
	w.t.Helper()
	w.mustDo(session.Skip{Session: w.id, At: w.at(), Observation: observation})
}

func (w *window) editResult(content string) {
	w.t.Helper()
	w.mustDo(session.EditResult{Session: w.id, At: w.at(), Content: content})
}

func (w *window) undoRun(run int, force bool) session.RestoreResult {
	w.t.Helper()
	return *w.mustDo(session.UndoRun{Session: w.id, Run: run, Force: force}).Restore
}

func (w *window) compact() trace.Compaction {
	w.t.Helper()
	return *w.mustDo(session.Compact{Session: w.id}).Compaction
}

func (w *window) restoreFiles(seq int64, force bool) session.RestoreResult {
	w.t.Helper()
	return *w.mustDo(session.RestoreFiles{Session: w.id, Seq: seq, Force: force}).Restore
}

func (w *window) saveSettings(s settings.Settings) error {
	return w.command("saveSettings", func() (any, error) { return none(settings.Save(context.Background(), w.st, s)) }, s)
}

// change changes one thing of the workspace, as App.SetWorkspace does.
func (w *window) change(c workspace.Change) error {
	return w.command("setWorkspace", func() (any, error) { return w.m.Workspaces().Apply(context.Background(), w.ws, c) }, w.ws, c)
}

// trustWorkspace trusts the settings file as the window does: the one
// shown, by its digest.
func (w *window) trustWorkspace(trust bool, shown workspace.Info) {
	w.t.Helper()
	w.must(w.change(workspace.Change{Trust: &trust, Seen: shown.Digest}))
}

func (w *window) setWorkspaceNetwork(allow bool) {
	w.t.Helper()
	w.must(w.change(workspace.Change{Network: &allow}))
}

func (w *window) setWorkspaceExpose(paths []string) error {
	return w.change(workspace.Change{Expose: &paths})
}

func (w *window) forgetGrants() {
	w.t.Helper()
	w.must(w.change(workspace.Change{ForgetGrants: true}))
}

// workspace records the UI reading the workspace's state.
func (w *window) workspace() workspace.Info {
	w.t.Helper()
	var info workspace.Info
	w.must(w.rec.Query("workspace", func() (any, error) {
		var err error
		info, err = w.m.Workspaces().Info(context.Background(), w.ws)
		return info, err
	}, w.ws))
	return info
}

// openSession records the window opening the session: what Manager.Open
// sends (its events as previews).
func (w *window) openSession() {
	w.t.Helper()
	w.must(w.rec.Query("openSession", func() (any, error) { return w.m.Open(context.Background(), w.id) }, w.id))
}

// eventPayload records the window fetching one event whole.
func (w *window) eventPayload(seq int64) {
	w.t.Helper()
	w.must(w.rec.Query("eventPayload", func() (any, error) { return w.m.Payload(context.Background(), w.id, seq) }, w.id, seq))
}

// ruleLimits records the rule editor asking what a rule cannot hold.
func (w *window) ruleLimits(r permission.Rule) {
	w.t.Helper()
	w.must(w.rec.Query("ruleLimits", func() (any, error) { return r.Limits(), nil }, r))
}

// --- waiting for the engine -----------------------------------------------

// since returns the steps recorded after the last command began.
func (w *window) since(steps []golden.Step) []golden.Step {
	if w.from > len(steps) {
		return nil
	}
	return steps[w.from:]
}

// untilPaused waits for the run to wait at point: a paused checkpoint
// event reached the window.
func (w *window) untilPaused(point string) {
	w.t.Helper()
	w.rec.Wait("a pause at "+point, func(steps []golden.Step) bool {
		for _, s := range w.since(steps) {
			var e trace.Event
			if s.Event != nil && json.Unmarshal(s.Event, &e) == nil && e.Kind == trace.KindCheckpoint {
				if cp, err := trace.Decode[trace.Checkpoint](e); err == nil && cp.State == trace.Paused && cp.Point == point {
					return true
				}
			}
		}
		return false
	})
}

// untilAsked waits for a question to the user (an ask event) and returns
// it.
func (w *window) untilAsked() trace.Permission {
	w.t.Helper()
	var q trace.Permission
	w.rec.Wait("a question", func(steps []golden.Step) bool {
		for _, s := range w.since(steps) {
			var e trace.Event
			if s.Event != nil && json.Unmarshal(s.Event, &e) == nil && e.Kind == trace.KindPermission {
				if p, err := trace.Decode[trace.Permission](e); err == nil && p.Decision == trace.Ask {
					q = p
					return true
				}
			}
		}
		return false
	})
	return q
}

// untilEnded waits until the run has ended and the window was told, and
// the run's slot is free again.
func (w *window) untilEnded() trace.RunEnd {
	w.t.Helper()
	var end trace.RunEnd
	w.rec.Wait("the run to end", func(steps []golden.Step) bool {
		for _, s := range w.since(steps) {
			var e trace.Event
			if s.Event != nil && json.Unmarshal(s.Event, &e) == nil && e.Kind == trace.KindRunEnd {
				end, _ = trace.Decode[trace.RunEnd](e)
				return true
			}
		}
		return false
	})
	w.m.Wait(w.id)
	return end
}

// untilDeltas waits for n streamed pieces of an answer.
func (w *window) untilDeltas(n int) {
	w.t.Helper()
	w.rec.Wait("streamed deltas", func(steps []golden.Step) bool {
		got := 0
		for _, s := range w.since(steps) {
			if s.Delta != nil {
				got++
			}
		}
		return got >= n
	})
}

// untilCallOutput waits for n deltas of a call's output.
func (w *window) untilCallOutput(callID string, n int) {
	w.t.Helper()
	w.rec.Wait("the output of "+callID, func(steps []golden.Step) bool {
		got := 0
		for _, s := range w.since(steps) {
			var d agent.Delta
			if s.Delta != nil && json.Unmarshal(s.Delta, &d) == nil && d.CallID == callID {
				got++
			}
		}
		return got >= n
	})
}

func (w *window) events() []trace.Event {
	w.t.Helper()
	evs, err := w.st.Events(context.Background(), w.id)
	if err != nil {
		w.t.Fatal(err)
	}
	return evs
}

func (w *window) seqOf(kind trace.Kind, nth int) int64 {
	w.t.Helper()
	for _, e := range w.events() {
		if e.Kind == kind {
			if nth == 0 {
				return e.Seq
			}
			nth--
		}
	}
	w.t.Fatalf("no %s event", kind)
	return 0
}

// save compares the recording with its file, after checking the log's
// invariants and keeping the rebuilt body of every request for the Raw
// view (done before a deleted session went).
func (w *window) save() {
	w.t.Helper()
	w.saveAs(strings.TrimPrefix(w.t.Name(), "TestRecordings/"))
}

// saveAs keeps the recording as recordings/NAME.json.
func (w *window) saveAs(name string) {
	w.t.Helper()
	if !w.deleted {
		w.keep()
	}
	replace := w.replace
	if w.id != "" {
		replace = append(replace, [2]string{w.id, recordedSession})
	}
	got := w.rec.Bytes(golden.RecordOptions{Replace: replace, Start: recordedStart})
	golden.Check(w.t, filepath.Join(recordingsDir, name+".json"), got, *update, "run `go test ./backend/session -run Recordings -update`")
}

// keep checks the session's log and keeps the rebuilt request bodies.
func (w *window) keep() {
	w.t.Helper()
	evs := w.events()
	invariants.Check(w.t, evs)
	for _, e := range evs {
		if e.Kind != trace.KindModelRequest {
			continue
		}
		raw, err := session.RawRequest(context.Background(), w.st, w.id, e.Seq)
		if err != nil {
			w.t.Fatal(err)
		}
		w.rec.RawRequest(e.Seq, raw)
	}
}

func text(pieces ...string) ollamatest.Reply { return ollamatest.Text(pieces...) }

// say is a reply with some text and then tool calls.
func say(content string, cs ...ollamatest.Call) ollamatest.Reply {
	return ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: content}}, ToolCalls: cs}
}

// --- the scenarios ----------------------------------------------------------

func TestRecordings(t *testing.T) {
	// A command asks; the user approves it once from its card.
	t.Run("approve_command", func(t *testing.T) {
		w := openWindow(t, "approve_command", "A command asks first; the user approves it once and the model answers. Then breakpoints are set from the stored timeline.", permission.ModeAsk, nil)
		w.srv.Script(
			say("I will write it with a command.", call("call_1", "run_command", `{"command":"echo hello > hello.txt"}`)),
			text("The command wrote ", "hello.txt."),
		)
		w.send("Write hello.txt with a command")
		a := w.untilAsked()
		w.answer(a.CallID, true, permission.ScopeOnce)
		if end := w.untilEnded(); end.Reason != trace.EndAnswered {
			t.Fatalf("end = %+v", end)
		}
		if w.read("hello.txt") != "hello\n" {
			t.Fatal("the approved command did not run")
		}
		w.rec.Mark("end")
		// Breakpoints set from the stored timeline: on a checkpoint, then
		// on the tool of a call, then off that tool again.
		w.setBreakpoints(session.Breakpoints{Points: []string{trace.PointAfterResponse}, Tools: []string{}})
		w.setBreakpoints(session.Breakpoints{Points: []string{trace.PointAfterResponse}, Tools: []string{"run_command"}})
		w.setBreakpoints(session.Breakpoints{Points: []string{trace.PointAfterResponse}, Tools: []string{}})
		w.save()
	})

	// A write to a protected file asks once only; the user denies it.
	t.Run("deny_protected", func(t *testing.T) {
		w := openWindow(t, "deny_protected", "A write to .env asks, once only; the user denies it and the model hears so.", permission.ModeAsk, nil)
		w.srv.Script(
			calls(call("call_1", "write_file", `{"path":".env","content":"TOKEN=secret\n"}`)),
			text("I left .env alone."),
		)
		w.send("Put a token in .env")
		a := w.untilAsked()
		if !a.OnceOnly {
			t.Fatalf("approval %+v is not once only", a)
		}
		w.answer(a.CallID, false, permission.ScopeOnce)
		w.untilEnded()
		if _, err := os.Stat(filepath.Join(w.ws, ".env")); err == nil {
			t.Fatal("the denied write ran")
		}
		w.save()
	})

	// "For this session": the same kind of call later runs without asking.
	t.Run("approve_for_session", func(t *testing.T) {
		w := openWindow(t, "approve_for_session", "An edit approved for the session; the next run's edit of the same file does not ask.", permission.ModeAsk, nil)
		w.srv.Script(
			calls(call("call_1", "edit_file", `{"path":"README.md","old_string":"hello","new_string":"HELLO"}`)),
			text("Shouted."),
			calls(call("call_2", "edit_file", `{"path":"README.md","old_string":"HELLO","new_string":"Hello"}`)),
			text("Calmer now."),
		)
		w.send("Shout hello in the README")
		a := w.untilAsked()
		w.answer(a.CallID, true, permission.ScopeSession)
		w.untilEnded()
		w.rec.Mark("run 1 done")
		w.send("Make it calmer")
		w.untilEnded()
		for _, e := range w.events() {
			if p, err := trace.Decode[trace.Permission](e); err == nil && e.Run == 2 && p.Decision == trace.Ask {
				t.Fatal("the second edit asked again")
			}
		}
		w.save()
	})

	// "Always for this workspace": the workspace keeps it until forgotten.
	t.Run("approve_for_workspace", func(t *testing.T) {
		w := openWindow(t, "approve_for_workspace", "An edit approved always for the workspace; the workspace lists it, and forgets it.", permission.ModeAsk, nil)
		w.srv.Script(
			calls(call("call_1", "edit_file", `{"path":"README.md","old_string":"hello","new_string":"HELLO"}`)),
			text("Shouted."),
		)
		w.send("Shout hello in the README")
		a := w.untilAsked()
		w.answer(a.CallID, true, permission.ScopeWorkspace)
		w.untilEnded()
		if info := w.workspace(); len(info.Grants) != 1 {
			t.Fatalf("grants = %+v", info.Grants)
		}
		w.forgetGrants()
		if info := w.workspace(); len(info.Grants) != 0 {
			t.Fatalf("grants after forgetting = %+v", info.Grants)
		}
		w.save()
	})

	// Three calls in one message, answered in call order.
	t.Run("parallel_calls", func(t *testing.T) {
		w := openWindow(t, "parallel_calls", "The model asks for three reads at once; they run together and go back in call order.", permission.ModeAuto, nil)
		w.srv.Script(
			say("Looking at three things at once.",
				call("call_1", "read_file", `{"path":"README.md"}`),
				call("call_2", "read_file", `{"path":"notes.txt"}`),
				call("call_3", "list_dir", `{"path":"."}`)),
			text("The README greets you; ", "the notes say alpha and beta."),
		)
		w.send("Read everything")
		w.untilEnded()
		w.rec.Mark("end")
		w.save()
	})

	// Unknown tool, arguments that do not fit, a tool that fails.
	t.Run("error_kinds", func(t *testing.T) {
		w := openWindow(t, "error_kinds", "Three calls that go wrong in three different ways, each told to the model as such.", permission.ModeAsk, nil)
		w.srv.Script(
			calls(
				call("call_1", "delete_everything", `{}`),
				call("call_2", "read_file", `{"path":7}`),
				call("call_3", "read_file", `{"path":"missing.txt"}`),
			),
			text("I see what went wrong."),
		)
		w.send("Try things")
		w.untilEnded()
		w.save()
	})

	// A small model prints its calls as text, in each of the forms small
	// models use: Loupe recovers each as a call, marked with the text it
	// came from, and the calls are checked and run like any other.
	t.Run("text_calls", func(t *testing.T) {
		w := openWindow(t, "text_calls", "A model that prints its tool calls as text instead of asking for them: a <tool_call> tag, a json code fence, bare JSON, and a list; each is recovered and run.", permission.ModeAuto, nil)
		w.srv.Script(
			text("Let me look.\n<tool_call>\n{\"name\": \"list_dir\", \"arguments\": {\"path\": \".\"}}\n</tool_call>"),
			text("Reading the README:\n```json\n{\"name\": \"read_file\", \"parameters\": {\"path\": \"README.md\"}}\n```"),
			text(`{"type": "function", "function": {"name": "read_file", "arguments": {"path": "notes.txt"}}}`),
			text(`[{"name": "list_dir", "args": {"path": "."}}, {"name": "read_file", "arguments": {"path": "README.md"}}]`),
			text("To read a file, one would write {\"name\": \"read_file\", \"arguments\": {\"path\": \"x\"}}. The notes say alpha and beta."),
		)
		w.send("What is here?")
		w.untilEnded()
		w.save()
	})

	// The forms of other model families (Mistral, Llama, Gemma), then a
	// call of a tool that was not offered: nothing runs, and the run ends
	// saying a call was printed, not that the model answered.
	t.Run("printed_forms", func(t *testing.T) {
		w := openWindow(t, "printed_forms", "A model that prints its calls in Mistral's, Llama's and Gemma's forms, each recovered and run; then a call of a tool that was not offered, which ends the run as a printed call, not an answer.", permission.ModeAuto, nil)
		w.srv.Script(
			text(`[TOOL_CALLS]list_dir[ARGS]{"path": "."}`),
			text(`<|python_tag|>{"name": "read_file", "parameters": {"path": "README.md"}}<|eom_id|>`),
			text("And the notes:\n```tool_code\nprint(read_file(path=\"notes.txt\"))\n```"),
			text(`[TOOL_CALLS]send_email[ARGS]{"to": "me", "body": "alpha and beta"}`),
		)
		w.send("Read everything and mail me the notes")
		if end := w.untilEnded(); end.Reason != trace.EndPrintedCall {
			t.Fatalf("end = %+v", end)
		}
		w.save()
	})

	// Broken JSON in a printed call: repaired where the intent is plain
	// (marked, the original kept), and otherwise told to the model as
	// invalid arguments with the expected schema.
	t.Run("repaired_args", func(t *testing.T) {
		w := openWindow(t, "repaired_args", "Calls with broken JSON: a trailing comma and single quotes are repaired and the call runs; arguments beyond repair reach the model as an error with the expected arguments.", permission.ModeAuto, nil)
		w.srv.Script(
			text("<tool_call>{'name': 'read_file', 'arguments': {'path': 'README.md',},}</tool_call>"),
			text(`{"name": "read_file", "arguments": "{\"path\": \"notes.txt\"}"}`),
			text(`<tool_call>{"name": "read_file", "arguments": {"path": README.md notes.txt}}</tool_call>`),
			text("Done reading."),
		)
		w.send("Read them")
		w.untilEnded()
		w.save()
	})

	// The same call over and over: at the repeat limit (3) a notice and a
	// note to the model with the result; once more and the run stops.
	t.Run("repeated_calls", func(t *testing.T) {
		w := openWindow(t, "repeated_calls", "A model stuck asking for the same call: the third time Loupe tells it so, the fourth time the run stops.", permission.ModeAuto, nil)
		w.srv.Respond(func(ollamatest.ChatRequest) ollamatest.Reply {
			return calls(call("", "list_dir", `{"path": "."}`))
		})
		w.send("List")
		w.untilEnded()
		w.save()
	})

	// Step mode: a pause at each of the four checkpoints of both rounds.
	t.Run("step_through", func(t *testing.T) {
		w := openWindow(t, "step_through", "Step mode on: the run pauses at every checkpoint and the user steps six times.", permission.ModeAsk, nil)
		w.srv.Script(
			say("I will list the folder.", call("call_1", "list_dir", `{"path":"."}`)),
			text("Two files: ", "README.md and notes.txt."),
		)
		w.setStepping(true)
		w.send("What is here?")
		for _, p := range []string{trace.PointBeforeRequest, trace.PointAfterResponse, trace.PointBeforeTool, trace.PointAfterResult, trace.PointBeforeRequest, trace.PointAfterResponse} {
			w.untilPaused(p)
			w.rec.Mark("paused " + p)
			w.step()
		}
		w.untilEnded()
		w.save()
	})

	// A sub-agent: the model hands a question to a nested run of the
	// loop with read-only tools, whose answer is the task call's result.
	t.Run("sub_agent", func(t *testing.T) {
		w := openWindow(t, "sub_agent", "The model hands a question to a sub-agent; it lists the folder in its own nested run and its answer comes back as one observation.", permission.ModeAsk, withSubAgents(nil))
		pc := &parentAndChild{
			parent: []ollamatest.Reply{
				say("A helper can look.", call("call_1", "task", `{"prompt":"What files are in the workspace? Answer with their names."}`)),
				text("The helper found ", "README.md and notes.txt."),
			},
			child: []ollamatest.Reply{
				calls(call("call_1", "list_dir", `{"path":"."}`)),
				text("README.md and notes.txt"),
			},
		}
		w.srv.Respond(pc.respond)
		w.send("Ask a helper what is here")
		if end := w.untilEnded(); end.Reason != trace.EndAnswered {
			t.Fatalf("end = %+v", end)
		}
		w.rec.Mark("end")
		w.save()
	})

	// A sub-agent's command asks: the question is its loop's (agent), and
	// the window answers it in the sub-agent's lane, naming that loop.
	t.Run("sub_agent_asks", func(t *testing.T) {
		w := openWindow(t, "sub_agent_asks", "A sub-agent given run_command asks before it runs a command; the user approves it in the sub-agent's lane.", permission.ModeAsk, withSubAgents(nil))
		pc := &parentAndChild{
			parent: []ollamatest.Reply{
				say("A helper can write it.", call("call_1", "task", `{"prompt":"Write hi to hi.txt with a command that prints it.","tools":["run_command"]}`)),
				text("The helper wrote hi.txt."),
			},
			child: []ollamatest.Reply{
				calls(call("call_1", "run_command", `{"command":"echo hi | tee hi.txt"}`)),
				text("wrote hi.txt"),
			},
		}
		w.srv.Respond(pc.respond)
		w.send("Ask a helper to write hi.txt")
		q := w.untilAsked()
		w.rec.Mark("sub-agent asks")
		w.mustDo(session.Answer{Session: w.id, Agent: "call_1", CallID: q.CallID, Allow: true, Scope: string(permission.ScopeOnce)})
		if end := w.untilEnded(); end.Reason != trace.EndAnswered {
			t.Fatalf("end = %+v", end)
		}
		if got := w.read("hi.txt"); got != "hi\n" {
			t.Fatalf("hi.txt = %q", got)
		}
		w.rec.Mark("end")
		w.save()
	})

	// Step mode steps into a sub-agent: it pauses at its own rounds, then
	// the parent takes its answer.
	t.Run("sub_agent_stepped", func(t *testing.T) {
		w := openWindow(t, "sub_agent_stepped", "Step mode: the user steps into the sub-agent of a task call, through its rounds, and back out to the parent.", permission.ModeAsk, withSubAgents(nil))
		pc := &parentAndChild{
			parent: []ollamatest.Reply{
				say("A helper can look.", call("call_1", "task", `{"prompt":"What files are in the workspace?"}`)),
				text("The helper found README.md and notes.txt."),
			},
			child: []ollamatest.Reply{
				calls(call("call_1", "list_dir", `{"path":"."}`)),
				text("README.md and notes.txt"),
			},
		}
		w.srv.Respond(pc.respond)
		w.setStepping(true)
		w.send("Ask a helper what is here")
		for _, p := range []string{trace.PointBeforeRequest, trace.PointAfterResponse} {
			w.untilPaused(p)
			w.step()
		}
		w.untilPaused(trace.PointBeforeTool)
		w.rec.Mark("paused before the task call")
		w.mustDo(session.Step{Session: w.id, At: w.at(), Into: true})
		for _, p := range []string{trace.PointBeforeRequest, trace.PointAfterResponse, trace.PointBeforeTool, trace.PointAfterResult, trace.PointBeforeRequest, trace.PointAfterResponse} {
			w.untilPaused(p)
			if agent, _ := trace.Waiting(w.events()); agent != "call_1" {
				t.Fatalf("paused at %s of %q, want the sub-agent's", p, agent)
			}
			w.rec.Mark("sub-agent paused " + p)
			w.step()
		}
		w.untilPaused(trace.PointAfterResult)
		if agent, _ := trace.Waiting(w.events()); agent != "" {
			t.Fatalf("paused after the task call in %q, want the parent", agent)
		}
		w.rec.Mark("back in the parent")
		w.continueRun()
		w.untilEnded()
		w.save()
	})

	// Every kind of edit at the pauses, and a refused one.
	t.Run("step_edits", func(t *testing.T) {
		w := openWindow(t, "step_edits", "Step mode: the user edits the request, the call's arguments (once wrongly) and the result before the model sees them.", permission.ModeAuto, nil)
		w.srv.Script(
			say("Reading it.", call("call_1", "read_file", `{"path":"missing.txt"}`)),
			text("It says hello."),
		)
		w.setStepping(true)
		w.send("Read missing.txt")
		w.untilPaused(trace.PointBeforeRequest)
		system := "Answer in one word."
		opts := w.pending().Options
		opts.NumCtx = 4096
		w.editRequest(agent.RequestEdit{System: &system, Options: &opts,
			Messages: []agent.MessageEdit{{Seq: w.pending().Messages[0].Seq, Content: "Read README.md"}}})
		w.step()
		w.untilPaused(trace.PointAfterResponse)
		w.step()
		w.untilPaused(trace.PointBeforeTool)
		w.rec.Mark("paused before_tool")
		if err := w.editArgs(`{"file": "README.md"}`); err == nil {
			t.Fatal("arguments without a path were taken")
		}
		w.must(w.editArgs(`{"path": "README.md"}`))
		w.step()
		w.untilPaused(trace.PointAfterResult)
		w.rec.Mark("paused after_result")
		w.editResult("The README says: hello (edited)")
		w.continueRun()
		if end := w.untilEnded(); end.Reason != trace.EndAnswered {
			t.Fatalf("end = %+v", end)
		}
		w.save()
	})

	// A call that changes a file, its arguments edited at the pause before it:
	// the run changed a file with the user's edit, counted once.
	t.Run("step_edit_write", func(t *testing.T) {
		w := openWindow(t, "step_edit_write", "Step mode: the user edits the arguments of an edit_file call before it runs, then approves it; the file changes as edited.", permission.ModeAsk, nil)
		w.srv.Script(
			calls(call("call_1", "edit_file", `{"path":"README.md","old_string":"hello","new_string":"HELLO"}`)),
			text("Changed."),
		)
		w.setStepping(true)
		w.send("Shout hello in the README")
		w.untilPaused(trace.PointBeforeRequest)
		w.step()
		w.untilPaused(trace.PointAfterResponse)
		w.step()
		w.untilPaused(trace.PointBeforeTool)
		w.must(w.editArgs(`{"path":"README.md","old_string":"hello","new_string":"Hello there"}`))
		w.step()
		w.answer(w.untilAsked().CallID, true, permission.ScopeOnce)
		w.untilPaused(trace.PointAfterResult)
		w.continueRun()
		if end := w.untilEnded(); end.Reason != trace.EndAnswered {
			t.Fatalf("end = %+v", end)
		}
		if got := w.read("README.md"); got != "# Demo\nHello there from the workspace\n" {
			t.Fatalf("README.md = %q, not as edited", got)
		}
		w.save()
	})

	// A breakpoint on a tool; the user answers the call without running it.
	t.Run("breakpoint_skip", func(t *testing.T) {
		w := openWindow(t, "breakpoint_skip", "A breakpoint on write_file pauses before the call; the user skips it with an observation of their own.", permission.ModeAuto, nil)
		w.srv.Script(
			calls(call("call_1", "write_file", `{"path":"x.txt","content":"x"}`)),
			text("OK, you wrote it."),
		)
		w.setBreakpoints(session.Breakpoints{Points: []string{}, Tools: []string{"write_file"}})
		w.rec.Mark("breakpoint set")
		w.send("Write x.txt")
		w.untilPaused(trace.PointBeforeTool)
		w.skipCall("I wrote it myself.")
		w.untilEnded()
		if _, err := os.Stat(filepath.Join(w.ws, "x.txt")); err == nil {
			t.Fatal("the skipped call ran")
		}
		w.save()
	})

	// Stop while the run waits at a pause.
	t.Run("stop_paused", func(t *testing.T) {
		w := openWindow(t, "stop_paused", "Step mode: the user stops the run while it waits before its first request.", permission.ModeAsk, nil)
		w.srv.Script(text("Hi."))
		w.setStepping(true)
		w.send("Say hi")
		w.untilPaused(trace.PointBeforeRequest)
		w.stop()
		if end := w.untilEnded(); end.Reason != trace.EndCancelled {
			t.Fatalf("end = %+v", end)
		}
		w.save()
	})

	// Stop while the answer streams in.
	t.Run("stop_streaming", func(t *testing.T) {
		w := openWindow(t, "stop_streaming", "The answer streams in and stalls; the user stops the run.", permission.ModeAuto, nil)
		w.srv.Script(ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "Hello "}, {Content: "there"}, {Content: ", and more"}}, Fault: ollamatest.StallAfter(2)})
		w.send("Greet me")
		w.untilDeltas(2)
		w.stop()
		if end := w.untilEnded(); end.Reason != trace.EndCancelled {
			t.Fatalf("end = %+v", end)
		}
		w.save()
	})

	// A command streams its output to its card; the user stops it from
	// there and the run goes on.
	t.Run("stop_command", func(t *testing.T) {
		w := openWindow(t, "stop_command", "A command streams its output (stdout, then stderr) while it runs; the user stops that command alone, and the model hears so and answers.", permission.ModeAuto, nil)
		w.srv.Script(
			say("Running the tests.", call("call_1", "run_command", `{"command":"echo compiling; sleep 0.3; echo 'warning: slow test' >&2; sleep 30"}`)),
			text("You stopped the tests; ", "they were slow."),
		)
		w.send("Run the tests")
		w.untilCallOutput("call_1", 2)
		w.rec.Mark("streaming")
		w.mustDo(session.StopCall{Session: w.id, CallID: "call_1"})
		if end := w.untilEnded(); end.Reason != trace.EndAnswered {
			t.Fatalf("end = %+v", end)
		}
		// The time the command ran varies; the recording says 1.2 s.
		r, _ := trace.Decode[trace.ToolResult](w.events()[w.seqOf(trace.KindToolResult, 0)-1])
		took := regexp.MustCompile(`stopped by the user after [0-9]\.[0-9] s`).FindString(r.Content)
		if r.ErrorKind != trace.ErrStopped || took == "" {
			t.Fatalf("result = %+v", r)
		}
		w.replace = append(w.replace, [2]string{took, "stopped by the user after 1.2 s"})
		w.save()
	})

	// Undo a turn: its file change goes, the earlier turn's stays.
	t.Run("undo_turn", func(t *testing.T) {
		w := openWindow(t, "undo_turn", "Two turns each edit a file after asking; the user undoes the second turn.", permission.ModeAsk, nil)
		w.srv.Script(
			calls(call("call_1", "edit_file", `{"path":"README.md","old_string":"hello","new_string":"HELLO"}`)),
			text("Shouted."),
			calls(call("call_2", "edit_file", `{"path":"notes.txt","old_string":"beta","new_string":"BETA"}`)),
			text("Done."),
		)
		w.send("Shout hello in the README")
		w.answer(w.untilAsked().CallID, true, permission.ScopeOnce)
		w.untilEnded()
		w.rec.Mark("run 1 done")
		w.send("Shout beta in the notes")
		a := w.untilAsked()
		w.rec.Mark("run 2 asking")
		w.answer(a.CallID, true, permission.ScopeOnce)
		w.untilEnded()
		w.rec.Mark("run 2 done")
		if res := w.undoRun(2, false); !res.Done {
			t.Fatalf("undo = %+v", res)
		}
		if w.read("notes.txt") != "alpha\nbeta\n" || w.read("README.md") != "# Demo\nHELLO from the workspace\n" {
			t.Fatal("undo of run 2 did not put notes.txt back alone")
		}
		w.save()
	})

	// Undo over a change made outside Loupe: asked, cancelled, forced.
	t.Run("undo_conflict", func(t *testing.T) {
		w := openWindow(t, "undo_conflict", "A file the agent edited is changed by hand; undo names it, is cancelled twice, then overwrites it.", permission.ModeAuto, nil)
		w.srv.Script(
			calls(call("call_1", "edit_file", `{"path":"README.md","old_string":"hello","new_string":"HELLO"}`)),
			text("Shouted."),
		)
		w.send("Shout hello in the README")
		w.untilEnded()
		w.write("README.md", "# Demo\nmy own change\n")
		w.rec.Outside("README.md changed by hand")
		for range 3 {
			if res := w.undoRun(1, false); res.Done || len(res.Conflicts) != 1 {
				t.Fatalf("undo over a change = %+v", res)
			}
		}
		if res := w.undoRun(1, true); !res.Done {
			t.Fatalf("forced undo = %+v", res)
		}
		if w.read("README.md") != "# Demo\nhello from the workspace\n" {
			t.Fatal("forced undo did not put README.md back")
		}
		w.save()
	})

	// Undo over a file a command turned into a link to .git/config: named
	// for what it is, and left alone even when the user overwrites.
	t.Run("undo_link", func(t *testing.T) {
		w := openWindow(t, "undo_link", "A file the agent wrote becomes a link to .git/config; undo says so and writes nothing through it, even when told to overwrite.", permission.ModeAuto, nil)
		w.write(".git/config", gitConfig)
		w.srv.Script(
			calls(call("call_1", "write_file", `{"path":"notes.txt","content":"changed\n"}`)),
			text("Wrote the notes."),
		)
		w.send("Rewrite the notes")
		w.untilEnded()
		if err := os.Remove(filepath.Join(w.ws, "notes.txt")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(".git/config", filepath.Join(w.ws, "notes.txt")); err != nil {
			t.Fatal(err)
		}
		w.rec.Outside("notes.txt replaced by a link to .git/config")
		if res := w.undoRun(1, false); res.Done || len(res.Conflicts) != 1 || !res.Conflicts[0].Kept {
			t.Fatalf("undo over a link = %+v", res)
		}
		if res := w.undoRun(1, true); !res.Done || len(res.Restored) != 0 {
			t.Fatalf("forced undo over a link = %+v", res)
		}
		if w.read(".git/config") != gitConfig {
			t.Fatal("undo wrote through the link")
		}
		w.save()
	})

	// Restore to before a step: later changes go, earlier ones stay.
	t.Run("restore_step", func(t *testing.T) {
		w := openWindow(t, "restore_step", "Two edits in two rounds; the user restores the files to before the second.", permission.ModeAuto, nil)
		w.srv.Script(
			calls(call("call_1", "edit_file", `{"path":"README.md","old_string":"hello from the workspace","new_string":"Step one."}`)),
			calls(call("call_2", "edit_file", `{"path":"README.md","old_string":"Step one.","new_string":"Step two."}`)),
			text("Two steps done."),
		)
		w.send("Edit the README in two steps")
		w.untilEnded()
		if res := w.restoreFiles(w.seqOf(trace.KindToolCall, 1), false); !res.Done {
			t.Fatalf("restore = %+v", res)
		}
		if w.read("README.md") != "# Demo\nStep one.\n" {
			t.Fatalf("README.md after the restore = %q", w.read("README.md"))
		}
		w.save()
	})

	// The settings page, saved three times: a mode, a tool setting and a
	// rule; a system prompt the backend refuses, then its fix; a command
	// deny rule with the path rule that holds whatever runs.
	t.Run("settings", func(t *testing.T) {
		w := openWindow(t, "settings", "The user saves settings three times: a mode, a tool setting and a rule; a system prompt the backend refuses and then its fix; a command deny rule with the path rule its limits suggest.", permission.ModeAsk, nil)
		s, err := settings.Load(context.Background(), w.st)
		w.must(err)
		s.PermissionMode = permission.ModeAskAll
		s.Tools = map[string]permission.ToolSetting{"run_command": permission.ToolNever}
		s.Rules = []permission.Rule{{Effect: permission.EffectAllow, Command: "go test ./..."}}
		w.must(w.saveSettings(s))
		w.rec.Mark("saved")
		broken := s
		broken.SystemPrompt = "You work in {{.Workspace"
		if err := w.saveSettings(broken); err == nil {
			t.Fatal("a system prompt that does not parse was saved")
		}
		s.SystemPrompt = "You work in {{.Workspace}}."
		w.must(w.saveSettings(s))
		w.rec.Mark("prompt saved")
		deny := permission.Rule{Effect: permission.EffectDeny, Command: "cat .env"}
		w.ruleLimits(deny)
		s.Rules = append(s.Rules, deny, permission.Rule{Effect: permission.EffectDeny, Path: ".env"})
		w.must(w.saveSettings(s))
		w.save()
	})

	// The Ollama host in Settings: one the backend refuses (with what to
	// type), then one typed without a scheme, which it takes and stores
	// normalised.
	t.Run("ollama_host", func(t *testing.T) {
		w := openWindow(t, "ollama_host", "The user types an Ollama host the backend refuses (an ftp:// address), then localhost:11500, which is saved as http://localhost:11500.", permission.ModeAsk, nil)
		s, err := settings.Load(context.Background(), w.st)
		w.must(err)
		bad := s
		bad.OllamaHost = "ftp://gpu-box:11434"
		if err := w.saveSettings(bad); err == nil {
			t.Fatal("an ftp:// Ollama host was saved")
		}
		s.OllamaHost = "localhost:11500"
		w.must(w.saveSettings(s))
		if got, _ := settings.Load(context.Background(), w.st); got.OllamaHost != "http://localhost:11500" {
			t.Fatalf("saved Ollama host %q, want it normalised", got.OllamaHost)
		}
		w.save()
	})

	// Traces of finished runs in Settings: an OTLP endpoint the backend
	// refuses (no scheme), then one it takes, sent as http/json without
	// content.
	t.Run("otlp_export", func(t *testing.T) {
		w := openWindow(t, "otlp_export", "The user types an OTLP collector the backend refuses (localhost:4318, no http://), then http://localhost:4318, sent as http/json without content.", permission.ModeAsk, nil)
		s, err := settings.Load(context.Background(), w.st)
		w.must(err)
		bad := s
		bad.OTLPEndpoint = "localhost:4318"
		if err := w.saveSettings(bad); err == nil {
			t.Fatal("an OTLP endpoint with no scheme was saved")
		}
		s.OTLPEndpoint, s.OTLPProtocol, s.OTLPNoContent = "http://localhost:4318", otlp.JSON, true
		w.must(w.saveSettings(s))
		w.save()
	})

	// A workspace's settings file: untrusted, trusted, changed, broken;
	// network for its commands, and the folders they may also read.
	t.Run("workspace", func(t *testing.T) {
		w := openWindow(t, "workspace", "A workspace with its own settings file: a run says it is not trusted; the user trusts it, it changes, the user turns network on and exposes a folder (the home folder is refused), and the file breaks.", permission.ModeAsk,
			func(s *settings.Settings) {
				s.Rules = []permission.Rule{{Effect: permission.EffectDeny, Path: "secrets/**"}}
			})
		w.write(".loupe/settings.json", `{"rules":[{"effect":"allow","command":"make test"}],"commands":["go test ./..."],"allow_network":true}`+"\n")
		sdk := t.TempDir()
		w.replace = append(w.replace, [2]string{sdk, "/opt/sdk"})
		w.srv.Script(text("Hello."))
		w.send("Hi")
		w.untilEnded()
		w.rec.Mark("run done")
		w.trustWorkspace(true, w.workspace())
		if !w.workspace().Trusted {
			t.Fatal("not trusted after trusting")
		}
		w.write(".loupe/settings.json", `{"rules":[{"effect":"allow","command":"rm *"}]}`+"\n")
		w.rec.Outside(".loupe/settings.json changed")
		if w.workspace().Trusted {
			t.Fatal("a changed settings file is still trusted")
		}
		w.setWorkspaceNetwork(true)
		w.workspace()
		w.must(w.setWorkspaceExpose([]string{sdk}))
		w.workspace()
		w.rec.Mark("exposed")
		home, err := os.UserHomeDir()
		w.must(err)
		if err := w.setWorkspaceExpose([]string{sdk, home}); err == nil {
			t.Fatal("the home folder was exposed")
		}
		w.workspace()
		w.must(w.setWorkspaceExpose([]string{}))
		w.workspace()
		w.write(".loupe/settings.json", "{\"rules\": [\n")
		w.rec.Outside(".loupe/settings.json broken")
		if w.workspace().SettingsError == "" {
			t.Fatal("a broken settings file was read")
		}
		w.rec.Mark("broken")
		yes := true
		if err := w.change(workspace.Change{Trust: &yes}); err == nil {
			t.Fatal("a broken settings file was trusted")
		}
		w.workspace()
		w.save()
	})

	// The first session: created, sent to a model Ollama does not have
	// (refused), then to one it has; then deleted.
	t.Run("new_session", func(t *testing.T) {
		w := newWindow(t, "new_session", "No session yet: the user creates one, picks a model Ollama does not have (the send is refused), picks one it has, gets an answer, and deletes the session.", permission.ModeAsk, nil)
		w.started(nil)
		w.newSession(recordedModel)
		w.rec.Mark("created")
		w.setModel("llama3.2:1b")
		if err := w.trySend("Hi"); err == nil {
			t.Fatal("a send to a model Ollama does not have was taken")
		}
		w.setModel(recordedModel)
		w.srv.Script(text("Hello!"))
		w.send("Hi")
		w.untilEnded()
		w.rec.Mark("answered")
		w.deleteSession()
		w.save()
	})

	// A named Ollama host: the new-session dialog lists its models, the
	// session is made on it, and its request says where it went.
	t.Run("named_host", func(t *testing.T) {
		gpu := ollamatest.New(t)
		gpu.SetClock(func() time.Time { return recordedStart })
		gpu.AddModel(ollamatest.ModelSpec{Name: "qwen3:32b", ContextLength: 40960})
		w := newWindow(t, "named_host", "Settings name a second Ollama host, gpu-box; the user lists its models, starts a session on it with qwen3:32b, and gets an answer from it.", permission.ModeAsk,
			func(s *settings.Settings) { s.Hosts = []settings.HostProfile{{Name: "gpu-box", URL: gpu.URL()}} })
		w.replace = append([][2]string{{gpu.URL(), "http://10.0.0.5:11434"}}, w.replace...)
		w.started(nil)
		w.must(w.rec.Query("listModelsOn", func() (any, error) { return w.m.ModelsOn(context.Background(), "gpu-box") }, "gpu-box"))
		out := w.mustDo(session.Create{Workspace: w.ws, Model: "qwen3:32b", Host: "gpu-box"})
		w.id = out.Summary.ID
		w.rec.Mark("created")
		gpu.Script(text("Hello from the GPU box."))
		w.send("Hi")
		w.untilEnded()
		w.rec.Mark("answered")
		if n := len(w.srv.Requests()); n != 0 {
			t.Fatalf("the local server got %d requests meant for gpu-box", n)
		}
		w.save()
	})

	// The workspace's AGENTS.md: Settings shows the whole system prompt
	// with it, and the run sends it. The template does not name the
	// folder, so the part's offsets hold once the recording renames it.
	t.Run("project_instructions", func(t *testing.T) {
		w := openWindow(t, "project_instructions", "The workspace has an AGENTS.md: Settings shows it as part of the system prompt, and the run's request sends it, delimited.", permission.ModeAsk,
			func(s *settings.Settings) {
				s.SystemPrompt = "You are a coding agent. Use the tools; answer in plain text when done."
			})
		w.write("AGENTS.md", "# Notes for agents\nRun `go test ./...` before you answer.\nNever edit files under vendor/.\n")
		set, err := settings.Load(context.Background(), w.st)
		w.must(err)
		w.must(w.rec.Query("systemPrompt", func() (any, error) { return session.SystemPreview(set, set.SystemPrompt, w.ws) }, set.SystemPrompt, w.ws))
		w.srv.Script(text("I will run the tests before I answer."))
		w.send("What do you do before you answer?")
		w.untilEnded()
		w.rec.Mark("answered")
		w.save()
	})

	// Step mode as a default and as the session's own: Settings has new
	// sessions start in it; Continue lets a run go, and the next run of
	// the session steps again.
	t.Run("step_default", func(t *testing.T) {
		w := newWindow(t, "step_default", "The user turns on \"New sessions start in Step mode\" in Settings and creates a session: its first run pauses before the request; Continue lets that run end, and the next run pauses again.", permission.ModeAsk, nil)
		w.started(nil)
		s, err := settings.Load(context.Background(), w.st)
		w.must(err)
		s.StepMode = true
		w.must(w.saveSettings(s))
		w.newSession(recordedModel)
		w.rec.Mark("created")
		w.srv.Script(text("Hello!"), text("Hello again!"))
		w.send("Hi")
		w.untilPaused(trace.PointBeforeRequest)
		w.rec.Mark("paused")
		w.continueRun()
		w.untilEnded()
		w.rec.Mark("answered")
		w.send("Once more")
		w.untilPaused(trace.PointBeforeRequest)
		w.rec.Mark("paused again")
		w.continueRun()
		w.untilEnded()
		w.save()
	})

	// A prompt that does not fit: the model reads a big file into a small
	// context; Ollama refuses the next prompt (truncate false) and the run
	// stops with the parts and the ways out.
	t.Run("does_not_fit", func(t *testing.T) {
		w := openWindow(t, "does_not_fit", "The model reads a 20 KB file with num_ctx capped at 4096; the next prompt does not fit, Ollama refuses it, and the run stops saying what needed room.", permission.ModeAuto,
			func(s *settings.Settings) { s.NumCtxCap = 4096 })
		w.write("big.log", bigLog())
		w.srv.Script(
			calls(call("call_1", "read_file", `{"path":"big.log"}`)),
			text("never sent"),
		)
		w.send("What is in big.log?")
		w.untilEnded()
		w.save()
	})

	// The context meter: a 7 KB read into num_ctx 4096 fills the next
	// prompt past 80%: its request card and the session's meter say so,
	// with the split by part and the ways out; Ollama allocated the
	// num_ctx asked for.
	t.Run("context_meter", func(t *testing.T) {
		w := openWindow(t, "context_meter", "The model reads a 7 KB file with num_ctx capped at 4096; the next prompt takes over 80% of the context, and the meter warns.", permission.ModeAuto,
			func(s *settings.Settings) { s.NumCtxCap = 4096 })
		var b strings.Builder
		for i := 1; b.Len() < 7_000; i++ {
			fmt.Fprintf(&b, "entry %d: a line of the notes kept long\n", i)
		}
		w.write("notes.md", b.String())
		w.srv.Script(
			calls(call("call_1", "read_file", `{"path":"notes.md"}`)),
			text("The notes are a list of entries."),
		)
		w.send("What is in notes.md?")
		w.untilEnded()
		w.save()
	})

	// A long read: opened again, the session sends the observation cut
	// (its first lines and how long it is whole); the user shows all of it.
	t.Run("long_read", func(t *testing.T) {
		w := openWindow(t, "long_read", "The model reads a 300-line changelog and answers. Opened again, the session sends the observation cut to its first lines; the user shows all of it.", permission.ModeAuto, nil)
		var log strings.Builder
		for i := 300; i >= 1; i-- {
			fmt.Fprintf(&log, "## 0.%d.0\n- release %d: fixes and small changes\n", i, i)
		}
		w.write("CHANGELOG.md", log.String())
		w.srv.Script(
			calls(call("call_1", "read_file", `{"path":"CHANGELOG.md"}`)),
			text("The changelog lists 300 releases, newest first."),
		)
		w.send("What does the changelog say?")
		w.untilEnded()
		w.rec.Mark("reopened")
		w.openSession()
		w.eventPayload(w.seqOf(trace.KindToolResult, 0))
		w.save()
	})

	// Compaction: a run outgrows the threshold and the model summarises
	// its older rounds; after the run, Compact now summarises the rest.
	t.Run("compaction", func(t *testing.T) {
		w := openWindow(t, "compaction", "The model reads five 2 KB notes with num_ctx capped at 8192 and compaction at 50 %: before round 5 it summarises rounds 1–2. After the run, Compact now summarises all but the last round.", permission.ModeAuto,
			func(s *settings.Settings) { s.NumCtxCap, s.CompactAtPercent, s.CompactKeepRounds = 8192, 50, 2 })
		for i := 1; i <= 5; i++ {
			var b strings.Builder
			for j := 0; b.Len() < 2000; j++ {
				fmt.Fprintf(&b, "note %d line %d\n", i, j)
			}
			w.write(fmt.Sprintf("notes/%d.txt", i), b.String())
		}
		w.srv.Respond(reader(5))
		w.send("What do the notes say?")
		w.untilEnded()
		w.rec.Mark("run done")
		w.compact()
		w.save()
	})
	t.Run("demo_first_run", recordDemoFirstRun)
	t.Run("demo_stepped", recordDemoStepped)

	// The tour the browser demo plays: a look around, then a change that
	// asks, then its undo.
	t.Run("tour", func(t *testing.T) {
		w := openWindow(t, "tour", "What the browser demo shows: the agent looks around, answers, then edits the README after asking; the edit is undone.", permission.ModeAsk, nil)
		w.srv.Script(
			ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "I will list "}, {Content: "the workspace first."}},
				ToolCalls: []ollamatest.Call{call("call_1", "list_dir", `{"path":"."}`)}},
			say("Two files; I will read both.",
				call("call_2", "read_file", `{"path":"README.md"}`),
				call("call_3", "read_file", `{"path":"notes.txt"}`)),
			text("This is a **demo** workspace:\n\n", "- `README.md` says hello from the workspace.\n", "- `notes.txt` lists *alpha* and *beta*."),
			say("I will make the greeting louder.", call("call_4", "edit_file", `{"path":"README.md","old_string":"hello","new_string":"HELLO"}`)),
			text("The README now says **HELLO**. ", "\"Undo this turn\" puts it back."),
		)
		w.send("What is in this project?")
		w.untilEnded()
		w.rec.Mark("run 1 done")
		w.send("Make the README's greeting louder")
		w.answer(w.untilAsked().CallID, true, permission.ScopeOnce)
		w.untilEnded()
		w.undoRun(2, false)
		w.save()
	})
}

// pending is the request the run waits to send, as the log's paused
// checkpoint holds it.
func (w *window) pending() *trace.Pending {
	w.t.Helper()
	st := trace.StateOf(w.events())
	if st.Paused == nil || st.Paused.Request == nil {
		w.t.Fatal("not paused before a request")
	}
	return st.Paused.Request
}
