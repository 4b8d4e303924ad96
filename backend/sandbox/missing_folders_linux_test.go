package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/tools"
)

// isolateGit gives the test a home of its own and no system settings, so
// that only the settings it writes count.
func isolateGit(t *testing.T) (home string) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	os.Unsetenv("GIT_CONFIG_GLOBAL")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_TEMPLATE_DIR", "")
	os.Unsetenv("GIT_TEMPLATE_DIR")
	return home
}

// A setting names a folder git takes programs from (core.hooksPath: the
// hooks git runs; init.templateDir: the hooks git init and clone copy into
// the repositories they make) that is not there yet. A command that made
// it and put a hook in it would have the user's next git run the hook.
// Walked over both settings, the settings files git reads (the
// repository's, the user's, a file the user's include), and the forms of
// the value (relative, nested so that folders are missing on the way,
// husky's "_", "~", absolute), each with a control run on the host that
// shows git runs the hook. Through Loupe the file tools ask before writing
// the hook, the command cannot make it, the user's git runs nothing, and
// nothing Loupe made to hold the folder is left in the tree.
func TestMissingHooksFoldersCannotBeMade(t *testing.T) {
	needs(t, protections(t).Writes)
	type form struct {
		name  string
		value func(ws string) string
		hook  string // where the command puts the hook, relative to ws
		top   string // the first folder of it that is not there before
	}
	hooksForms := []form{
		{"relative", func(string) string { return ".githooks" }, ".githooks/pre-commit", ".githooks"},
		{"nested", func(string) string { return "tools/git/hooks" }, "tools/git/hooks/pre-commit", "tools"},
		{"husky", func(string) string { return ".husky/_" }, ".husky/_/pre-commit", ".husky"},
		{"tilde", func(string) string { return "~/proj/.githooks" }, ".githooks/pre-commit", ".githooks"},
		{"absolute", func(ws string) string { return ws + "/.githooks" }, ".githooks/pre-commit", ".githooks"},
	}
	templateForms := []form{
		{"tilde", func(string) string { return "~/proj/tpl" }, "tpl/hooks/pre-commit", "tpl"},
		{"absolute", func(ws string) string { return ws + "/gittpl/x" }, "gittpl/x/hooks/pre-commit", "gittpl"},
	}
	wheres := []struct {
		name string
		set  func(t *testing.T, ws, home, key, value string)
		repo bool // the repository's own settings (not read by git init)
	}{
		{"the repository's config", func(t *testing.T, ws, home, key, value string) { hostGit(t, ws, "config", key, value) }, true},
		{"the user's ~/.gitconfig", func(t *testing.T, ws, home, key, value string) {
			hostGit(t, ws, "config", "--file", filepath.Join(home, ".gitconfig"), key, value)
		}, false},
		{"a file the user's settings include", func(t *testing.T, ws, home, key, value string) {
			hostGit(t, ws, "config", "--file", filepath.Join(home, "shared.gitconfig"), key, value)
			hostGit(t, ws, "config", "--file", filepath.Join(home, ".gitconfig"), "include.path", "~/shared.gitconfig")
		}, false},
	}
	settings := []struct {
		key   string
		forms []form
		// user is the user's git afterwards, run in ws.
		user [][]string
	}{
		{"core.hooksPath", hooksForms, [][]string{{"commit", "-q", "--allow-empty", "-m", "x"}}},
		{"init.templateDir", templateForms, [][]string{{"init", "-q", "fresh"}, {"-C", "fresh", "commit", "-q", "--allow-empty", "-m", "x"}}},
	}
	for _, s := range settings {
		for _, w := range wheres {
			if s.key == "init.templateDir" && w.repo {
				continue // git init reads the user's and the system's settings
			}
			for _, f := range s.forms {
				for _, control := range []bool{true, false} {
					name := s.key + "/" + w.name + "/" + f.name
					if control {
						name += "/control"
					}
					t.Run(name, func(t *testing.T) {
						home := isolateGit(t)
						ws := filepath.Join(home, "proj")
						os.MkdirAll(ws, 0o755)
						initRepo(t, ws)
						w.set(t, ws, home, s.key, f.value(ws))
						marker := filepath.Join(t.TempDir(), "RAN")
						dir := filepath.Dir(f.hook)
						write := `mkdir -p ` + dir + ` && printf '#!/bin/sh\ntouch ` + marker + `\n' > ` + f.hook + ` && chmod +x ` + f.hook + `; echo "write=$?"`
						if control {
							if out := hostShell(t, ws, write); !strings.Contains(out, "write=0") {
								t.Fatalf("control write: %s", out)
							}
						} else {
							pol := permission.Policy{Mode: permission.ModeAuto, Workspace: ws,
								Rules: []permission.Rule{{Effect: permission.EffectAllow, Path: "**"}}}
							if d := pol.Decide(permission.Call{Tool: "write_file", Paths: []string{f.hook}}); d.Verdict == permission.Run {
								t.Errorf("write_file %s runs without asking; %s = %q names its folder", f.hook, s.key, f.value(ws))
							}
							out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, write)
							if strings.Contains(out.Text, "write=0") {
								t.Errorf("a command made %s, in the folder %s names: %q", f.hook, s.key, out.Text)
							}
							if _, err := os.Lstat(filepath.Join(ws, f.top)); err == nil {
								t.Errorf("%s is left in the workspace after the command: what Loupe made to hold the folder must go", f.top)
							}
						}
						for _, g := range s.user {
							t.Logf("user's git %v: %s", g, hostGit(t, ws, g...))
						}
						switch {
						case control && !ran(t, marker):
							t.Fatalf("control: the user's git did not run the hook; the case is not real")
						case !control && ran(t, marker):
							t.Errorf("the user's git ran a hook a command put in the folder %s names (%s)", s.key, w.name)
						}
					})
				}
			}
		}
	}
}

