package permission

import (
	"testing"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

func TestCommandGuard(t *testing.T) {
	ws := t.TempDir()
	p := Policy{Mode: ModeAuto, Workspace: ws, Rules: []Rule{
		{Effect: EffectDeny, Path: "**/*.pem"},
		{Effect: EffectDeny, Path: "/secrets"},
		{Effect: EffectDeny, Tool: "read_file", Path: "notes.txt"}, // for one file tool only
		{Effect: EffectAsk, Path: "src/**"},                        // ask rules are not for the OS
	}}
	g := p.CommandGuard()
	tests := []struct {
		rel   string
		isDir bool
		want  sandbox.Access
	}{
		{".git/config", false, sandbox.ReadOnly},
		{".git/hooks", true, sandbox.ReadOnly},
		{".git/config.worktree", false, sandbox.ReadOnly},
		{".git/info/attributes", false, sandbox.ReadOnly},
		{".git/objects", true, sandbox.Writable},
		{".git/refs", true, sandbox.Writable},
		{".git/index", false, sandbox.Writable},
		{".git/modules/sub/config", false, sandbox.ReadOnly},
		{".git/modules/sub/hooks", true, sandbox.ReadOnly},
		{".git/modules/libs/deep/config", false, sandbox.ReadOnly},
		{".git/modules/libs/deep/objects", true, sandbox.Writable},
		{".git/worktrees/w/config.worktree", false, sandbox.ReadOnly},
		{"vendor/x/.git/config", false, sandbox.ReadOnly},
		{"vendor/x/.git/hooks", true, sandbox.ReadOnly},
		{"sub/.git", false, sandbox.ReadOnly}, // a submodule's pointer
		{"sub/.git", true, sandbox.Writable},  // a nested repository's directory: its parts are judged
		{".env", false, sandbox.ReadOnly},
		{"app/.env.local", false, sandbox.ReadOnly},
		{".loupe", true, sandbox.ReadOnly},
		{"certs/server.pem", false, sandbox.Hidden},
		{"secrets", true, sandbox.Hidden},
		{"notes.txt", false, sandbox.Writable},
		{"src/main.go", false, sandbox.Writable},
		{"README.md", false, sandbox.Writable},
		{"git/config", false, sandbox.Writable},
		{"my.git/config", false, sandbox.Writable},
	}
	for _, tt := range tests {
		if got := g(tt.rel, tt.isDir); got != tt.want {
			t.Errorf("%s (dir %v): %v, want %v", tt.rel, tt.isDir, got, tt.want)
		}
	}
}
