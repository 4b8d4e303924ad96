package session

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/workspace"
)

// An answer for the session holds for that session only, an answer for
// once is not kept, one for the workspace is saved with it, and a deleted
// session's answers go with it.
func TestGrantsKeepEachScopeWhereItBelongs(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "loupe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws := workspace.New(st, st.Path(), t.TempDir())
	g := newGrants(ws)
	dir := t.TempDir()
	session := permission.Grant{Scope: permission.ScopeSession, Rule: permission.Rule{Effect: permission.EffectAllow, Tool: "write_file"}}
	for _, gr := range []permission.Grant{session, {Scope: permission.ScopeOnce, Rule: permission.Rule{Effect: permission.EffectAllow, Tool: "write_file"}}} {
		if err := g.keep("a", dir, gr); err != nil {
			t.Fatal(err)
		}
	}
	if got := g.of("a"); len(got) != 1 || got[0] != session {
		t.Fatalf("session a keeps %+v, want its one answer for the session", got)
	}
	if got := g.of("b"); len(got) != 0 {
		t.Fatalf("session b got a's answers: %+v", got)
	}
	always := permission.Grant{Scope: permission.ScopeWorkspace, Rule: permission.Rule{Effect: permission.EffectAllow, Command: "go test ./..."}}
	if err := g.keep("a", dir, always); err != nil {
		t.Fatal(err)
	}
	if got := g.of("a"); len(got) != 1 {
		t.Fatalf("an answer saved with the workspace is kept for the session too: %+v", got)
	}
	if info, err := ws.Info(t.Context(), dir); err != nil || len(info.Grants) != 1 || info.Grants[0].Rule != always.Rule {
		t.Fatalf("the workspace keeps %+v (%v), want the answer given for it", info.Grants, err)
	}
	g.forget("a")
	if got := g.of("a"); len(got) != 0 {
		t.Fatalf("a deleted session's answers stay: %+v", got)
	}
	// The workspace's answer is the workspace's: it stays.
	st.Close()
	if err := g.keep("c", dir, always); err == nil || !strings.Contains(err.Error(), "it holds for this session only") {
		t.Fatalf("an answer the workspace cannot take: %v", err)
	}
	if got := g.of("c"); len(got) != 1 || got[0] != always {
		t.Fatalf("an answer the workspace could not take is not kept for the session: %+v", got)
	}
}
