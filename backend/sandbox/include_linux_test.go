package sandbox_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
)

// A repository whose settings include a file of the working tree
// (include.path = ../.gitconfig, a common way to share settings; or an
// includeIf): git reads that file as its own settings, so it is read-only
// for commands as .git/config is, and the user's next git status runs
// nothing a command wrote there.
func TestIncludedSettingsAreReadOnly(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, tc := range []struct{ name, key, val, file string }{
		{"include.path", "include.path", "../.gitconfig", ".gitconfig"},
		{"includeIf", "includeIf.gitdir:**.path", "../tools/git.inc", "tools/git.inc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			initRepo(t, ws)
			f := filepath.Join(ws, filepath.FromSlash(tc.file))
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, []byte("[user]\n\tname = shared\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			hostGit(t, ws, "config", "--local", tc.key, tc.val)
			marker := filepath.Join(t.TempDir(), "RAN")
			out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")},
				`printf '[core]\n\tfsmonitor = "touch `+marker+`; false"\n' >> `+tc.file+`; echo "write=$?"`)
			if !strings.Contains(out.Text, "write=1") {
				t.Errorf("a command could write %s, which the repository's settings include: %q", tc.file, out.Text)
			}
			hostGit(t, ws, "status")
			if ran(t, marker) {
				t.Errorf("the user's git status ran a program a command wrote in %s", tc.file)
			}
		})
	}
}

// includeLayout is a repository layout in which a settings file git reads
// for some repository of the workspace can include another file.
type includeLayout struct {
	name string
	// setup makes the workspace and returns it and the settings file
	// the include lines go in.
	setup func(t *testing.T) (ws, config string)
}

