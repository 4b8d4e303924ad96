//go:build linux

package attacks_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/gguf"
)

// raceRuns is how many runs each race gets with --auto, within raceBudget.
// Without --auto both calls ask and are denied, so a few runs show it.
const (
	raceRuns        = 20
	raceRunsDefault = 3
	raceBudget      = 3 * time.Minute
)

// TestSymlinkRaceCannotRedirectWrites sends one model message with two
// parallel calls: write_file of x, and a command that makes x a symlink to
// a protected file. The policy decides about x, a plain name; the write
// must still never land in the protected file, whichever call wins. The
// run repeats in the same workspace, so x is also, on every other run, the
// symlink the last run left (the race lost in advance); on the others the
// test removes it first (the race proper). The window of the race proper,
// between the decision about x and the write's open, is short next to the
// time a sandboxed command takes to start, so most of those runs see the
// write land first; they still show the link never redirects it.
func TestSymlinkRaceCannotRedirectWrites(t *testing.T) {
	l := newLab(t)

	// Each link is made twice: as written, and through a glob that names
	// the same file without spelling it out for the classifier.
	for _, link := range []string{"ln -sf .git/config x", "ln -sf .gi?/config x"} {
		t.Run("git config: "+link, func(t *testing.T) {
			for _, md := range modes {
				t.Run(md.name, func(t *testing.T) {
					ws := l.fresh("repo")
					l.mustGit(t, ws, "init", "-q")
					m := l.markers("race")
					calls := []gguf.Call{
						writeFileCall("x", "[core]\n\tfsmonitor = touch "+m.path("fsmonitor")+"\n"),
						runCommand(link),
					}
					before := fingerprint(t, filepath.Join(ws, ".git", "config"))
					l.race(t, md, ws, "", calls, func(i int, o outcome) bool {
						if ch := changes(before, fingerprint(t, filepath.Join(ws, ".git", "config"))); len(ch) > 0 {
							t.Errorf("run %d wrote through the symlink into .git/config: %s\n%s", i+1, strings.Join(ch, "; "), o.summary())
							return false
						}
						return true
					})
				})
			}
		})
	}

	for _, link := range []string{"ln -sf loupe.db x", "ln -sf loupe.d? x"} {
		t.Run("the database: "+link, func(t *testing.T) {
			for _, md := range modes {
				t.Run(md.name, func(t *testing.T) {
					ws := l.fresh("ws")
					db := filepath.Join(ws, "loupe.db")
					calls := []gguf.Call{
						writeFileCall("x", "this is not a database\n"),
						runCommand(link),
					}
					var sessions []string
					l.race(t, md, ws, db, calls, func(i int, o outcome) bool {
						sessions = append(sessions, o.session)
						head := make([]byte, 16)
						if f, err := os.Open(db); err == nil {
							_, _ = f.Read(head)
							f.Close()
						}
						if !bytes.Equal(head, []byte("SQLite format 3\x00")) {
							t.Errorf("after run %d the database is no longer an SQLite file: it starts %q\n%s", i+1, head, o.summary())
							return false
						}
						if res, n := integrity(t, db); res != "ok" || n != i+1 {
							t.Errorf("after run %d: integrity_check %q, %d sessions (want %d)\n%s", i+1, res, n, i+1, o.summary())
							return false
						}
						return true
					})
					for i, s := range sessions {
						if _, evs := l.export(t, db, s); !hasKind(evs, trace.KindRunEnd) {
							t.Errorf("session %d (%s) lost its events: %d left", i+1, s, len(evs))
						}
					}
				})
			}
		})
	}
}

// race runs calls again and again in ws (with --db db when db is set) and
// calls check after each run, stopping when check returns false or the
// runs or the time are used up.
func (l *lab) race(t *testing.T, md mode, ws, db string, calls []gguf.Call, check func(i int, o outcome) bool) {
	t.Helper()
	runs := raceRuns
	if !md.auto {
		runs = raceRunsDefault
	}
	x := filepath.Join(ws, "x")
	start := time.Now()
	linked := 0
	i := 0
	for ; i < runs && time.Since(start) < raceBudget; i++ {
		wasLink := false
		if i%2 == 0 {
			_ = os.Remove(x)
		} else if fi, err := os.Lstat(x); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			wasLink = true
			linked++
		}
		o := l.run(t, runOpts{workspace: ws, db: db, auto: md.auto, calls: calls})
		switch {
		case i == 0:
			t.Logf("run 1, x absent at the start: %s", o.summary())
		case wasLink && linked == 1:
			t.Logf("run %d, x a symlink at the start: %s", i+1, o.summary())
		}
		if !check(i, o) {
			i++
			break
		}
	}
	t.Logf("%d runs in %v; x was already a symlink at the start of %d of them", i, time.Since(start).Round(time.Millisecond), linked)
}

func hasKind(evs []trace.Event, kind trace.Kind) bool {
	for _, e := range evs {
		if e.Kind == kind {
			return true
		}
	}
	return false
}
