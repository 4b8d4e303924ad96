package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
)

// The git layout the file tools' decisions need is kept between decisions
// (sandbox.FactsOf), and kept facts must never let a write through that a
// fresh walk would ask about. Each case decides once on kept facts (the
// path is free then), changes what makes the path git's (through a
// command, or as a program of the user's would, outside Loupe, at once
// and within the same clock tick), and decides again: it must ask.
func TestKeptGitFactsNeverLetAWriteThrough(t *testing.T) {
	type change struct {
		name   string
		setup  func(t *testing.T, ws, home string)
		path   string // the path judged
		change func(t *testing.T, ws, home string)
	}
	write := func(t *testing.T, p, s string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []change{
		{"an include line added to the repository's settings", nil, "team.inc", func(t *testing.T, ws, home string) {
			hostGit(t, ws, "config", "include.path", "../team.inc")
		}},
		{"a hooks folder set in the user's settings", nil, ".githooks/pre-commit", func(t *testing.T, ws, home string) {
			write(t, filepath.Join(home, ".gitconfig"), "[core]\n\thooksPath = .githooks\n")
		}},
		{"a program named in a file the user's settings include", func(t *testing.T, ws, home string) {
			write(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = ~/more.gitconfig\n")
		}, "tools/mon.sh", func(t *testing.T, ws, home string) {
			write(t, filepath.Join(home, "more.gitconfig"), "[core]\n\tfsmonitor = tools/mon.sh\n")
		}},
		{"a commondir made deep in the tree", func(t *testing.T, ws, home string) {
			os.MkdirAll(filepath.Join(ws, "a", "b", "c"), 0o755)
		}, "common/config", func(t *testing.T, ws, home string) {
			write(t, filepath.Join(ws, "a", "b", "c", "wt", "HEAD"), "ref: refs/heads/main\n")
			write(t, filepath.Join(ws, "a", "b", "c", "wt", "commondir"), "../../../../common\n")
		}},
		{"a commondir rewritten in place to the same length", func(t *testing.T, ws, home string) {
			write(t, filepath.Join(ws, "wt", "HEAD"), "ref: refs/heads/main\n")
			write(t, filepath.Join(ws, "wt", "commondir"), "../commoA\n")
		}, "common/config", func(t *testing.T, ws, home string) {
			f, err := os.OpenFile(filepath.Join(ws, "wt", "commondir"), os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteAt([]byte("../common\n"), 0)
			f.Close()
		}},
		{"a link on the way to an included file pointed elsewhere", func(t *testing.T, ws, home string) {
			os.MkdirAll(filepath.Join(ws, "one"), 0o755)
			os.MkdirAll(filepath.Join(ws, "two"), 0o755)
			os.Symlink("one", filepath.Join(ws, "shared"))
			hostGit(t, ws, "config", "include.path", "../shared/team.inc")
		}, "two/team.inc", func(t *testing.T, ws, home string) {
			os.Remove(filepath.Join(ws, "shared"))
			os.Symlink("two", filepath.Join(ws, "shared"))
		}},
		{"a repository made above the workspace, with a hooks folder in it", nil, ".hooks/pre-commit", func(t *testing.T, ws, home string) {
			hostGit(t, home, "init", "-q")
			hostGit(t, home, "config", "core.hooksPath", "proj/.hooks")
		}},
		{"a program set in the settings of the repository above the workspace", func(t *testing.T, ws, home string) {
			hostGit(t, home, "init", "-q")
		}, "tools/mon.sh", func(t *testing.T, ws, home string) {
			hostGit(t, home, "config", "core.fsmonitor", "sh proj/tools/mon.sh")
		}},
		{"a command makes a repository with a hooks folder setting", nil, "sub/.githooks/pre-commit", func(t *testing.T, ws, home string) {
			if _, err := (sandbox.Local{}).Run(context.Background(), sandbox.Command{Dir: ws, Timeout: 30 * time.Second,
				Script: "git init -q sub && git -C sub config core.hooksPath .githooks"}); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := isolateGit(t)
			ws := filepath.Join(home, "proj")
			os.MkdirAll(ws, 0o755)
			initRepo(t, ws)
			if tc.setup != nil {
				tc.setup(t, ws, home)
			}
			// Past the window in which a walk is too close to a change
			// to be kept.
			time.Sleep(150 * time.Millisecond)
			pol := permission.Policy{Mode: permission.ModeAuto, Workspace: ws,
				Rules: []permission.Rule{{Effect: permission.EffectAllow, Path: "**"}}}
			decide := func() permission.Decision {
				return pol.Decide(permission.Call{Tool: "write_file", Paths: []string{tc.path}})
			}
			if d := decide(); d.Verdict != permission.Run {
				t.Fatalf("before the change, write_file %s: %v %q; the case is not real", tc.path, d.Verdict, d.Reasons)
			}
			// Facts are kept only while nothing could have changed them:
			// on a busy machine a decision may come too close to a change
			// (or to the end of another test's command) to keep them, so
			// decide again until they are, for a while.
			d := decide()
			for i := 0; !sandbox.FactsKept(ws) && i < 50; i++ {
				time.Sleep(100 * time.Millisecond)
				d = decide()
			}
			if d.Verdict != permission.Run || !sandbox.FactsKept(ws) {
				t.Fatalf("the facts are not kept between decisions (kept=%v); the case does not test them", sandbox.FactsKept(ws))
			}
			tc.change(t, ws, home)
			if d := decide(); d.Verdict == permission.Run {
				t.Errorf("after %s, write_file %s runs without asking: the kept facts were stale", tc.name, tc.path)
			}
		})
	}
}
