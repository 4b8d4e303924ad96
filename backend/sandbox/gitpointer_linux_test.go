package sandbox_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
)

// pointerForms are the ways a commondir can name a folder, each with the
// folder git takes from it (relative to the workspace): git strips only
// trailing "\n" and "\r", and resolves the path as the kernel does, so a
// blank belongs to the name and a ".." after a symbolic link goes up from
// where the link leads. pre makes what the form needs; ABS is the
// workspace.
var pointerForms = []struct{ name, pre, commondir, git, swap, swapped string }{
	{"plain", ``, `../common\n`, `common`, ``, ``},
	{"crlf", ``, `../common\r\n`, `common`, ``, ``},
	{"trailing blank", ``, `../common \n`, `common `, ``, ``},
	{"leading blank", ``, ` ../common\n`, `wt/ ../common`, ``, ``},
	{"trailing tab", ``, `../common\t\n`, "common\t", ``, ``},
	{"absolute", ``, `ABS/common\n`, `common`, ``, ``},
	{"symlink as last component", `mkdir -p real; ln -s real lnk; `, `../lnk\n`, `real`,
		`rm lnk; mkdir -p evil/objects evil/refs; ln -s evil lnk; `, `evil`},
	{"dotdot through a symlink", `mkdir -p a/b/c; ln -s a/b/c l; `, `../l/../common\n`, `a/b/common`,
		`rm l; mkdir -p x/y x/common/objects x/common/refs; ln -s x/y l; `, `x/common`},
}

// pointerLayout lays out wt/ (HEAD, the commondir of form f) and proj/.git
// naming wt, with git's common folder (objects, refs) and a harmless
// "common" folder where a lexical reader would look; then it writes the
// config named by cfg (the folder git uses, when "") with a core.fsmonitor
// that touches marker.
func pointerLayout(ws, pre, commondir, git, marker string) string {
	commondir = strings.ReplaceAll(commondir, "ABS", ws)
	return `set -e
` + pre + `mkdir -p common/objects common/refs/heads; printf '[core]\n\trepositoryformatversion = 0\n' > common/config
mkdir -p "` + git + `/objects" "` + git + `/refs/heads" wt proj
echo 'ref: refs/heads/main' > wt/HEAD
printf '` + commondir + `' > wt/commondir
printf 'gitdir: ../wt\n' > proj/.git
echo laid out
`
}

func plantConfig(dir, marker string) string {
	return `printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch ` + marker + `; false"\n' > "` + dir + `/config" && echo planted`
}

func bash(t *testing.T, dir, script string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	return string(out)
}

