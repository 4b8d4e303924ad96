package session_test

// Hole: a fork's "copy as it was then" (and Run from here, which always
// copies) copies Loupe's database with the workspace when the database
// lies in it, and in the copy it is an ordinary file: the fork's model
// reads every session of the database, of every workspace.
//
// Steps: Loupe's database is in the workspace (loupe --db ./loupe.db; the
// view hides it from commands and the tools refuse it, wherever it is).
// Another session, of another project, holds a secret in its messages.
// The user runs the rest of a task in this workspace on another model
// ("Run from here on…"). In the copy, `grep -a` over loupe.db and its
// -wal finds the other session's secret.
//
// Mechanism: copyWorkspace reads the parent's folder through hands, whose
// guard covers changes only, and copies every regular file; the database
// and its companions are hidden and protected by their absolute paths
// (Confined.Hide, Policy.ProtectedFiles), which are the parent's, so the
// copies in the new folder are neither hidden nor protected there.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

func TestAdv8AForksCopyDoesNotCarryLoupesDatabase(t *testing.T) {
	const secret = "OTHER-PROJECT-SECRET-4417"
	ctx := context.Background()
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.ModelSpec{Name: testModel, ContextLength: 32768})
	srv.AddModel(ollamatest.ModelSpec{Name: "other", ContextLength: 32768})
	ws := demoWorkspace(t)
	st, err := store.Open(filepath.Join(ws, "loupe.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	asks := make(chan trace.Permission, 16)
	h := &harness{t: t, srv: srv, st: st, broker: permission.NewBroker(), sink: &recordingSink{asks: asks}, asks: asks, ws: ws}
	h.m = session.NewManager(st, ollama.New(srv.URL(), nil), h.broker, h.sink)
	t.Cleanup(h.m.StopAll)
	saveSettings(t, st, permission.ModeAuto, nil)
	h.approveAll()

	// Another project's session, with a secret in it.
	otherWS := demoWorkspace(t)
	o, err := h.m.Create(ctx, otherWS, testModel)
	if err != nil {
		t.Fatal(err)
	}
	srv.Script(ollamatest.Text("noted"))
	if _, err := h.m.Run(ctx, o.ID, "the staging password is "+secret, session.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { s, _ := st.GetSession(ctx, o.ID); return s.OpenRun == 0 }, "the other session's run")

	sum, err := h.m.Create(ctx, ws, testModel)
	if err != nil {
		t.Fatal(err)
	}
	h.id = sum.ID
	const look = `{"command":"grep -a -o 'OTHER-PROJECT-SECRET-[0-9]*' loupe.db loupe.db-wal 2>&1 | head -3; echo searched"}`
	srv.Script(calls(call("c1", "run_command", look)), ollamatest.Text("looked"))
	h.run("Look around.")
	if rs := results(t, h.events()); strings.Contains(rs[0].Content, secret) {
		t.Fatalf("control: in the workspace itself the command read the database: %q", rs[0].Content)
	}

	srv.Script(calls(call("d1", "run_command", look)), ollamatest.Text("looked"))
	f, err := h.m.RunFrom(ctx, session.Fork{Session: h.id, At: 1, Model: "other"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(f.Files.Workspace) })
	waitFor(t, func() bool { s, _ := st.GetSession(ctx, f.Summary.ID); return s.OpenRun == 0 && s.EventCount > 2 }, "the fork's run")
	child, _ := st.Events(ctx, f.Summary.ID)
	for _, r := range results(t, child) {
		if strings.Contains(r.Content, secret) {
			t.Fatalf("in the fork's copy %s a command read another project's session out of the copied database: %q", f.Files.Workspace, r.Content)
		}
	}
	if _, err := os.Stat(filepath.Join(f.Files.Workspace, "loupe.db")); err == nil {
		t.Fatalf("the fork's copy %s holds a copy of Loupe's database", f.Files.Workspace)
	}
}
