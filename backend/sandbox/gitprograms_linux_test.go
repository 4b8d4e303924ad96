package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
)

// A program of the working tree that a setting has git run, walked over
// every setting git runs on a plain status/commit, every settings file git
// reads for the repository, and every form of the value: a command cannot
// rewrite it, so the user's next git runs nothing the command planted.
// Each case is checked first without the sandbox (the control): there the
// rewrite runs on the user's git, so the case is real.
func TestProgramsOfTheWorkingTreeInEverySettingsFile(t *testing.T) {
	needs(t, protections(t).Writes)
	type setting struct {
		key  string
		file string   // what the command rewrites
		git  []string // the user's git that runs it
		// value gives the setting's value for a form, "" when the form
		// does not apply.
		value func(form, ws string) string
		// notIn is a settings file git does not read this setting from
		// (aliases are looked up before config.worktree is read).
		notIn string
	}
	command := func(prefix string) func(form, ws string) string {
		return func(form, ws string) string {
			switch form {
			case "path":
				return prefix + "./tools/p.sh"
			case "interpreter and path":
				return prefix + "sh tools/p.sh"
			case "tilde path":
				return prefix + "sh ~/proj/tools/p.sh"
			case "absolute path":
				return prefix + "sh " + ws + "/tools/p.sh"
			case "quoted, in a shell line":
				return prefix + `true; sh "tools/p.sh" --x=1`
			}
			return ""
		}
	}
	settings := []setting{
		{"core.fsmonitor", "tools/p.sh", []string{"status", "--short"}, command(""), ""},
		{"alias.st", "tools/p.sh", []string{"st"}, command("!"), "config.worktree"},
		{"core.editor", "tools/p.sh", []string{"commit", "-q", "--allow-empty"}, command(""), ""},
		{"core.hooksPath", ".githooks/pre-commit", []string{"commit", "-q", "--allow-empty", "-m", "x"},
			func(form, ws string) string {
				switch form {
				case "relative":
					return ".githooks"
				case "tilde path":
					return "~/proj/.githooks"
				case "absolute path":
					return ws + "/.githooks"
				}
				return ""
			}, ""},
	}
	// where sets key = value in one of the files git reads, run in ws.
	wheres := []struct {
		name string
		set  func(t *testing.T, ws, home, key, value string)
	}{
		{"the repository's config", func(t *testing.T, ws, home, key, value string) {
			hostGit(t, ws, "config", key, value)
		}},
		{"config.worktree", func(t *testing.T, ws, home, key, value string) {
			hostGit(t, ws, "config", "extensions.worktreeConfig", "true")
			hostGit(t, ws, "config", "--worktree", key, value)
		}},
		{"the user's ~/.gitconfig", func(t *testing.T, ws, home, key, value string) {
			hostGit(t, ws, "config", "--file", filepath.Join(home, ".gitconfig"), key, value)
		}},
		{"the user's ~/.config/git/config", func(t *testing.T, ws, home, key, value string) {
			os.MkdirAll(filepath.Join(home, ".config", "git"), 0o755)
			hostGit(t, ws, "config", "--file", filepath.Join(home, ".config", "git", "config"), key, value)
		}},
		{"a file the user's settings include", func(t *testing.T, ws, home, key, value string) {
			hostGit(t, ws, "config", "--file", filepath.Join(home, "shared.gitconfig"), key, value)
			hostGit(t, ws, "config", "--file", filepath.Join(home, ".gitconfig"), "include.path", "~/shared.gitconfig")
		}},
	}
	forms := []string{"path", "interpreter and path", "tilde path", "absolute path", "quoted, in a shell line", "relative"}
	for _, s := range settings {
		for _, w := range wheres {
			for _, form := range forms {
				if s.value(form, "/x") == "" || s.notIn == w.name {
					continue
				}
				for _, control := range []bool{true, false} {
					name := s.key + "/" + w.name + "/" + form
					if control {
						name += "/control"
					}
					t.Run(name, func(t *testing.T) {
						home := t.TempDir()
						t.Setenv("HOME", home)
						t.Setenv("XDG_CONFIG_HOME", "")
						t.Setenv("GIT_CONFIG_GLOBAL", "")
						os.Unsetenv("GIT_CONFIG_GLOBAL")
						t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
						for _, env := range []string{"GIT_EDITOR", "VISUAL", "EDITOR"} {
							t.Setenv(env, "")
							os.Unsetenv(env)
						}
						ws := filepath.Join(home, "proj")
						os.MkdirAll(filepath.Join(ws, "tools"), 0o755)
						os.MkdirAll(filepath.Join(ws, ".githooks"), 0o755)
						initRepo(t, ws)
						os.WriteFile(filepath.Join(ws, s.file), []byte("#!/bin/sh\nexit 0\n"), 0o755)
						w.set(t, ws, home, s.key, s.value(form, ws))
						marker := filepath.Join(t.TempDir(), "RAN")
						write := `printf '#!/bin/sh\ntouch ` + marker + `\nexit 1\n' > ` + s.file + `; echo "write=$?"`
						if control {
							if out := hostShell(t, ws, write); !strings.Contains(out, "write=0") {
								t.Fatalf("control write: %s", out)
							}
						} else {
							out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, write)
							if strings.Contains(out.Text, "write=0") {
								t.Errorf("a command rewrote %s, which %s in %s has git run: %q", s.file, s.key, w.name, out.Text)
							}
						}
						t.Logf("user's git: %s", hostGit(t, ws, s.git...))
						switch {
						case control && !ran(t, marker):
							t.Fatalf("control: git %s did not run %s; the case is not real", s.git[0], s.file)
						case !control && ran(t, marker):
							t.Errorf("the user's git %s ran %s, which a command rewrote (%s = %q in %s)", s.git[0], s.file, s.key, s.value(form, ws), w.name)
						}
					})
				}
			}
		}
	}
}