// Every form of commondir, three ways: the file tools ask before writing
// the settings of the folder git uses; a command cannot write them through
// a pointer that was there before it (the view makes that folder
// read-only); and a command that lays out the whole pointer itself leaves
// nothing the user's git runs. Each is first shown real: outside Loupe,
// the same layout makes the user's git status run the program.
func TestGitPointerForms(t *testing.T) {
	needs(t, protections(t).Writes)
	for _, f := range pointerForms {
		t.Run(f.name, func(t *testing.T) {
			// Control: git uses the folder the form says.
			ctl := t.TempDir()
			cm := filepath.Join(t.TempDir(), "RAN")
			bash(t, ctl, pointerLayout(ctl, f.pre, f.commondir, f.git, cm)+plantConfig(f.git, cm))
			hostGit(t, filepath.Join(ctl, "proj"), "status", "--short")
			if !ran(t, cm) {
				t.Fatalf("control: git did not read %q's config; the form is not real", f.git)
			}

			t.Run("file tools ask", func(t *testing.T) {
				ws := t.TempDir()
				bash(t, ws, pointerLayout(ws, f.pre, f.commondir, f.git, ""))
				pol := permission.Policy{Mode: permission.ModeAuto, Workspace: ws,
					Rules: []permission.Rule{{Effect: permission.EffectAllow, Path: "**"}}}
				for _, p := range []string{f.git + "/config", f.git + "/hooks/pre-commit"} {
					if dec := pol.Decide(permission.Call{Tool: "write_file", Paths: []string{p}}); dec.Verdict == permission.Run {
						t.Errorf("write_file %q runs without asking, and git reads it as proj's settings", p)
					}
				}
			})
			t.Run("existing pointer", func(t *testing.T) {
				ws := t.TempDir()
				bash(t, ws, pointerLayout(ws, f.pre, f.commondir, f.git, ""))
				marker := filepath.Join(t.TempDir(), "RAN")
				out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, plantConfig(f.git, marker))
				t.Logf("command: %q", out.Text)
				hostGit(t, filepath.Join(ws, "proj"), "status", "--short")
				if ran(t, marker) {
					t.Errorf("a command wrote %q's config through an existing commondir, and the user's git status ran it", f.git)
				}
			})
			if f.swap != "" {
				t.Run("existing pointer, link changed", func(t *testing.T) {
					ctl := t.TempDir()
					bash(t, ctl, pointerLayout(ctl, f.pre, f.commondir, f.git, ""))
					cm := filepath.Join(t.TempDir(), "RAN")
					bash(t, ctl, f.swap+plantConfig(f.swapped, cm))
					hostGit(t, filepath.Join(ctl, "proj"), "status", "--short")
					if !ran(t, cm) {
						t.Fatalf("control: git did not read %q's config after the change", f.swapped)
					}
					ws := t.TempDir()
					bash(t, ws, pointerLayout(ws, f.pre, f.commondir, f.git, ""))
					marker := filepath.Join(t.TempDir(), "RAN")
					out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, f.swap+plantConfig(f.swapped, marker))
					t.Logf("command: %q", out.Text)
					if !strings.Contains(out.Text, "planted") {
						t.Fatalf("the command did not change the link: %q", out.Text)
					}
					hostGit(t, filepath.Join(ws, "proj"), "status", "--short")
					if ran(t, marker) {
						t.Errorf("a command changed a link on an existing commondir's way to %q, and the user's git status ran its config", f.swapped)
					}
				})
			}
			t.Run("command makes it", func(t *testing.T) {
				ws := t.TempDir()
				marker := filepath.Join(t.TempDir(), "RAN")
				out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, pointerLayout(ws, f.pre, f.commondir, f.git, marker)+plantConfig(f.git, marker))
				t.Logf("command: %q", out.Text)
				if !strings.Contains(out.Text, "planted") {
					t.Fatalf("the command did not lay it out: %q", out.Text)
				}
				hostGit(t, filepath.Join(ws, "proj"), "status", "--short")
				if ran(t, marker) {
					t.Errorf("a command laid out a commondir naming %q, and the user's git status ran its config", f.git)
				}
			})
		})
	}
}

// The same for a .git file: git takes all of it less trailing "\n" and
// "\r", after exactly "gitdir: ". A command makes a repository whose
// config runs a program where git looks, and a harmless one where a
// lexical reader would.
func TestGitFilePointerForms(t *testing.T) {
	needs(t, protections(t).Writes)
	cases := []struct{ name, pre, gitfile, evil string }{
		{"trailing blank", ``, `gitdir: ../repo \n`, `repo `},
		{"two blanks after gitdir:", ``, `gitdir:  ../repo\n`, `proj/ ../repo`},
		{"crlf", ``, `gitdir: ../evil\r\n`, `evil`},
		{"dotdot through a symlink", `mkdir -p a/b/c; ln -s ../a/b/c proj/l; `, `gitdir: l/../repo\n`, `a/b/repo`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			script := func(marker string) string {
				return `set -e; mkdir -p proj; ` + c.pre + `
git init -q --bare repo
mkdir -p "` + c.evil + `"; cp -r repo/. "` + c.evil + `/"
printf '[core]\n\tbare = false\n\tfsmonitor = "touch ` + marker + `; false"\n' >> "` + c.evil + `/config"
printf '` + c.gitfile + `' > proj/.git
printf '[core]\n\tbare = false\n' >> repo/config
echo planted`
			}
			ctl := t.TempDir()
			cm := filepath.Join(t.TempDir(), "RAN")
			bash(t, ctl, script(cm))
			hostGit(t, filepath.Join(ctl, "proj"), "status", "--short")
			if !ran(t, cm) {
				t.Fatalf("control: git did not use %q; the form is not real", c.evil)
			}
			ws := t.TempDir()
			marker := filepath.Join(t.TempDir(), "RAN")
			out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, script(marker))
			t.Logf("command: %q", out.Text)
			if !strings.Contains(out.Text, "planted") {
				t.Fatalf("the command did not lay it out: %q", out.Text)
			}
			hostGit(t, filepath.Join(ws, "proj"), "status", "--short")
			if ran(t, marker) {
				t.Errorf("a command wrote a .git file naming %q, and the user's git status ran its config", c.evil)
			}
		})
	}
}
