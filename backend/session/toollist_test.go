package session

import (
	"testing"

	"github.com/loupe-dev/loupe/backend/tools"
)

// The window's list is the registry's: every built-in tool, in its order,
// each with the path argument the policy judges.
func TestBuiltinToolsAreTheRegistrys(t *testing.T) {
	got := BuiltinTools()
	names := tools.BuiltinNames()
	if len(got) != len(names) {
		t.Fatalf("%d tools, the registry has %d", len(got), len(names))
	}
	for i, ti := range got {
		if ti.Name != names[i] || ti.Summary == "" {
			t.Errorf("tool %d: %+v, want %s with a summary", i, ti, names[i])
		}
		wantPath := map[string]string{"read_file": "path", "write_file": "path", "edit_file": "path", "list_dir": "path", "grep": "path", "glob": "pattern", "run_command": ""}[ti.Name]
		if ti.PathArg != wantPath {
			t.Errorf("%s path argument %q, want %q", ti.Name, ti.PathArg, wantPath)
		}
	}
}
