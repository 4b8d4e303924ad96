package tools

import (
	"reflect"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// Builtins reuses schemas prepared once per process; each registry must
// still be what NewRegistry makes of the same tools, bound to its own
// workspace and runner.
func TestBuiltinsMatchNewRegistry(t *testing.T) {
	ws, _ := newWorkspace(t, nil)
	run := sandbox.Local{}
	got := Builtins(ws, run)
	want, err := NewRegistry(builtinTools(ws, run)...)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.entries) != len(want.entries) || len(got.byName) != len(want.byName) {
		t.Fatalf("Builtins has %d entries (%d by name), NewRegistry %d (%d)",
			len(got.entries), len(got.byName), len(want.entries), len(want.byName))
	}
	for i, g := range got.entries {
		w := want.entries[i]
		name := w.spec.Name
		if g.tool != w.tool {
			t.Errorf("%s: tool %#v, want %#v", name, g.tool, w.tool)
		}
		if !reflect.DeepEqual(g.spec, w.spec) || !reflect.DeepEqual(g.order, w.order) ||
			!reflect.DeepEqual(g.required, w.required) || g.signature != w.signature {
			t.Errorf("%s: prepared entry differs from NewRegistry's", name)
		}
		if got.byName[name] != g {
			t.Errorf("%s: byName does not point at the listed entry", name)
		}
	}
}

func TestBuiltinsBindTheirOwnWorkspace(t *testing.T) {
	wsA, _ := newWorkspace(t, map[string]string{"f.txt": "from A\n"})
	wsB, _ := newWorkspace(t, map[string]string{"f.txt": "from B\n"})
	regA, regB := Builtins(wsA, nil), Builtins(wsB, nil)
	for _, tt := range []struct {
		reg  *Registry
		want string
	}{{regA, "from A"}, {regB, "from B"}} {
		a := args(t, map[string]any{"path": "f.txt"})
		tool, cerr := tt.reg.Check("read_file", a)
		if cerr != nil {
			t.Fatal(cerr)
		}
		res, err := tool.Run(t.Context(), a)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Content, tt.want) {
			t.Errorf("read_file = %q, want it to contain %q", res.Content, tt.want)
		}
	}
	// The schema work is shared, not redone per registry.
	if regA.entries[0].resolved != regB.entries[0].resolved {
		t.Error("Builtins resolved read_file's schema again")
	}
}

// BenchmarkBuiltins is what every run pays to get its tools.
func BenchmarkBuiltins(b *testing.B) {
	ws, err := OpenWorkspace(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	b.ReportAllocs()
	for b.Loop() {
		Builtins(ws, nil)
	}
}
