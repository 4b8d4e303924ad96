package settings

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/store"
)

func TestMCPServersSavedWithTheirSecretsKept(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "loupe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	names, err := AddMCP(ctx, st, []byte(`{"mcpServers": {"gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "ghp_secret"}}}}`))
	if err != nil || strings.Join(names, ",") != "gh" {
		t.Fatalf("add: %v %v", names, err)
	}
	got, err := LoadMCP(ctx, st)
	if err != nil || got["gh"].Env["GITHUB_TOKEN"] != "ghp_secret" {
		t.Fatalf("load: %+v %v", got, err)
	}
	// The window saves back what it was shown: the secret stays.
	shown := got.Redacted()
	s := shown["gh"]
	s.Args = []string{"--verbose"}
	shown["gh"] = s
	if err := SaveMCP(ctx, st, shown); err != nil {
		t.Fatal(err)
	}
	got, _ = LoadMCP(ctx, st)
	if got["gh"].Env["GITHUB_TOKEN"] != "ghp_secret" || got["gh"].Args[0] != "--verbose" {
		t.Fatalf("after a save of the redacted form: %+v", got["gh"])
	}
	if _, err := AddMCP(ctx, st, []byte(`{"mcpServers": {"bad": {"args": ["x"]}}}`)); err == nil || !strings.Contains(err.Error(), `server "bad"`) {
		t.Fatalf("a bad server was added: %v", err)
	}
	if err := RemoveMCP(ctx, st, "gh"); err != nil {
		t.Fatal(err)
	}
	if got, _ := LoadMCP(ctx, st); len(got) != 0 {
		t.Fatalf("after remove: %+v", got)
	}
}
