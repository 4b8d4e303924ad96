package session_test

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
	"github.com/loupe-dev/loupe/backend/workspace"
)

// What the commands' view hides wherever it is (Workspaces.Hidden) is not
// seen by a session's command even in a folder the user showed to
// commands: Loupe's database (every session of every workspace) and
// Loupe's state folder (where every Loupe process notes the placeholders
// it holds, and which paths they are), put there by --db or by
// XDG_STATE_HOME, directly or through a link.
func TestACommandSeesNoneOfLoupesOwnFilesInAnExposedFolder(t *testing.T) {
	if !workspace.Protections().Sandboxed() {
		t.Skipf("commands cannot be confined here (%s): nothing is hidden from them", workspace.Protections().Summary())
	}
	const secret = "LOUPE-OWN-SECRET-5521"
	for _, tc := range []struct {
		name string
		// place puts Loupe's own files in (or under) shown, returning
		// the database's path and XDG_STATE_HOME.
		place func(t *testing.T, shown string) (db, xdgState string)
	}{
		{"the database", func(t *testing.T, shown string) (string, string) {
			return filepath.Join(shown, "loupe.db"), t.TempDir()
		}},
		{"the state folder", func(t *testing.T, shown string) (string, string) {
			return filepath.Join(t.TempDir(), "loupe.db"), filepath.Join(shown, "state")
		}},
		{"the state folder through a link", func(t *testing.T, shown string) (string, string) {
			link := filepath.Join(t.TempDir(), "state")
			if err := os.MkdirAll(filepath.Join(shown, "real-state"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(shown, "real-state"), link); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(t.TempDir(), "loupe.db"), link
		}},
		{"the state folder's parent shown", func(t *testing.T, shown string) (string, string) {
			return filepath.Join(t.TempDir(), "loupe.db"), shown
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			shown := t.TempDir()
			db, xdgState := tc.place(t, shown)
			t.Setenv("XDG_STATE_HOME", xdgState)
			// A note of a placeholder as another Loupe process leaves
			// one, naming a path of the user's.
			writeIn(t, filepath.Join(xdgState, "loupe", "placeholders"), "64769-4417", `{"path":"/home/u/`+secret+`/.git/hooks","dir":true}`)
			srv := ollamatest.New(t)
			srv.AddModel(ollamatest.ModelSpec{Name: testModel, ContextLength: 32768})
			st, err := store.Open(db)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			asks := make(chan trace.Permission, 16)
			h := &harness{t: t, srv: srv, st: st, broker: permission.NewBroker(), sink: &recordingSink{asks: asks}, asks: asks, ws: demoWorkspace(t)}
			h.m = session.NewManager(st, ollama.New(srv.URL(), nil), h.broker, h.sink)
			t.Cleanup(h.m.StopAll)
			saveSettings(t, st, permission.ModeAuto, nil)
			h.approveAll()
			if err := h.m.Workspaces().SetExpose(ctx, h.ws, []string{shown}); err != nil {
				t.Fatal(err)
			}
			sum, err := h.m.Create(ctx, h.ws, testModel)
			if err != nil {
				t.Fatal(err)
			}
			h.id = sum.ID
			// A session whose text is in the database, for a command
			// that reads it to find.
			srv.Script(ollamatest.Text("noted"))
			h.run("the staging password is " + secret)

			look := `{"command":"grep -r -a -o 'LOUPE-OWN-SECRET-[0-9]*' ` + shown + ` 2>&1 | head -3; ls -R ` + shown + `; echo searched"}`
			srv.Script(calls(call("c1", "run_command", look)), ollamatest.Text("looked"))
			h.run("Look around.")
			rs := results(t, h.events())
			if len(rs) != 1 || !strings.Contains(rs[0].Content, "searched") {
				t.Fatalf("the command did not run to its end: %+v", rs)
			}
			for _, own := range []string{secret, "placeholders", "64769-4417"} {
				if strings.Contains(rs[0].Content, own) {
					t.Errorf("a command saw %q of Loupe's own files in the folder shown to commands:\n%s", own, rs[0].Content)
				}
			}
		})
	}
}
