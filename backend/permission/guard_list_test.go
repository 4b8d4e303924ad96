package permission

import (
	"os"
	"path/filepath"
	"testing"
)

// The guard DecideGuarded returns judges the path the tool opens against
// the whole protected list when it opens it, the file tools' own
// protections included: a write decided while a folder was nothing (free)
// is refused if a parallel command meanwhile gave the folder a HEAD, so
// that the write would finish a repository whose settings git then runs.
func TestGuardKeepsTheFileToolsOwnProtections(t *testing.T) {
	ws := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(ws, "sub"), 0o755))
	p := Policy{Mode: ModeAuto, Workspace: ws}
	d, g := p.DecideGuarded(Call{Tool: "write_file", Paths: []string{"sub/config"}})
	if d.Verdict != Run {
		t.Fatalf("write_file sub/config before: %v %q, want run", d.Verdict, d.Reasons)
	}
	// A command of the round starts a repository there.
	must(t, os.WriteFile(filepath.Join(ws, "sub", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	if err := g.Check("sub/config"); err == nil {
		t.Error("the guard let write_file sub/config through after sub got a HEAD: it would finish a repository whose config git then reads")
	}
}
