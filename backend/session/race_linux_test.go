//go:build linux

package session_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/invariants"
)

// flipper is a shell loop (GNU ln and mv, hence Linux) that keeps turning
// x into a symlink to .git/config or to Loupe's database ($DB) and back
// into a plain file, sometimes atomically (mv over it), sometimes with a moment
// where x is missing (ln -sf), and keeps moving the directory d away,
// putting a symlink to .git in its place, and moving it back.
const flipper = `
while [ ! -e flipper.stop ]; do
  ln -s .git/config x.lnk 2>/dev/null; mv -Tf x.lnk x
  printf 'A\n' > x.pln; mv -Tf x.pln x
  ln -sf "$DB" x
  printf 'A\n' > x.pln; mv -Tf x.pln x
  if mv -T d d.real 2>/dev/null; then
    ln -s .git d 2>/dev/null
    rm -rf d
    mv -T d.real d 2>/dev/null || { rm -rf d; mv -T d.real d; }
  fi
  [ -e flipper.up ] || : > flipper.up
done
`

// TestParallelCallsAgainstSymlinkSwaps runs the whole loop, in auto mode:
// every round the model asks
// for write_file x, edit_file x and write_file d/config in one message,
// which the agent decides in order and then runs in parallel, while a real
// process keeps swapping x and d for symlinks to .git/config and the
// database. Whatever the interleaving, the calls write the files that
// were decided on or are refused (or asked about, and denied), .git/config
// is unchanged, the database is still the same file and the log keeps its
// invariants.
func TestParallelCallsAgainstSymlinkSwaps(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the flipper")
	}
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.ModelSpec{Name: testModel, ContextLength: 32768})
	ws := fixedLengthDir(t)
	// Loupe refuses a workspace that holds its data folder, so the
	// database is outside; the symlinks to it lead out.
	db := filepath.Join(t.TempDir(), "loupe.db")
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	asked := 0
	var askMu sync.Mutex
	var m *session.Manager
	sink := &recordingSink{onAsk: func(e trace.Event, q trace.Permission) {
		askMu.Lock()
		asked++
		askMu.Unlock()
		// Asked because x or d/config led to a protected file when it
		// was decided: say no, as soon as the window would see it.
		go m.Do(context.Background(), session.Answer{Session: e.SessionID, CallID: q.CallID, Allow: false, Scope: string(permission.ScopeOnce)})
	}}
	m = session.NewManager(st, ollama.New(srv.URL(), nil), permission.NewBroker(), sink)
	t.Cleanup(m.StopAll)
	s := settings.Defaults()
	s.PermissionMode = permission.ModeAuto
	if err := settings.Save(context.Background(), st, s); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{".git/config": "A\n[core]\n", "x": "A\n", "d/config": "A\n"} {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitConfig := filepath.Join(ws, ".git", "config")
	gitBefore, _ := os.Lstat(gitConfig)
	dbBefore, err := os.Lstat(db)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := m.Create(context.Background(), ws, testModel)
	if err != nil {
		t.Fatal(err)
	}

	const rounds = 30
	var replies []ollamatest.Reply
	for r := range rounds {
		replies = append(replies, calls(
			call(fmt.Sprintf("w%d", r), "write_file", fmt.Sprintf(`{"path":"x","content":"A\nround %d\n"}`, r)),
			call(fmt.Sprintf("e%d", r), "edit_file", fmt.Sprintf(`{"path":"x","old_string":"A\n","new_string":"A\nedit %d\n"}`, r)),
			call(fmt.Sprintf("d%d", r), "write_file", fmt.Sprintf(`{"path":"d/config","content":"A\nround %d\n"}`, r)),
		))
	}
	srv.Script(append(replies, ollamatest.Text("done"))...)

	cmd := exec.Command("sh", "-c", flipper)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "DB="+db)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var once sync.Once
	stopFlipper := func() {
		once.Do(func() {
			os.WriteFile(filepath.Join(ws, "flipper.stop"), nil, 0o644)
			select {
			case <-waited:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-waited
			}
		})
	}
	defer stopFlipper()
	// The flipper has swapped both paths once: the race is on.
	waitFor(t, func() bool {
		_, err := os.Stat(filepath.Join(ws, "flipper.up"))
		return err == nil
	}, "the flipper to start")

	end, err := m.Run(context.Background(), sum.ID, "write the files", session.RunOptions{})
	stopFlipper()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if end.Reason != trace.EndAnswered {
		t.Fatalf("run ended %+v", end)
	}

	evs, err := st.Events(context.Background(), sum.ID)
	if err != nil {
		t.Fatal(err)
	}
	invariants.Check(t, evs)
	wrote, refused := 0, 0
	for _, r := range results(t, evs) {
		want := "x"
		if strings.HasPrefix(r.CallID, "d") {
			want = "d/config"
		}
		switch {
		case !r.IsError:
			wrote++
			if len(r.Changes) != 1 || r.Changes[0].Path != want {
				t.Errorf("%s changed another file than %s: %q", r.CallID, want, r.Content)
			}
		case r.ErrorKind == trace.ErrDenied,
			strings.Contains(r.Content, "refused: "),
			strings.Contains(r.Content, "changed while Loupe was opening it"),
			strings.Contains(r.Content, "changed on disk since you last read it"),
			strings.Contains(r.Content, "does not exist"),
			strings.Contains(r.Content, "is outside the workspace"):
			refused++
		default:
			t.Errorf("%s failed in an unexpected way: %q", r.CallID, r.Content)
		}
	}
	t.Logf("%d rounds: %d calls wrote, %d were refused (%d asked and denied)", rounds, wrote, refused, asked)
	if wrote == 0 || refused == 0 {
		t.Errorf("wrote %d, refused %d: the swaps and the calls never met", wrote, refused)
	}
	if b, _ := os.ReadFile(gitConfig); !bytes.Equal(b, []byte("A\n[core]\n")) {
		t.Errorf(".git/config changed to %q", b)
	}
	if fi, err := os.Lstat(gitConfig); err != nil || !os.SameFile(fi, gitBefore) {
		t.Errorf(".git/config was replaced: %v", err)
	}
	if fi, err := os.Lstat(db); err != nil || !os.SameFile(fi, dbBefore) {
		t.Errorf("the database file was replaced: %v", err)
	}
	if b, err := os.ReadFile(db); err != nil || !bytes.HasPrefix(b, []byte("SQLite format 3\x00")) {
		t.Errorf("the database is no longer SQLite: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(ws, ".git")); len(entries) != 1 {
		t.Errorf(".git holds %d entries, want only config", len(entries))
	}
	filepath.WalkDir(ws, func(p string, e os.DirEntry, err error) error {
		if err == nil && strings.Contains(e.Name(), ".loupe-") {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}
