package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/tools"
)

// resolverFixture is a workspace with symlink chains, Loupe's database
// (loupe.db) and a directory outside.
//
//	d -> sub/deep, sub/deep/m -> ../loupe.db (from sub/deep: sub/loupe.db),
//	sub/deep/m2 -> ../../loupe.db (./loupe.db)
func resolverFixture(t *testing.T) (ws, db, outside string) {
	t.Helper()
	ws = t.TempDir()
	outside = t.TempDir()
	db = filepath.Join(ws, "loupe.db")
	for name, content := range map[string]string{"loupe.db": "DB", "sub/deep/f.txt": "f", ".git/config": "[core]", "a.txt": "a"} {
		p := filepath.Join(ws, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644))
	for _, l := range [][2]string{
		{"sub/deep", "d"},
		{"../loupe.db", "sub/deep/m"},
		{"../../loupe.db", "sub/deep/m2"},
		{".env.local", "dangling-env"},
		{"missing.txt", "dangling"},
		{".git", "g"},
		{"sub", "ld"},
		{filepath.Join(outside, "secret"), "out-abs"},
		{"../../..", "sub/deep/up"},
		{outside, "out-dir"},
	} {
		must(t, os.Symlink(filepath.FromSlash(l[0]), filepath.Join(ws, filepath.FromSlash(l[1]))))
	}
	return ws, db, outside
}

// The policy places paths with the tools' resolver: for every path, what
// it decides on is where the tool will open it.
func TestPolicyPlacesPathsLikeTheTools(t *testing.T) {
	ws, db, _ := resolverFixture(t)
	p := Policy{Mode: ModeAuto, Workspace: ws, ProtectedFiles: []string{db}}
	for _, q := range []string{"a.txt", "new/file.go", "d/m", "d/m2", "ld/deep/m2", "d/f.txt", "dangling", "dangling-env", "g/config", "g/hooks/pre-commit", "ld", filepath.Join(ws, "d", "m2")} {
		ps := p.place([]string{q})
		if len(ps.outside) > 0 {
			t.Errorf("%s placed outside", q)
			continue
		}
		placed := ps.rel[0]
		if len(ps.alias) > 0 {
			placed = ps.alias[0]
		}
		r, err := tools.Resolve(ws, q)
		if err != nil {
			t.Errorf("tools.Resolve(%s): %v", q, err)
			continue
		}
		if placed != r.Real {
			t.Errorf("%s: the policy judges %q, the tools open %q", q, placed, r.Real)
		}
	}
	for _, q := range []string{"out-abs", "out-dir/secret", "out-dir/new", "d/up", "d/up/x"} {
		if ps := p.place([]string{q}); len(ps.outside) != 1 {
			t.Errorf("%s: %+v; want outside", q, ps)
		}
		if _, err := tools.Resolve(ws, q); err == nil {
			t.Errorf("tools.Resolve(%s) did not refuse it", q)
		}
	}
}

// d/m2 leads to ./loupe.db through two links: protected, asked once. d/m
// leads to sub/loupe.db, which is not Loupe's file: auto mode runs it,
// and the tool then writes sub/loupe.db, not the database.
func TestSymlinkChainToTheDatabase(t *testing.T) {
	ws, db, outside := resolverFixture(t)
	p := Policy{Mode: ModeAuto, Workspace: ws, ProtectedFiles: []string{db}}
	for _, q := range []string{"d/m2", "ld/deep/m2", "dangling-env", "g/config"} {
		d := p.Decide(Call{Tool: "write_file", Paths: []string{q}})
		if d.Verdict != Ask || !d.OnceOnly || !strings.Contains(strings.Join(d.Reasons, " "), "protected") {
			t.Errorf("write %s: %v %q; want ask once, protected", q, d.Verdict, d.Reasons)
		}
	}
	for _, q := range []string{"out-abs", "out-dir/new", "d/up/x"} {
		if d := p.Decide(Call{Tool: "write_file", Paths: []string{q}}); d.Verdict != Refuse {
			t.Errorf("write %s: %v; want refused (outside)", q, d.Verdict)
		}
	}
	c := Call{Tool: "write_file", Paths: []string{"d/m"}}
	d, g := p.DecideGuarded(c)
	if d.Verdict != Run {
		t.Fatalf("write d/m: %v %q", d.Verdict, d.Reasons)
	}
	w, err := tools.OpenWorkspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tool, _ := tools.Builtins(w, nil).Get("write_file")
	if _, err := tool.Run(tools.WithGuard(context.Background(), g), json.RawMessage(`{"path":"d/m","content":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(db); string(b) != "DB" {
		t.Errorf("the database changed: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "sub", "loupe.db")); string(b) != "x" {
		t.Errorf("sub/loupe.db = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "s" {
		t.Errorf("outside changed: %q", b)
	}
}

func TestCallGuard(t *testing.T) {
	ws, db, _ := resolverFixture(t)
	p := Policy{Mode: ModeAuto, Workspace: ws, ProtectedFiles: []string{db},
		Rules: []Rule{{Effect: EffectDeny, Path: "*.pem"}}}

	// Approved as the plain file it is: only that file passes.
	_, g := p.DecideGuarded(Call{Tool: "write_file", Paths: []string{"a.txt"}})
	if err := g.Check("a.txt"); err != nil {
		t.Errorf("the approved file: %v", err)
	}
	for _, other := range []string{".git/config", "loupe.db", "b.txt"} {
		err := g.Check(other)
		if err == nil || !strings.Contains(err.Error(), "permission was given for a.txt") || !strings.Contains(err.Error(), "Nothing was written") {
			t.Errorf("Check(%s) = %v; want a refusal naming the approved file", other, err)
		}
	}

	// A link: both its name and where it leads were judged.
	_, g = p.DecideGuarded(Call{Tool: "read_file", ReadOnly: true, Paths: []string{"d/f.txt"}})
	for _, ok := range []string{"d/f.txt", "sub/deep/f.txt"} {
		if err := g.Check(ok); err != nil {
			t.Errorf("read d/f.txt, Check(%s): %v", ok, err)
		}
	}
	if err := g.Check("a.txt"); err == nil || !strings.Contains(err.Error(), "Nothing was read") {
		t.Errorf("read d/f.txt, Check(a.txt): %v", err)
	}

	// A protected file passes only after a person said yes to it.
	d, g := p.DecideGuarded(Call{Tool: "write_file", Paths: []string{"d/m2"}})
	if d.Verdict != Ask {
		t.Fatalf("write d/m2: %v", d.Verdict)
	}
	if err := g.Check("loupe.db"); err == nil || !strings.Contains(err.Error(), "protected") {
		t.Errorf("protected without a person's yes: %v", err)
	}
	if err := g.ApprovedByPerson().Check("loupe.db"); err != nil {
		t.Errorf("protected after a person's yes: %v", err)
	}
	if err := g.ApprovedByPerson().Check(".git/config"); err == nil {
		t.Error("a person's yes for loupe.db let .git/config through")
	}

	// A file a deny rule covers never passes, whoever approved.
	d, g = p.DecideGuarded(Call{Tool: "write_file", Paths: []string{"key.pem"}})
	if d.Verdict != Refuse {
		t.Fatalf("write key.pem: %v", d.Verdict)
	}
	if err := g.ApprovedByPerson().Check("key.pem"); err == nil || !strings.Contains(err.Error(), "*.pem") {
		t.Errorf("denied file: %v", err)
	}
}