// The user's ~/.gitconfig is a symlink (a dotfiles manager: stow,
// chezmoi, home-manager; NixOS does the same for /etc/gitconfig) and
// includes a file of the workspace that is not there yet. Git follows the
// link and reads the include, so Loupe does: the file tools ask before
// writing it and a command cannot create it. With a regular ~/.gitconfig
// it holds as well; the control shows git runs what the file names.
func TestSymlinkedUserSettingsIncludes(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, tc := range []struct {
		name             string
		control, symlink bool
	}{
		{"control", true, true},
		{"symlinked ~/.gitconfig", false, true},
		{"symlink to a symlink", false, true},
		{"regular ~/.gitconfig", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", "")
			t.Setenv("GIT_CONFIG_GLOBAL", "")
			os.Unsetenv("GIT_CONFIG_GLOBAL")
			ws := t.TempDir()
			initRepo(t, ws)
			dot := filepath.Join(home, "dotfiles", "git")
			os.MkdirAll(dot, 0o755)
			// The include is relative: git takes it from the folder the
			// link is in (~), not the one the link leads to.
			rel, _ := filepath.Rel(home, filepath.Join(ws, "team.gitconfig"))
			os.WriteFile(filepath.Join(dot, "gitconfig"),
				[]byte("[user]\n\tname = me\n[includeIf \"gitdir:"+ws+"/\"]\n\tpath = "+rel+"\n"), 0o644)
			switch {
			case tc.name == "symlink to a symlink":
				os.Symlink("git/gitconfig", filepath.Join(home, "dotfiles", "current"))
				if err := os.Symlink("dotfiles/current", filepath.Join(home, ".gitconfig")); err != nil {
					t.Fatal(err)
				}
			case tc.symlink:
				if err := os.Symlink("dotfiles/git/gitconfig", filepath.Join(home, ".gitconfig")); err != nil {
					t.Fatal(err)
				}
			default:
				if err := os.Rename(filepath.Join(dot, "gitconfig"), filepath.Join(home, ".gitconfig")); err != nil {
					t.Fatal(err)
				}
			}
			plantedSettingsHold(t, ws, "team.gitconfig", ">", tc.control, "the user's settings include it")
		})
	}
}