// What the view makes to hold a path that is not there (an included
// settings file, the folders on its way, a hooks folder) is gone once the
// command has ended, whether the command left it alone or tried to make
// the path itself; the user's git status shows nothing new. While the
// command runs, the tools' listings (list_dir, glob) do not show it,
// though it is there (the host sees it).
func TestPlaceholdersLeaveNothingBehind(t *testing.T) {
	needs(t, protections(t).Writes)
	cases := []struct {
		name    string
		include string // include.path, relative to the workspace
		target  string // where git opens it
		top     string // the first entry made for it
	}{
		{"a file at the top", "team.gitconfig", "team.gitconfig", "team.gitconfig"},
		{"nested folders made for it", "cfg/a/b/team.inc", "cfg/a/b/team.inc", "cfg"},
		{"a folder the path leaves by ..", "cfg/x/../team.inc", "cfg/team.inc", "cfg"},
		{"a hooks folder", "", ".githooks", ".githooks"},
	}
	for _, tc := range cases {
		for _, attempt := range []string{"leaves it alone", "tries to make it"} {
			t.Run(tc.name+"/"+attempt, func(t *testing.T) {
				isolateGit(t)
				ws := t.TempDir()
				initRepo(t, ws)
				if tc.include != "" {
					// Not filepath.Join: the ".." is the case.
					hostGit(t, ws, "config", "include.path", ws+"/"+tc.include)
				} else {
					hostGit(t, ws, "config", "core.hooksPath", tc.target)
				}
				script := "ls -a >/dev/null"
				if attempt == "tries to make it" {
					if tc.include != "" {
						script = `mkdir -p "$(dirname ` + tc.include + `)"; printf '[core]\n\tfsmonitor = true\n' > ` + tc.include + `; echo "write=$?"`
					} else {
						script = `mkdir -p .githooks; printf '#!/bin/sh\n' > .githooks/pre-commit; echo "write=$?"`
					}
				}
				before := hostGit(t, ws, "status", "--porcelain", "--untracked-files=all")
				out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, script)
				if strings.Contains(out.Text, "write=0") {
					t.Errorf("the command made %s: %q", tc.target, out.Text)
				}
				if _, err := os.Lstat(filepath.Join(ws, tc.top)); err == nil {
					t.Errorf("%s is left in the workspace after the command: %s", tc.top, hostShell(t, ws, "find cfg .githooks -ls 2>&1"))
				}
				if after := hostGit(t, ws, "status", "--porcelain", "--untracked-files=all"); after != before {
					t.Errorf("the user's git status shows what Loupe made:\nbefore %q\nafter  %q", before, after)
				}
			})
		}
	}

	t.Run("listings while a command runs", func(t *testing.T) {
		isolateGit(t)
		ws := t.TempDir()
		initRepo(t, ws)
		hostGit(t, ws, "config", "include.path", filepath.Join(ws, "cfg", "team.inc"))
		hostGit(t, ws, "config", "core.hooksPath", ".githooks")
		done := make(chan sandbox.Output)
		go func() {
			done <- sandbox.Crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, "sleep 3")
		}()
		held := false
		for i := 0; i < 100 && !held; i++ {
			_, e1 := os.Lstat(filepath.Join(ws, "cfg", "team.inc"))
			_, e2 := os.Lstat(filepath.Join(ws, ".githooks"))
			held = e1 == nil && e2 == nil
			time.Sleep(50 * time.Millisecond)
		}
		if !held {
			t.Fatal("the placeholders never appeared on the host; the case is not real")
		}
		w, err := tools.OpenWorkspace(ws)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		reg := tools.Builtins(w, nil)
		for _, c := range []struct{ tool, args string }{
			{"list_dir", `{"path":"."}`},
			{"glob", `{"pattern":"**"}`},
		} {
			tool, cerr := reg.Check(c.tool, []byte(c.args))
			if cerr != nil {
				t.Fatalf("%s: %s", c.tool, cerr.Message)
			}
			res, err := tool.Run(context.Background(), []byte(c.args))
			if err != nil {
				t.Fatalf("%s: %v", c.tool, err)
			}
			for _, name := range []string{"cfg", "team.inc", ".githooks"} {
				if strings.Contains(res.Content, name) {
					t.Errorf("%s shows %s, which Loupe made to hold a path for the command:\n%s", c.tool, name, res.Content)
				}
			}
		}
		<-done
		for _, p := range []string{"cfg", ".githooks"} {
			if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
				t.Errorf("%s is left after the command", p)
			}
		}
	})
}

