package permission

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/hands"
)

// A folder that a commondir file or a .git file names is a git directory
// to git, whatever it holds: git takes a linked worktree's config, hooks
// and info from the folder its commondir names, which needs no HEAD, and
// uses the folder a .git file names. Laid out as a command would leave
// it (pointers first, the settings not written yet), the file tools ask
// before writing git's own files there, in every mode and under an allow
// rule, and so does the protected-path check Loupe's own process uses
// (undo, restore); the folder's other files, and the same names in a
// folder nothing names, stay free.
func TestFoldersAPointerNamesAreGitDirs(t *testing.T) {
	ws := t.TempDir()
	for _, d := range []string{"common/objects", "common/refs/heads", "wt", "proj", "half", "other", "deep/a/b"} {
		must(t, os.MkdirAll(filepath.Join(ws, d), 0o755))
	}
	write := func(rel, s string) { must(t, os.WriteFile(filepath.Join(ws, rel), []byte(s), 0o644)) }
	write("wt/HEAD", "ref: refs/heads/main\n")
	write("wt/commondir", "../common\n")
	write("proj/.git", "gitdir: ../wt\n")
	// A .git file naming a folder that is nothing yet, and a commondir
	// of a folder with no HEAD yet naming a folder deep down.
	write("other/.git", "gitdir: ../half\n")
	must(t, os.MkdirAll(filepath.Join(ws, "pending"), 0o755))
	write("pending/commondir", "../deep/a/b\n")

	protected := []string{
		"common/config", "common/hooks/post-checkout", "common/info/attributes", "common/commondir", "common/config.worktree",
		"half/config", "half/hooks/pre-commit", "half/HEAD",
		"deep/a/b/config", "deep/a/b/hooks/pre-commit",
		"wt/config.worktree", "wt/commondir",
	}
	free := []string{"common/README", "proj/config", "other/config", "deep/a/config", "pending/notes.txt", "src/hooks/useThing.ts"}
	for _, mode := range []Mode{ModeAsk, ModeAuto} {
		p := Policy{Mode: mode, Workspace: ws, Rules: []Rule{{Effect: EffectAllow, Path: "**"}},
			Tools: map[string]ToolSetting{"write_file": ToolAlways}}
		for _, q := range protected {
			if d := p.Decide(Call{Tool: "write_file", Paths: []string{q}}); d.Verdict != Ask || !d.OnceOnly {
				t.Errorf("%s: write_file %s: %v %q, want ask: git uses its folder as a git directory", mode, q, d.Verdict, d.Reasons)
			}
		}
		for _, q := range free {
			if d := p.Decide(Call{Tool: "write_file", Paths: []string{q}}); d.Verdict != Run {
				t.Errorf("%s: write_file %s: %v %q, want run", mode, q, d.Verdict, d.Reasons)
			}
		}
	}
	check := Policy{Workspace: ws}.ProtectedCheck()
	for _, q := range protected {
		if _, ok := check(nil, q); !ok {
			t.Errorf("Loupe's own hands may change %s (undo, restore): it is git's own file", q)
		}
	}
	for _, q := range free {
		if pat, ok := check(nil, q); ok {
			t.Errorf("%s counts as protected (%s)", q, pat)
		}
	}
}

// BenchmarkDecideNamedGitDirs is what a file tool's decision costs when
// its path could be git's own file of a folder a pointer names
// (src/hooks/…, …/config), or any path at all now that every write is
// judged against the files the settings include and the programs and
// hooks folders they name: all of those come from a walk of the whole
// workspace, here one of 20 000 files in 2 000 folders, with one linked
// worktree laid out by hand. sandbox.FactsOf keeps what the walk found
// while nothing it read changed, so a decision stats what it stamped
// instead; "after a write" is the same decision right after Loupe changed
// a file (hands.Changed), which walks again.
func BenchmarkDecideNamedGitDirs(b *testing.B) {
	ws := b.TempDir()
	for i := 0; i < 2000; i++ {
		d := filepath.Join(ws, "src", "pkg"+strconv.Itoa(i/100), "m"+strconv.Itoa(i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := 0; j < 10; j++ {
			if err := os.WriteFile(filepath.Join(d, "f"+strconv.Itoa(j)+".ts"), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	os.MkdirAll(filepath.Join(ws, "wt"), 0o755)
	os.WriteFile(filepath.Join(ws, "wt", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "wt", "commondir"), []byte("../common\n"), 0o644)
	// Past the window in which a change could share a clock tick with
	// the walk (a walk that close is never kept).
	time.Sleep(200 * time.Millisecond)
	p := Policy{Mode: ModeAuto, Workspace: ws}
	for _, q := range []string{"src/main.go", "src/hooks/useThing.ts"} {
		b.Run(q, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p.Decide(Call{Tool: "write_file", Paths: []string{q}})
			}
		})
	}
	b.Run("src/hooks/useThing.ts after a write", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			hands.Changed()
			p.Decide(Call{Tool: "write_file", Paths: []string{"src/hooks/useThing.ts"}})
		}
	})
}