// plantedSettingsHold has a command write an fsmonitor line into file (a
// settings file git reads for the user, redirected with redir: > or >>)
// and runs the user's git status. In the control, on the host, git must
// run it (else the case is not real); through Loupe the file tools must
// ask before writing file, the command must fail to, and git must run
// nothing. why says why the file is git's settings.
func plantedSettingsHold(t *testing.T, ws, file, redir string, control bool, why string) {
	t.Helper()
	marker := filepath.Join(t.TempDir(), "RAN")
	write := `printf '[core]\n\tfsmonitor = "touch ` + marker + `; false"\n' ` + redir + ` ` + file + `; echo "write=$?"`
	if control {
		if out := hostShell(t, ws, write); !strings.Contains(out, "write=0") {
			t.Fatalf("control write: %s", out)
		}
	} else {
		pol := permission.Policy{Mode: permission.ModeAuto, Workspace: ws,
			Rules: []permission.Rule{{Effect: permission.EffectAllow, Path: "**"}}}
		if dec := pol.Decide(permission.Call{Tool: "write_file", Paths: []string{file}}); dec.Verdict == permission.Run {
			t.Errorf("write_file %s runs without asking; %s", file, why)
		}
		out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, write)
		if strings.Contains(out.Text, "write=0") {
			t.Errorf("a command wrote %s (%s): %q", file, why, out.Text)
		}
	}
	hostGit(t, ws, "status", "--short")
	switch {
	case control && !ran(t, marker):
		t.Fatalf("control: git did not run the program; the case is not real")
	case !control && ran(t, marker):
		t.Errorf("the user's git status ran what a command wrote into %s (%s)", file, why)
	}
}

func hostShell(t *testing.T, dir, script string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// The workspace is the dotfiles repository the user's ~/.gitconfig links
// into: the user's settings file is then a file of the workspace, and a
// command that wrote it would have every git of the user run what it
// names. It is read-only, and the file tools ask before writing it.
func TestUserSettingsFileInTheWorkspace(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, control := range []bool{true, false} {
		name := "loupe"
		if control {
			name = "control"
		}
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", "")
			t.Setenv("GIT_CONFIG_GLOBAL", "")
			os.Unsetenv("GIT_CONFIG_GLOBAL")
			ws := filepath.Join(home, "dotfiles")
			os.MkdirAll(ws, 0o755)
			initRepo(t, ws)
			os.WriteFile(filepath.Join(ws, "gitconfig"), []byte("[user]\n\tname = me\n"), 0o644)
			if err := os.Symlink("dotfiles/gitconfig", filepath.Join(home, ".gitconfig")); err != nil {
				t.Fatal(err)
			}
			plantedSettingsHold(t, ws, "gitconfig", ">>", control, "it is the user's ~/.gitconfig")
		})
	}
}

