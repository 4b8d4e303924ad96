package workspace

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// memSettings keeps the workspaces' states in a map.
type memSettings map[string][]byte

func (m memSettings) GetSetting(_ context.Context, key string, dst any) (bool, error) {
	b, ok := m[key]
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(b, dst)
}

func (m memSettings) PutSetting(_ context.Context, key string, v any) error {
	b, err := json.Marshal(v)
	m[key] = b
	return err
}

// A workspace's MCP servers are programs that would run: none starts until
// the user trusts its settings file as it is, and a changed file must be
// trusted again.
func TestWorkspaceMCPServersWaitForTrust(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".loupe"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, ".loupe", "settings.json"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"mcpServers": {"local": {"command": "./serve-mcp"}}}`)
	w := New(memSettings{}, filepath.Join(t.TempDir(), "loupe.db"), t.TempDir())
	servers, notices, err := w.MCPServers(ctx, dir)
	if err != nil || len(servers) != 0 || len(notices) != 1 || notices[0].Code != "workspace_mcp_untrusted" {
		t.Fatalf("untrusted: %v %v %v", servers, notices, err)
	}
	if err := w.Trust(ctx, dir, true); err != nil {
		t.Fatal(err)
	}
	servers, notices, err = w.MCPServers(ctx, dir)
	if err != nil || len(notices) != 0 || servers["local"].Command != "./serve-mcp" {
		t.Fatalf("trusted: %v %v %v", servers, notices, err)
	}
	write(`{"mcpServers": {"local": {"command": "./something-else"}}}`)
	if servers, _, _ := w.MCPServers(ctx, dir); len(servers) != 0 {
		t.Fatalf("a changed file's servers start: %v", servers)
	}
	write(`{"mcpServers": {"bad": {"args": ["x"]}}}`)
	if err := w.Trust(ctx, dir, true); err != nil {
		t.Fatal(err)
	}
	if _, notices, _ := w.MCPServers(ctx, dir); len(notices) != 1 || notices[0].Code != "workspace_mcp" {
		t.Fatalf("a bad server: %v", notices)
	}
}
