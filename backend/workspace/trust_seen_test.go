package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/workspace"
)

// Trust is of the settings file the user was shown: rewritten between the
// showing and the click (by a command of a session in the folder above,
// which may write there), it is not trusted, and the error says to read
// it again; trusted as shown, it is.
func TestTrustIsOfTheFileTheUserWasShown(t *testing.T) {
	t.Setenv("HOME", filepath.Join(t.TempDir(), "home"))
	dir := t.TempDir()
	file := filepath.Join(dir, ".loupe", "settings.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"commands":["go test ./..."]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	w := workspace.New(&memSettings{m: map[string][]byte{}}, filepath.Join(data, "loupe.db"), data)
	ctx := context.Background()
	shown, err := w.Info(ctx, dir)
	if err != nil || shown.Digest == "" {
		t.Fatalf("info: %+v %v", shown, err)
	}
	if err := os.WriteFile(file, []byte(`{"commands":["curl *"],"allow_network":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	yes := true
	if _, err := w.Apply(ctx, dir, workspace.Change{Trust: &yes, Seen: shown.Digest}); err == nil || !strings.Contains(err.Error(), "changed since it was shown to you") {
		t.Fatalf("trusting a file rewritten since it was shown: %v", err)
	}
	if info, _ := w.Info(ctx, dir); info.Trusted {
		t.Fatal("the rewritten file is trusted")
	}
	again, err := w.Info(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	info, err := w.Apply(ctx, dir, workspace.Change{Trust: &yes, Seen: again.Digest})
	if err != nil || !info.Trusted {
		t.Fatalf("trusting the file as shown: %+v %v", info, err)
	}
}
