package session_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
)

// A Claude Code session imported, as the window lives it: the import, the
// session opened, read-only, with the source on its row.
func TestRecordingsImportedSession(t *testing.T) {
	w := newWindow(t, "imported_claude_code", "A Claude Code session file imported: read-only, its source on its row, a fork offered to go on with a local model.", permission.ModeAsk, nil)
	in := bytes.ReplaceAll(agentFixture(t, "claude-code.jsonl"), []byte("/home/ada/greet"), []byte(w.ws))
	res, err := w.m.Import(context.Background(), bytes.NewReader(in), session.ImportKeepID)
	if err != nil || res.Clash != nil || res.Session.Source != "claude-code" {
		t.Fatalf("import: %+v, %v", res, err)
	}
	w.started(&res.Session)
	w.openSession()
	w.saveAs("imported_claude_code")
}