func includeLayouts() []includeLayout {
	return []includeLayout{
		{"the workspace's repository", func(t *testing.T) (string, string) {
			ws := t.TempDir()
			initRepo(t, ws)
			return ws, filepath.Join(ws, ".git", "config")
		}},
		{"its config.worktree", func(t *testing.T) (string, string) {
			ws := t.TempDir()
			initRepo(t, ws)
			hostGit(t, ws, "config", "--local", "extensions.worktreeConfig", "true")
			f := filepath.Join(ws, ".git", "config.worktree")
			writeFile(t, f, "")
			return ws, f
		}},
		{"a nested repository", func(t *testing.T) (string, string) {
			ws := t.TempDir()
			initRepo(t, ws)
			lib := filepath.Join(ws, "vendor", "lib")
			if err := os.MkdirAll(lib, 0o755); err != nil {
				t.Fatal(err)
			}
			initRepo(t, lib)
			return ws, filepath.Join(lib, ".git", "config")
		}},
		{"a submodule's repository", func(t *testing.T) (string, string) {
			up := t.TempDir()
			initRepo(t, up)
			ws := t.TempDir()
			initRepo(t, ws)
			hostGit(t, ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", up, "sub")
			f := filepath.Join(ws, ".git", "modules", "sub", "config")
			if _, err := os.Stat(f); err != nil {
				t.Fatalf("no submodule repository: %v", err)
			}
			return ws, f
		}},
		{"a linked worktree's config.worktree", func(t *testing.T) (string, string) {
			ws := t.TempDir()
			initRepo(t, ws)
			hostGit(t, ws, "config", "--local", "extensions.worktreeConfig", "true")
			hostGit(t, ws, "worktree", "add", "-q", "-b", "feature", filepath.Join(ws, "wt"))
			f := filepath.Join(ws, ".git", "worktrees", "wt", "config.worktree")
			writeFile(t, f, "")
			return ws, f
		}},
		{"a bare repository in a folder", func(t *testing.T) (string, string) {
			ws := t.TempDir()
			initRepo(t, ws)
			hostGit(t, ws, "clone", "-q", "--bare", ws, filepath.Join(ws, "store.git"))
			return ws, filepath.Join(ws, "store.git", "config")
		}},
		{"the main repository of a workspace that is a linked worktree", func(t *testing.T) (string, string) {
			main := t.TempDir()
			initRepo(t, main)
			ws := filepath.Join(t.TempDir(), "feature")
			hostGit(t, main, "worktree", "add", "-q", "-b", "feature", ws)
			return ws, filepath.Join(main, ".git", "config")
		}},
		{"the repository the workspace is a folder of", func(t *testing.T) (string, string) {
			root := t.TempDir()
			initRepo(t, root)
			ws := filepath.Join(root, "app")
			if err := os.Mkdir(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			return ws, filepath.Join(root, ".git", "config")
		}},
	}
}

// includeForm is a way for a settings file to name a file git reads as
// settings. lines returns what is added to the settings file config so
// that the file target (absolute) is read, and writes what else it needs.
type includeForm struct {
	name  string
	lines func(t *testing.T, config, target string) string
	// link, when set, is a symlinked folder (absolute) on the way that
	// the settings name the file through.
	link func(target string) string
	// out: the link leads out of the workspace, so the target itself
	// is not what git reads.
	out bool
}

// relFrom is target relative to the folder of the file that names it.
func relFrom(t *testing.T, file, target string) string {
	r, err := filepath.Rel(filepath.Dir(file), target)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(r)
}

func relTo(t *testing.T, base, p string) string {
	t.Helper()
	r, err := filepath.Rel(base, p)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(r)
}

func writeFile(t *testing.T, f, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func includeForms() []includeForm {
	// via writes a file of the workspace that includes target and returns
	// its path.
	via := func(t *testing.T, file, target string) string {
		writeFile(t, file, "[include]\n\tpath = "+relFrom(t, file, target)+"\n")
		return file
	}
	return []includeForm{
		{"include.path, relative", func(t *testing.T, config, target string) string {
			return "[include]\n\tpath = " + relFrom(t, config, target) + "\n"
		}, nil, false},
		{"include.path, absolute", func(t *testing.T, config, target string) string {
			return "[include]\n\tpath = " + target + "\n"
		}, nil, false},
		{"include.path from the home folder (~/)", func(t *testing.T, config, target string) string {
			home, _ := os.UserHomeDir()
			r, err := filepath.Rel(home, target)
			if err != nil || strings.HasPrefix(r, "..") {
				t.Fatalf("the test's home %s does not hold %s", home, target)
			}
			return "[include]\n\tpath = ~/" + filepath.ToSlash(r) + "\n"
		}, nil, false},
		{"[Include] PATH, quoted, with a comment", func(t *testing.T, config, target string) string {
			return "[Include]\n\tPATH = \"" + relFrom(t, config, target) + "\" # shared; settings\n"
		}, nil, false},
		{"includeIf gitdir (true)", func(t *testing.T, config, target string) string {
			return "[includeIf \"gitdir:/\"]\n\tpath = " + relFrom(t, config, target) + "\n"
		}, nil, false},
		{"includeIf onbranch (false now)", func(t *testing.T, config, target string) string {
			return "[includeIf \"onbranch:release/*\"]\n\tpath = " + relFrom(t, config, target) + "\n"
		}, nil, false},
		{"includeIf hasconfig remote url (false now)", func(t *testing.T, config, target string) string {
			return "[includeIf \"hasconfig:remote.*.url:https://example.invalid/**\"]\n\tpath = " + relFrom(t, config, target) + "\n"
		}, nil, false},
		{"an included file that includes it", func(t *testing.T, config, target string) string {
			mid := via(t, filepath.Join(filepath.Dir(target), "..", "mid", filepath.Base(target)+".inc"), target)
			return "[include]\n\tpath = " + relFrom(t, config, mid) + "\n"
		}, nil, false},
		{"ten levels deep", func(t *testing.T, config, target string) string {
			next := target
			for i := 9; i >= 1; i-- {
				next = via(t, filepath.Join(filepath.Dir(target), "..", "chain", fmt.Sprintf("%s.%d.inc", filepath.Base(target), i)), next)
			}
			return "[include]\n\tpath = " + relFrom(t, config, next) + "\n"
		}, nil, false},
		{"through a symlinked folder", func(t *testing.T, config, target string) string {
			l := filepath.Dir(target) + "-link"
			if _, err := os.Lstat(l); err != nil {
				if err := os.Symlink(filepath.Base(filepath.Dir(target)), l); err != nil {
					t.Fatal(err)
				}
			}
			return "[include]\n\tpath = " + relFrom(t, config, filepath.Join(l, filepath.Base(target))) + "\n"
		}, func(target string) string { return filepath.Dir(target) + "-link" }, false},
		{"through a symlinked folder that leads out of the workspace now", func(t *testing.T, config, target string) string {
			l := filepath.Dir(target) + "-out"
			if _, err := os.Lstat(l); err != nil {
				if err := os.Symlink(t.TempDir(), l); err != nil {
					t.Fatal(err)
				}
			}
			return "[include]\n\tpath = " + relFrom(t, config, filepath.Join(l, filepath.Base(target))) + "\n"
		}, func(target string) string { return filepath.Dir(target) + "-out" }, true},
		{"in a cycle", func(t *testing.T, config, target string) string {
			dir := filepath.Join(filepath.Dir(target), "..", "cycle")
			a, b := filepath.Join(dir, filepath.Base(target)+".a"), filepath.Join(dir, filepath.Base(target)+".b")
			writeFile(t, a, "[include]\n\tpath = "+relFrom(t, a, b)+"\n")
			writeFile(t, b, "[include]\n\tpath = "+relFrom(t, b, a)+"\n[include]\n\tpath = "+relFrom(t, b, target)+"\n")
			return "[include]\n\tpath = " + relFrom(t, config, a) + "\n"
		}, nil, false},
	}
}

// Every file git reads as settings because some settings include it, in
// every repository layout of the workspace, whether it exists yet or not:
// the file tools ask before writing it, and a confined command can neither
// write it, create it, rename a file into its place, replace it with a
// link, nor rename the folder it is in away and make another; and it
// cannot add an include line to the settings either.
func TestIncludedSettingsOfEveryFormAndLayout(t *testing.T) {
	needs(t, protections(t).Writes)
	const planted = "[core]\n\tfsmonitor = \"touch /tmp/ran; false\"\n"
	forms := includeForms()
	for _, layout := range includeLayouts() {
		for _, state := range []string{"existing", "not there yet"} {
			t.Run(layout.name+"/"+state, func(t *testing.T) {
				ws, config := layout.setup(t)
				if real, err := filepath.EvalSymlinks(ws); err == nil {
					ws = real
				}
				// The home folder holds the workspace (as it usually
				// does), so that "~/" can name a file in it.
				t.Setenv("HOME", filepath.Dir(ws))
				dir := "inc"
				if state != "existing" {
					dir = "new"
				}
				targets := map[string]string{} // form -> workspace-relative
				var lines strings.Builder
				for i, f := range forms {
					rel := fmt.Sprintf("%s/%d.inc", dir, i)
					abs := filepath.Join(ws, filepath.FromSlash(rel))
					if state == "existing" {
						writeFile(t, abs, "[user]\n\tname = shared\n")
					}
					lines.WriteString(f.lines(t, config, abs))
					if !f.out {
						targets[f.name] = rel
					}
					if f.link != nil {
						targets[f.name+" (as git opens it)"] = relTo(t, ws, f.link(abs)) + "/" + filepath.Base(rel)
					}
				}
				cf, err := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := cf.WriteString(lines.String()); err != nil {
					t.Fatal(err)
				}
				cf.Close()

				// The file tools.
				p := permission.Policy{Mode: permission.ModeAuto, Workspace: ws}
				for name, rel := range targets {
					if d := p.Decide(permission.Call{Tool: "write_file", Paths: []string{rel}}); d.Verdict == permission.Run {
						t.Errorf("%s: write_file %s runs in auto mode, though the settings include it", name, rel)
					}
				}

				// A command, against every target at once.
				var script strings.Builder
				fmt.Fprintf(&script, "printf '%%s' '%s' > evil.txt; mkdir -p %s\n", planted, dir)
				for _, rel := range targets {
					fmt.Fprintf(&script, "cat evil.txt >> %[1]s; rm -f %[1]s; cat evil.txt > %[1]s; cp evil.txt e2 && mv -f e2 %[1]s; ln -sf ../evil.txt %[1]s\n", rel)
				}
				for _, f := range forms {
					if f.link != nil {
						// Point the link on the way elsewhere.
						as := targets[f.name+" (as git opens it)"]
						l, base := path.Dir(as), path.Base(as)
						fmt.Fprintf(&script, "mkdir -p evil.d && cp evil.txt evil.d/%[2]s; rm -f %[1]s; ln -sfn evil.d %[1]s; mv -f %[1]s l.old; ln -s evil.d l.new && mv -fT l.new %[1]s\n", l, base)
					}
				}
				fmt.Fprintf(&script, "mv %[1]s %[1]s.old; mkdir -p %[1]s; for f in %[1]s.old/*; do cp evil.txt %[1]s/${f##*/}; done\n", dir)
				fmt.Fprintf(&script, "git config --file %q include.path evil.txt; printf '[include]\\n\\tpath = evil.txt\\n' >> %q\n", config, config)
				fmt.Fprintf(&script, "git config --file %q include.path evil.txt\n", filepath.Join(ws, ".git", "config"))
				out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, script.String())
				t.Logf("the command said: %s", out.Text)

				for name, rel := range targets {
					b, _ := os.ReadFile(filepath.Join(ws, filepath.FromSlash(rel)))
					if strings.Contains(string(b), "fsmonitor") {
						t.Errorf("%s: a command wrote %s, which git reads as settings", name, rel)
					}
				}
				for _, c := range []string{config, filepath.Join(ws, ".git", "config")} {
					if b, _ := os.ReadFile(c); strings.Contains(string(b), "evil.txt") {
						t.Errorf("a command added an include line to %s", c)
					}
				}
			})
		}
	}
}

// What an included file says is the repository's settings in every
// respect: a hooks folder it places in the working tree (core.hooksPath)
// is read-only for commands as one .git/config places there is.
func TestHooksFolderAnIncludedFileNamesIsReadOnly(t *testing.T) {
	needs(t, protections(t).Writes)
	ws := t.TempDir()
	initRepo(t, ws)
	writeFile(t, filepath.Join(ws, "tools", "shared.inc"), "[include]\n\tpath = hooks.inc\n")
	writeFile(t, filepath.Join(ws, "tools", "hooks.inc"), "[core]\n\thooksPath = .githooks\n")
	writeFile(t, filepath.Join(ws, ".githooks", "README"), "shared hooks\n")
	hostGit(t, ws, "config", "--local", "include.path", "../tools/shared.inc")
	marker := filepath.Join(t.TempDir(), "RAN")
	out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")},
		`printf '#!/bin/sh\ntouch `+marker+`\n' > .githooks/pre-commit; chmod +x .githooks/pre-commit; echo "write=$?"`)
	hostGit(t, ws, "commit", "-q", "--allow-empty", "-m", "x")
	if ran(t, marker) {
		t.Errorf("the user's git commit ran a hook a command wrote in the hooks folder an included file names: %q", out.Text)
	}
}