// What Loupe made to hold a path for one command stays while another
// command of the workspace that found it there runs: removed under it, the
// kernel would take that command's mount away with it, and the command
// could then make the path. Here the first command makes the hooks
// folder's placeholder and ends; the second, which started while it ran,
// tries to make the hook after that; the placeholder goes only at the end
// of the second's round.
func TestPlaceholdersStayWhileACommandRuns(t *testing.T) {
	needs(t, protections(t).Writes)
	isolateGit(t)
	ws := t.TempDir()
	initRepo(t, ws)
	hostGit(t, ws, "config", "core.hooksPath", ".githooks")
	c := sandbox.Confined{Workspace: ws, Guard: guardFor(ws, ""), BestEffort: true}
	first := make(chan sandbox.Output)
	go func() {
		out, _ := c.Run(context.Background(), sandbox.Command{Dir: ws, Script: "sleep 2", Timeout: 30 * time.Second})
		first <- out
	}()
	for i := 0; i < 100; i++ {
		if _, err := os.Lstat(filepath.Join(ws, ".githooks")); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	sw := sandbox.NewSweep()
	second := make(chan sandbox.Output)
	go func() {
		out, _ := c.Run(context.Background(), sandbox.Command{Dir: ws, Timeout: 30 * time.Second, Sweep: sw,
			Script: "sleep 4; mkdir -p .githooks; printf '#!/bin/sh\n' > .githooks/pre-commit; echo \"late=$?\""})
		second <- out
	}()
	<-first
	if _, err := os.Lstat(filepath.Join(ws, ".githooks")); err != nil {
		t.Errorf("the placeholder went while another command that found it still ran: %v", err)
	}
	out := <-second
	t.Logf("second: %s", out.Text)
	if strings.Contains(out.Text, "late=0") || !strings.Contains(out.Text, "late=") {
		t.Errorf("the second command made a hook after the first ended: %q", out.Text)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".githooks")); err != nil {
		t.Errorf("the placeholder went before the second command's round ended: %v", err)
	}
	sw.Run(context.Background())
	if _, err := os.Lstat(filepath.Join(ws, ".githooks")); err == nil {
		t.Error("the placeholder is left after the round")
	}
}
