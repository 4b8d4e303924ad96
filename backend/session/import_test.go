package session_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// recordedExport is the export of a real session: one run with a call,
// its result and an answer.
func recordedExport(t *testing.T) session.Exported {
	t.Helper()
	h := newHarness(t, permission.ModeAsk, nil)
	h.srv.Script(
		calls(call("call_1", "list_dir", `{"path":"."}`)),
		ollamatest.Text("README.md and notes.txt."),
	)
	h.run("What is in this folder?")
	var ex session.Exported
	if err := json.Unmarshal(exportJSON(t, h.st, h.id), &ex); err != nil {
		t.Fatal(err)
	}
	return ex
}

// encodeExport writes ex as Export does (members in order, indented).
func encodeExport(t *testing.T, ex session.Exported) []byte {
	t.Helper()
	b, err := json.MarshalIndent(ex, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// renamed is ex as the session other: importing it clashes with nothing.
func renamed(ex session.Exported, id string) session.Exported {
	ex.Session.ID = id
	evs := make([]trace.Event, len(ex.Events))
	for i, e := range ex.Events {
		e.SessionID = id
		evs[i] = e
	}
	ex.Events = evs
	return ex
}

// without drops the events for which drop is true and numbers the rest
// 1, 2, 3… again, with the session's counts as the log makes them.
func without(ex session.Exported, drop func(trace.Event) bool) session.Exported {
	var evs []trace.Event
	for _, e := range ex.Events {
		if !drop(e) {
			e.Seq = int64(len(evs) + 1)
			evs = append(evs, e)
		}
	}
	ex.Events = evs
	ex.Session.EventCount = len(evs)
	return ex
}

// fileHash is the hash of a database file and its write-ahead log.
func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	h := sha256.New()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		h.Write([]byte(p))
		h.Write(b)
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// refused imports file into a database that holds the recorded session,
// expects it refused with an *ImportError naming where, and checks that
// the database's files are byte for byte as they were.
func refused(t *testing.T, base session.Exported, file []byte, pointer string, seq int64, says string) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loupe.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := session.Import(ctx, st, bytes.NewReader(encodeExport(t, base)), session.ImportKeepID); err != nil {
		t.Fatal(err)
	}
	st.Close() // checkpoints and removes the WAL
	before := fileHash(t, path)

	st, err = store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = session.Import(ctx, st, bytes.NewReader(file), session.ImportKeepID)
	var ie *session.ImportError
	if !errors.As(err, &ie) {
		st.Close()
		t.Fatalf("import = %v, want an *ImportError", err)
	}
	if ie.Pointer != pointer || ie.Seq != seq || !strings.Contains(ie.Error(), says) {
		st.Close()
		t.Fatalf("import said %q (pointer %q, seq %d); want %q at %q, event %d", ie.Error(), ie.Pointer, ie.Seq, says, pointer, seq)
	}
	list, err := st.ListSessions(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("after a refused import the database lists %d sessions (%v), want the 1 it had", len(list), err)
	}
	st.Close()
	if fileHash(t, path) != before {
		t.Fatal("a refused import changed the database file")
	}
}

func TestImportRefusesWhatIsNotAWholeExport(t *testing.T) {
	base := recordedExport(t)
	other := renamed(base, "other")
	good := encodeExport(t, other)

	t.Run("truncated", func(t *testing.T) {
		cut := good[:bytes.Index(good, []byte(`"kind": "tool_result"`))+10]
		// Cut inside some event: the pointer is that event's.
		var ie *session.ImportError
		_, err := session.Import(context.Background(), tempStore(t), bytes.NewReader(cut), "")
		if !errors.As(err, &ie) || !strings.HasPrefix(ie.Pointer, "/events/") || !strings.Contains(err.Error(), "cut short") {
			t.Fatalf("import of a cut file = %v", err)
		}
		refused(t, base, cut, ie.Pointer, ie.Seq, "cut short")
	})
	t.Run("another program's JSON", func(t *testing.T) {
		refused(t, base, []byte(`{"name": "my-app", "version": "1.0.0", "dependencies": {}}`), "/name", 0, `its first member is "name"`)
		refused(t, base, []byte(`[{"role": "user", "content": "hi"}]`), "", 0, "it is JSON, but a list")
		refused(t, base, []byte("# A session\n\nnot JSON at all\n"), "", 0, "not valid JSON")
		refused(t, base, []byte(""), "", 0, "the file is empty")
	})
	t.Run("a newer format version", func(t *testing.T) {
		ex := other
		ex.Version = session.ExportVersion + 1
		refused(t, base, encodeExport(t, ex), "/version", 0, "written by a newer Loupe")
	})
	t.Run("a duplicate seq", func(t *testing.T) {
		ex := other
		ex.Events = append([]trace.Event(nil), other.Events...)
		ex.Events[3].Seq = ex.Events[2].Seq
		refused(t, base, encodeExport(t, ex), "/events/3/seq", 3, "seq 3 appears twice")
	})
	t.Run("a gap in the seqs", func(t *testing.T) {
		ex := other
		ex.Events = append([]trace.Event(nil), other.Events[:2]...)
		ex.Events = append(ex.Events, other.Events[3:]...)
		refused(t, base, encodeExport(t, ex), "/events/2/seq", 4, "seq 4 where 3 should be")
	})
	t.Run("a call with no result in a run that ended", func(t *testing.T) {
		ex := without(other, func(e trace.Event) bool { return e.Kind == trace.KindToolResult })
		var end int64
		for _, e := range ex.Events {
			if e.Kind == trace.KindRunEnd {
				end = e.Seq
			}
		}
		refused(t, base, encodeExport(t, ex), "/events/"+itoa(int(end-1)), end, `call "call_1"`)
	})
	t.Run("a result no call asked for", func(t *testing.T) {
		ex := without(other, func(e trace.Event) bool { return e.Kind == trace.KindToolCall })
		var at int64
		for _, e := range ex.Events {
			if e.Kind == trace.KindToolResult {
				at = e.Seq
			}
		}
		refused(t, base, encodeExport(t, ex), "/events/"+itoa(int(at-1))+"/payload/call_id", at, "no open tool_call")
	})
	t.Run("counts the log does not make", func(t *testing.T) {
		// Refused after every event was written: the transaction
		// takes them all back.
		ex := other
		ex.Session.Rounds++
		refused(t, base, encodeExport(t, ex), "/session/rounds", 0, "its events make it 2")
	})
	t.Run("a field this version does not have", func(t *testing.T) {
		b := bytes.Replace(good, []byte(`"title":`), []byte(`"colour": "red", "title":`), 1)
		refused(t, base, b, "/session", 0, `unknown field "colour"`)
	})
	t.Run("an unknown kind of event", func(t *testing.T) {
		ex := other
		ex.Events = append([]trace.Event(nil), other.Events...)
		ex.Events[1].Kind = "telepathy"
		refused(t, base, encodeExport(t, ex), "/events/1/kind", 2, `"telepathy" is not a kind of event`)
	})
	t.Run("a tool set no request finds", func(t *testing.T) {
		ex := other
		ex.ToolSets = map[int]json.RawMessage{}
		refused(t, base, encodeExport(t, ex), "/tool_sets/1", 2, "names tool set 1")
	})
}

// A run cut off with its call unanswered (a crash, a kill) is what a real
// log holds until Loupe takes the run up again: it is imported as it is,
// with its run open, and comes back the same.
func TestImportTakesARunCutOffAsItIs(t *testing.T) {
	ex := recordedExport(t)
	var call int64
	for _, e := range ex.Events {
		if e.Kind == trace.KindToolCall {
			call = e.Seq
		}
	}
	ex.Events = ex.Events[:call]
	ex.Session.EventCount, ex.Session.OpenRun, ex.Session.Rounds, ex.Session.LastReason = int(call), 1, 1, ""
	file := encodeExport(t, ex)
	st := tempStore(t)
	res, err := session.Import(context.Background(), st, bytes.NewReader(file), "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Session.OpenRun != 1 || res.Events != int(call) {
		t.Fatalf("imported %+v", res)
	}
	if got := exportJSON(t, st, ex.Session.ID); !bytes.Equal(got, file) {
		t.Fatalf("the cut run does not come back the same:\n%s", firstDifference(file, got))
	}
}

// The same session imported twice: kept by its id once; then refused with
// what to do, kept as a new session, or skipped.
func TestImportTheSameSessionTwice(t *testing.T) {
	ctx := context.Background()
	ex := recordedExport(t)
	file := encodeExport(t, ex)
	st := tempStore(t)
	first, err := session.Import(ctx, st, bytes.NewReader(file), "")
	if err != nil || first.Session.ID != ex.Session.ID {
		t.Fatalf("first import = %+v, %v", first, err)
	}
	_, err = session.Import(ctx, st, bytes.NewReader(file), "")
	var clash *session.ClashError
	if !errors.As(err, &clash) || clash.ID != ex.Session.ID || clash.Title != ex.Session.Title {
		t.Fatalf("second import = %v, want a ClashError naming %s", err, ex.Session.ID)
	}
	skipped, err := session.Import(ctx, st, bytes.NewReader(file), session.ImportSkip)
	if err != nil || !skipped.Skipped || skipped.Session.ID != ex.Session.ID {
		t.Fatalf("skip = %+v, %v", skipped, err)
	}
	both, err := session.Import(ctx, st, bytes.NewReader(file), session.ImportAsNew)
	if err != nil || both.Session.ID == ex.Session.ID || both.Events != len(ex.Events) {
		t.Fatalf("as new = %+v, %v", both, err)
	}
	list, _ := st.ListSessions(ctx)
	if len(list) != 2 {
		t.Fatalf("%d sessions, want the two kept", len(list))
	}
	// A bad file of a session that is there already is refused for what
	// is wrong with it, not asked about: keeping both would fail too.
	_, err = session.Import(ctx, st, bytes.NewReader(file[:len(file)/2]), "")
	var bad *session.ImportError
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "cut short") {
		t.Fatalf("cut file of a session there already = %v, want an ImportError saying it was cut short", err)
	}
	if list, _ := st.ListSessions(ctx); len(list) != 2 {
		t.Fatalf("%d sessions after a refused import, want 2", len(list))
	}
	// The new one is the same session under another id.
	want := encodeExport(t, renamed(ex, both.Session.ID))
	if got := exportJSON(t, st, both.Session.ID); !bytes.Equal(got, want) {
		t.Fatalf("kept as new, it is not the same session:\n%s", firstDifference(want, got))
	}
	// Its text is found, as a live session's is.
	res, err := st.Search(ctx, "notes.txt", store.SearchFilter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, h := range res.Sessions {
		found[h.SessionID] = true
	}
	if !found[both.Session.ID] || !found[ex.Session.ID] {
		t.Fatalf("search finds %v, want both imported sessions", found)
	}
}

// A session file whose folder is spelled with ".." after a link keeps it
// cleaned: the folder the window shows is the one Loupe judges and opens
// (to the kernel, "p/l/.." is the folder above where l leads).
func TestImportKeepsTheFolderCleaned(t *testing.T) {
	ex := recordedExport(t)
	want := ex.Session.Workspace
	ex.Session.Workspace = filepath.Join(want, "l") + "/.."
	st := tempStore(t)
	res, err := session.Import(context.Background(), st, bytes.NewReader(encodeExport(t, ex)), "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Session.Workspace != want {
		t.Fatalf("the imported session's folder is %q, want %q", res.Session.Workspace, want)
	}
}
