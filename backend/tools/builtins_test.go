package tools

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// Builtins reuses schemas prepared once per process; each registry must
// still behave as what NewRegistry makes of the same tools, bound to its
// own workspace and runner: the same names, specs and tools, and the same
// verdict on every call.
func TestBuiltinsMatchNewRegistry(t *testing.T) {
	ws, _ := newWorkspace(t, nil)
	run := sandbox.Local{}
	got := Builtins(ws, run)
	want, err := NewRegistry(builtinTools(ws, run)...)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Names(), want.Names()) || !reflect.DeepEqual(got.Specs(), want.Specs()) || !reflect.DeepEqual(got.Tools(), want.Tools()) {
		t.Fatalf("Builtins lists %v, NewRegistry %v (or their specs or tools differ)", got.Names(), want.Names())
	}
	calls := []string{`{}`, `{"path":"a.txt"}`, `{"path":7}`, `{"path":"a","content":"x"}`, `{"path":"a","old_string":"x","new_string":"y","replace_all":true}`,
		`{"pattern":"*.go"}`, `{"pattern":"x","include":"*.go"}`, `{"command":"true","timeout_ms":10}`, `{"command":"true","extra":1}`, `not json`}
	for _, name := range append(want.Names(), "no_such_tool") {
		for _, args := range calls {
			gt, ge := got.Check(name, json.RawMessage(args))
			wt, we := want.Check(name, json.RawMessage(args))
			if gt != wt || !reflect.DeepEqual(ge, we) {
				t.Errorf("Check(%s, %s): Builtins %v %v, NewRegistry %v %v", name, args, gt, ge, wt, we)
			}
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