// A program a setting names through a symlink of the workspace
// (node_modules/.bin/x → ../x/cli.sh): the command runs (a read-only
// symlink would be refused), cannot rewrite where the link leads, and
// cannot point the link at a script of its own.
func TestProgramNamedThroughALink(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, tc := range []struct{ name, write string }{
		{"rewrite the target", `printf '#!/bin/sh\ntouch MARKER\nexit 1\n' > bin/mon; echo "write=$?"`},
		{"point the link elsewhere", `printf '#!/bin/sh\ntouch MARKER\nexit 1\n' > mine.sh; ln -sfn ../mine.sh bin/mon; echo "write=$?"`},
		{"replace the link", `printf '#!/bin/sh\ntouch MARKER\nexit 1\n' > mine.sh; mv -f mine.sh bin/mon; echo "write=$?"`},
		{"a link outside leading in", `printf '#!/bin/sh\ntouch MARKER\nexit 1\n' > tools/mon.sh; echo "write=$?"`},
	} {
		for _, control := range []bool{true, false} {
			name := tc.name
			if control {
				name += "/control"
			}
			t.Run(name, func(t *testing.T) {
				home := t.TempDir()
				t.Setenv("HOME", home)
				t.Setenv("XDG_CONFIG_HOME", "")
				os.Unsetenv("GIT_CONFIG_GLOBAL")
				ws := t.TempDir()
				initRepo(t, ws)
				os.MkdirAll(filepath.Join(ws, "tools"), 0o755)
				os.MkdirAll(filepath.Join(ws, "bin"), 0o755)
				os.WriteFile(filepath.Join(ws, "tools", "mon.sh"), []byte("#!/bin/sh\nexit 1\n"), 0o755)
				if err := os.Symlink("../tools/mon.sh", filepath.Join(ws, "bin", "mon")); err != nil {
					t.Fatal(err)
				}
				if tc.name == "a link outside leading in" {
					os.MkdirAll(filepath.Join(home, "bin"), 0o755)
					if err := os.Symlink(filepath.Join(ws, "tools", "mon.sh"), filepath.Join(home, "bin", "mon")); err != nil {
						t.Fatal(err)
					}
					hostGit(t, ws, "config", "core.fsmonitor", "sh ~/bin/mon")
				} else {
					hostGit(t, ws, "config", "core.fsmonitor", "sh bin/mon")
				}
				marker := filepath.Join(t.TempDir(), "RAN")
				write := strings.ReplaceAll(tc.write, "MARKER", marker)
				if control {
					if out := hostShell(t, ws, write); !strings.Contains(out, "write=0") {
						t.Fatalf("control write: %s", out)
					}
				} else {
					out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, "echo started; "+write)
					if !strings.Contains(out.Text, "started") {
						t.Fatalf("the command did not run: %q", out.Text)
					}
				}
				hostGit(t, ws, "status", "--short")
				switch {
				case control && !ran(t, marker):
					t.Fatalf("control: git did not run it; the case is not real")
				case !control && ran(t, marker):
					t.Errorf("the user's git status ran a program a command planted through bin/mon (%s)", tc.name)
				}
			})
		}
	}
}

// A workspace that is a bare repository with a relative core.hooksPath:
// git runs its hooks in the git directory, so the folder is taken from
// there (a reference-transaction hook runs on any ref update).
func TestRelativeHooksPathOfABareRepository(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, control := range []bool{true, false} {
		name := "loupe"
		if control {
			name = "control"
		}
		t.Run(name, func(t *testing.T) {
			src := t.TempDir()
			initRepo(t, src)
			ws := filepath.Join(t.TempDir(), "srv.git")
			if out, err := exec.Command("git", "clone", "-q", "--bare", src, ws).CombinedOutput(); err != nil {
				t.Fatalf("clone: %v %s", err, out)
			}
			os.MkdirAll(filepath.Join(ws, "custom"), 0o755)
			os.WriteFile(filepath.Join(ws, "custom", "reference-transaction"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
			hostGit(t, ws, "config", "core.hooksPath", "custom")
			marker := filepath.Join(t.TempDir(), "RAN")
			write := `printf '#!/bin/sh\ntouch ` + marker + `\n' > custom/reference-transaction; echo "write=$?"`
			if control {
				if out := hostShell(t, ws, write); !strings.Contains(out, "write=0") {
					t.Fatalf("control write: %s", out)
				}
			} else {
				crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, write)
			}
			hostGit(t, ws, "update-ref", "refs/heads/x", "HEAD")
			switch {
			case control && !ran(t, marker):
				t.Fatalf("control: git did not run the hook; the case is not real")
			case !control && ran(t, marker):
				t.Errorf("the user's git ran a hook a command rewrote in the bare repository's core.hooksPath folder")
			}
		})
	}
}
