package permission

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/backend/cmdshell"
)

// settingsHoles run victim.txt's removal through text the words do not
// show: xargs puts an input line (c.txt holds "rm -f victim.txt") inside
// a shell's script, or the script writes a settings file that the program
// it runs next reads (git's aliases, fsmonitor and textconv; the files in
// the command's home, or named by HOME, XDG_CONFIG_HOME, GIT_CONFIG_*),
// or it points git at a folder of its own commands.
var settingsHoles = []struct{ name, src string }{
	{"xargs -I into a shell's script", `xargs -a c.txt -I{} sh -c '{}'`},
	{"xargs -I with its string apart", `xargs -a c.txt -I {} sh -c '{}'`},
	{"xargs -I%", `xargs -a c.txt -I% sh -c %`},
	{"xargs -I inside a longer script", `xargs -a c.txt -I{} bash -c 'echo start; {}'`},
	{"xargs -I from a pipe", `cat c.txt | xargs -I{} sh -c '{}'`},
	{"xargs -I from a redirection", `xargs -I{} sh -c '{}' < c.txt`},
	{"xargs -i", `xargs -a c.txt -i sh -c '{}'`},
	{"xargs --replace=", `xargs -a c.txt --replace=@ sh -c @`},
	{"alias in ~/.gitconfig", `git init -q; printf '[alias]\n\ty = !rm -f victim.txt\n' > ~/.gitconfig; git y`},
	{"alias in $HOME/.gitconfig", `git init -q; printf '[alias]\n\ty = !rm -f victim.txt\n' > "$HOME/.gitconfig"; git y`},
	{"alias teed into ~/.gitconfig", `git init -q; printf '[alias]\n\ty = !rm -f victim.txt\n' | tee ~/.gitconfig >/dev/null; git y`},
	{"alias copied to ~/.gitconfig", `git init -q; printf '[alias]\n\ty = !rm -f victim.txt\n' > g.cfg; cp g.cfg ~/.gitconfig; git y`},
	{"alias in ~/.config/git/config", `mkdir -p ~/.config/git; printf '[alias]\n\ty = !rm -f victim.txt\n' > ~/.config/git/config; git y`},
	{"GIT_CONFIG_GLOBAL for one command", `printf '[alias]\n\ty = !rm -f victim.txt\n' > g.cfg; GIT_CONFIG_GLOBAL=g.cfg git y`},
	{"GIT_CONFIG_SYSTEM for one command", `printf '[alias]\n\ty = !rm -f victim.txt\n' > g.cfg; GIT_CONFIG_SYSTEM=g.cfg git y`},
	{"GIT_CONFIG_GLOBAL exported", `printf '[alias]\n\ty = !rm -f victim.txt\n' > g.cfg; export GIT_CONFIG_GLOBAL=g.cfg; git y`},
	{"GIT_CONFIG_GLOBAL through env", `printf '[alias]\n\ty = !rm -f victim.txt\n' > g.cfg; env GIT_CONFIG_GLOBAL=g.cfg git y`},
	{"HOME is here", `printf '[alias]\n\ty = !rm -f victim.txt\n' > .gitconfig; HOME=. git y`},
	{"HOME exported", `printf '[alias]\n\ty = !rm -f victim.txt\n' > .gitconfig; export HOME=$PWD; git y`},
	{"XDG_CONFIG_HOME is here", `mkdir -p git; printf '[alias]\n\ty = !rm -f victim.txt\n' > git/config; XDG_CONFIG_HOME=. git y`},
	{"git --exec-path, relative", `mkdir -p b; printf '#!/bin/sh\nrm -f victim.txt\n' > b/git-zz; chmod +x b/git-zz; git --exec-path=b zz`},
	{"textconv in GIT_CONFIG_GLOBAL", `git init -q; printf '* diff=x\n' > .gitattributes; printf '[diff "x"]\n\ttextconv = rm -f victim.txt;\n' > g.cfg; echo a > f; git add f; echo b > f; GIT_CONFIG_GLOBAL=g.cfg git diff`},
	{"fsmonitor in GIT_CONFIG_GLOBAL", `git init -q; printf '[core]\n\tfsmonitor = rm -f victim.txt\n' > g.cfg; GIT_CONFIG_GLOBAL=g.cfg git status`},
	{"a login shell's ~/.profile", `echo 'rm -f victim.txt' > ~/.profile; bash -l -c true`},
}

// With deny rm * in auto mode each asks: deny rules cannot be checked
// against text the words do not show.
func TestSettingsAScriptWritesAsk(t *testing.T) {
	bash := cmdshell.Shell{Path: "/bin/bash", Dialect: cmdshell.Bash, Known: true}
	for _, c := range settingsHoles {
		t.Run(c.name, func(t *testing.T) {
			deny := Policy{Mode: ModeAuto, Rules: []Rule{{Effect: EffectDeny, Command: "rm *"}}, shell: &bash}
			if d := deny.Decide(runCmd(c.src)); d.Verdict == Run {
				t.Errorf("%s: deny rm * in auto mode lets it run, and bash deletes victim.txt with it", c.src)
			}
		})
	}
}

// What stays quiet: writes to ordinary files before git, xargs without a
// replace string, a replace string the shell's script does not hold.
func TestOrdinaryWritesBeforeGitStayQuiet(t *testing.T) {
	bash := cmdshell.Shell{Path: "/bin/bash", Dialect: cmdshell.Bash, Known: true}
	for _, src := range []string{
		`echo hello > notes.txt; git add notes.txt; git status`,
		`printf 'x\n' > src/config.go; git diff`,
		`ls | xargs -I{} echo {}`,
		`xargs -a c.txt wc -l`,
	} {
		deny := Policy{Mode: ModeAuto, Rules: []Rule{{Effect: EffectDeny, Command: "rm *"}}, shell: &bash}
		if d := deny.Decide(runCmd(src)); d.Verdict != Run {
			t.Errorf("%s: %v (%q), want it to run", src, d.Verdict, d.Reasons)
		}
	}
}

// Outside Loupe, bash really deletes victim.txt with each, in a home of
// its own: the cases above are real.
func TestSettingsAScriptWritesRunInBash(t *testing.T) {
	for _, c := range settingsHoles {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(dir, "victim.txt")
			if err := os.WriteFile(victim, []byte("keep\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "c.txt"), []byte("rm -f victim.txt\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			cmd := exec.Command("/bin/bash", "-c", c.src)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
			out, _ := cmd.CombinedOutput()
			if _, err := os.Stat(victim); err == nil {
				t.Errorf("%s: bash did not delete victim.txt\n%s", c.src, out)
			}
		})
	}
}
