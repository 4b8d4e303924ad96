package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/store"
)

// loupe import takes another agent's session, told from the file or
// named with --from, as a read-only session; loupe fork goes on from it.
func TestImportAnotherAgentsSession(t *testing.T) {
	e := setup(t)
	dir := t.TempDir()
	claude, err := os.ReadFile(filepath.Join("..", "interop", "testdata", "claude-code.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "7f3e2a10.jsonl")
	os.WriteFile(file, bytes.ReplaceAll(claude, []byte("/home/ada/greet"), []byte(e.ws)), 0o644)

	code, out, stderr := e.run("import", file, "--db", e.db)
	if code != 0 || stderr != "" || !strings.Contains(out, `("Fix the failing greeting test") from Claude Code: 22 events, read-only`) {
		t.Fatalf("import: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	st, err := store.Open(e.db)
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.ListSessions(t.Context())
	st.Close()
	if err != nil || len(list) != 1 || list[0].Source != "claude-code" || list[0].Workspace != e.ws {
		t.Fatalf("sessions %+v, %v", list, err)
	}
	id := list[0].ID
	if code, _, stderr := e.run("fork", id, "--at", "22", "--model", "scripted", "--db", e.db); code != 0 {
		t.Fatalf("fork: exit %d, %s", code, stderr)
	}

	// ATIF names no folder: --workspace gives it.
	atif := filepath.Join("..", "interop", "testdata", "atif.json")
	if code, out, stderr := e.run("import", atif, "--from", "atif", "--workspace", e.ws, "--db", e.db); code != 0 || !strings.Contains(out, "from an ATIF trajectory") {
		t.Fatalf("atif: exit %d, %q, %q", code, out, stderr)
	}
	// The wrong format named: refused with the line, nothing written.
	codex := filepath.Join("..", "interop", "testdata", "codex.jsonl")
	if code, _, stderr := e.run("import", codex, "--from", "atif", "--db", e.db); code != cli.ExitFailed || !strings.Contains(stderr, "nothing was written") {
		t.Fatalf("codex as atif: exit %d, %q", code, stderr)
	}
	if code, _, stderr := e.run("import", codex, "--from", "cursor", "--db", e.db); code != cli.ExitUsage || !strings.Contains(stderr, "claude-code, codex, atif, loupe") {
		t.Fatalf("unknown --from: exit %d, %q", code, stderr)
	}
	if code, out, _ := e.run("import", codex, "--db", e.db); code != 0 || !strings.Contains(out, "from Codex CLI") {
		t.Fatalf("codex: exit %d, %q", code, out)
	}
}
