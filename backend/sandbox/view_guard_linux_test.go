package sandbox_test

// The view's tests that need a guard, run with the one the app uses:
// permission.Policy.CommandGuard, as built for the workspace (package
// permission imports sandbox, so these cannot live inside it). Like the
// other view tests they run real commands in the view the helper builds
// and check what the user would notice on the host afterwards: bytes of
// protected files, markers, what git does.

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
)

// guardFor is the guard the app gives commands in ws: the workspace's
// policy with rules (the user's), Loupe's database among the protected
// files when db is set.
func guardFor(ws, db string, rules ...permission.Rule) sandbox.PathGuard {
	p := permission.Policy{Workspace: ws, Rules: rules}
	if db != "" {
		p.ProtectedFiles = []string{db}
	}
	return p.CommandGuard()
}

// deny is a user's rule hiding what matches pattern from every tool and
// every command.
func deny(pattern string) permission.Rule {
	return permission.Rule{Effect: permission.EffectDeny, Path: pattern}
}

// The view tests' helpers (export_linux_test.go): crun runs a script
// confined, in BestEffort mode, so that each test checks the protection it
// is about (needs) whatever else this machine lacks.
var (
	crun        = sandbox.Crun
	needs       = sandbox.Needs
	protections = sandbox.ProbeLogged
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=a@b", "-c", "user.name=n", "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// hashTree hashes every file under dir (path, mode and content), so that
// any change shows.
func hashTree(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v\n", p, fi.Mode())
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// repoWithSubmodule makes a workspace that is a git repository with a
// submodule, and returns it.
func repoWithSubmodule(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test (scripts/deps.sh installs it)")
	}
	up := t.TempDir()
	git(t, up, "init", "-q")
	git(t, up, "commit", "-q", "--allow-empty", "-m", "up")
	ws := t.TempDir()
	git(t, ws, "init", "-q")
	os.WriteFile(filepath.Join(ws, "x"), []byte("[core]\n\tfsmonitor = touch MARKER\n"), 0o644)
	git(t, ws, "submodule", "-q", "add", up, "sub")
	git(t, ws, "commit", "-q", "-m", "init")
	return ws
}

func TestViewProtectedPathsAreReadOnly(t *testing.T) {
	p := protections(t)
	needs(t, p.Writes)
	ws := repoWithSubmodule(t)
	gitDir := filepath.Join(ws, ".git")
	protected := func() string {
		var h string
		for _, rel := range []string{"config", "hooks", "modules/sub/config", "modules/sub/hooks"} {
			h += hashTree(t, filepath.Join(gitDir, rel))
		}
		return h
	}
	before := protected()
	subPointer, _ := os.ReadFile(filepath.Join(ws, "sub", ".git"))

	attacks := []string{
		`cp x .gi?/config`,
		`for d in .git/hook?; do printf '#!/bin/sh\ntouch MARKER\n' > $d/pre-commit; chmod +x $d/pre-commit; done`,
		`git log --output .gi?/config`,
		`git config core.fsmonitor 'touch MARKER'`,
		`git config core.hooksPath /tmp`,
		`mv .git .g && mkdir .git && cp -r .g/. .git/ && git config core.hooksPath /tmp`,
		`mv .git/config .git/config.old; cp x .git/config`,
		`rm -rf .git/hooks; mkdir .git/hooks`,
		`cp x .git/modules/sub/config; echo 'touch MARKER' > .git/modules/sub/hooks/post-checkout`,
		`git -C sub config core.fsmonitor 'touch MARKER'`,
		`echo 'gitdir: /tmp/evil' > sub/.git`,
		`ln .git/config hard; echo '[core] fsmonitor=x' >> hard`,
		`chmod 777 .git/config`,
		`mkdir -p ws2 && mv sub ws2/ || true; ls`,
	}
	for _, a := range attacks {
		out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, a)
		t.Logf("%s\n-> exit %d: %s", a, out.ExitCode, strings.TrimSpace(out.Text))
	}
	if before != protected() {
		t.Errorf(".git/config, hooks or a submodule's repository changed:\n%s", git(t, ws, "config", "--list", "--local"))
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "sub", ".git")); !bytes.Equal(b, subPointer) {
		t.Errorf("the submodule's .git pointer changed: %q", b)
	}
	// As the user would: git in the workspace runs nothing planted.
	git(t, ws, "status")
	git(t, ws, "commit", "-q", "--allow-empty", "-m", "after")
	git(t, filepath.Join(ws, "sub"), "status")
	if m, _ := filepath.Glob(filepath.Join(ws, "**", "MARKER")); len(m) > 0 {
		t.Errorf("a planted command ran: %v", m)
	}
	if _, err := os.Stat(filepath.Join(ws, "MARKER")); err == nil {
		t.Error("a planted command ran: MARKER in the workspace")
	}

	// The rest of the repository still works from inside.
	out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, `git -c user.email=a@b -c user.name=n commit -q --allow-empty -m inside && git log --format=%s -1`)
	if strings.TrimSpace(out.Text) != "inside" {
		t.Errorf("git commit inside the sandbox: exit %d, %q", out.ExitCode, out.Text)
	}
}

func TestViewHidesDeniedPathsAndLoupesFiles(t *testing.T) {
	p := protections(t)
	needs(t, p.Secrets)
	ws := t.TempDir()
	files := map[string]string{
		".env":            "SECRET-ENV",
		"certs/key.pem":   "SECRET-PEM",
		"loupe.db":        "SECRET-DB",
		"loupe.db-wal":    "SECRET-WAL",
		"loupe.db-shm":    "SECRET-SHM",
		"src/ok.txt":      "visible",
		"deep/a/.env.dev": "SECRET-ENV2",
	}
	for rel, content := range files {
		p := filepath.Join(ws, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(ws, "loupe.db")
	c := sandbox.Confined{Workspace: ws, Guard: guardFor(ws, db, deny(".env*"), deny("**/*.pem")), Hide: []string{db, db + "-wal", db + "-shm"}}
	out := crun(t, c, `cat .env certs/key.pem loupe.db loupe.db-wal loupe.db-shm deep/a/.env.dev src/ok.txt; echo
cp /dev/null loupe.db-wal; echo junk > loupe.db; rm -f loupe.db-shm .env; mv certs/key.pem stolen; echo end`)
	if strings.Contains(out.Text, "SECRET") {
		t.Errorf("a hidden file was read:\n%s", out.Text)
	}
	if !strings.Contains(out.Text, "visible") || !strings.HasSuffix(out.Text, "end\n") {
		t.Errorf("output %q", out.Text)
	}
	for rel, content := range files {
		if b, err := os.ReadFile(filepath.Join(ws, rel)); err != nil || string(b) != content {
			t.Errorf("%s on the host is now %q, %v", rel, b, err)
		}
	}
}

func TestPlanWorkspacePinsParents(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, "a", "b", ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(ws, "a", "b", ".git", "config"), nil, 0o644)
	os.WriteFile(filepath.Join(ws, ".env"), nil, 0o644)
	pins, readOnly, hidden, err := sandbox.PlanWorkspace(ws, guardFor(ws, "", deny(".env*")), []string{filepath.Join(ws, "loupe.db")})
	if err != nil {
		t.Fatal(err)
	}
	j := func(p ...string) string { return filepath.Join(append([]string{ws}, p...)...) }
	for _, got := range []struct {
		name      string
		got, want []string
	}{
		{"pins", pins, []string{j("a"), j("a", "b"), j("a", "b", ".git")}},
		{"read-only", readOnly, []string{j("a", "b", ".git", "config"), j("a", "b", ".git", "hooks")}},
		{"hidden", hidden, []string{j(".env")}},
	} {
		if !slices.Equal(got.got, got.want) {
			t.Errorf("%s\n%v\nwant\n%v", got.name, got.got, got.want)
		}
	}
}

// A command that makes namespaces of its own still cannot undo the view:
// Landlock forbids changing mounts, and mounts carried into a new user
// namespace are locked together by the kernel.
func TestViewCannotBeUnmounted(t *testing.T) {
	needs(t, protections(t).Writes)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Fatal("unshare (util-linux) is needed for this test")
	}
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("keep\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, `
umount .git/config; echo "umount=$?"
mount --bind /tmp .git/hooks; echo "mount=$?"
unshare -Urm sh -c 'umount -l .git/config; echo "inner umount=$?"; echo evil >> .git/config; echo "inner write=$?"; mount -o remount,rw .git/config; echo "inner remount=$?"'
echo evil >> .git/config; echo "write=$?"`)
	t.Logf("%s", out.Text)
	if b, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); string(b) != "keep\n" {
		t.Errorf(".git/config is now %q", b)
	}
	if strings.Contains(out.Text, "umount=0") || strings.Contains(out.Text, "mount=0") {
		t.Errorf("a mount was changed: %s", out.Text)
	}
}

// A repository the command makes (here in a folder of a bigger one, where
// nothing existed to make read-only) is disarmed afterwards when its
// settings would run a program.
func TestNewRepositoryThatRunsProgramsIsDisarmed(t *testing.T) {
	needs(t, protections(t).Writes)
	mono := t.TempDir()
	git(t, mono, "init", "-q")
	ws := filepath.Join(mono, "app")
	os.MkdirAll(ws, 0o755)
	marker := filepath.Join(t.TempDir(), "RAN")
	out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, `git init -q && for d in .gi?; do printf '[core]\n\tfsmonitor = touch `+marker+`\n' >> $d/config; done; mkdir -p sub && cd sub && git init -q && echo '#!/bin/sh' > .git/hooks/post-checkout; echo done`)
	t.Logf("%s", out.Text)
	if !strings.Contains(out.Text, "renamed it to .git.loupe-disarmed") || !strings.Contains(out.Text, "fsmonitor") || !strings.Contains(out.Text, "hook, post-checkout") {
		t.Errorf("output does not say what was disarmed: %q", out.Text)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git")); err == nil {
		t.Fatal("the planted repository is still where git finds it")
	}
	git(t, ws, "status") // as the user would: finds the bigger repository
	git(t, filepath.Join(ws, "sub"), "status")
	if _, err := os.Stat(marker); err == nil {
		t.Error("git ran the planted fsmonitor")
	}
	// A plain `git init` stays as it is.
	ws2 := t.TempDir()
	out = crun(t, sandbox.Confined{Workspace: ws2, Guard: guardFor(ws2, "")}, `git init -q && git -c user.email=a@b -c user.name=n commit -q --allow-empty -m m && echo ok`)
	if _, err := os.Stat(filepath.Join(ws2, ".git", "HEAD")); err != nil || strings.Contains(out.Text, "disarmed") {
		t.Errorf("a plain new repository was touched: %q", out.Text)
	}
}

// core.hooksPath = .husky/_ puts hooks in the working tree, where the guard
// sees plain files: they are read-only too.
func TestHooksInTheWorkingTreeAreReadOnly(t *testing.T) {
	needs(t, protections(t).Writes)
	ws := t.TempDir()
	git(t, ws, "init", "-q")
	os.MkdirAll(filepath.Join(ws, ".husky", "_"), 0o755)
	os.WriteFile(filepath.Join(ws, ".husky", "pre-commit"), []byte("npm test\n"), 0o755)
	git(t, ws, "config", "core.hooksPath", ".husky/_")
	out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, `echo 'touch MARKER' >> .husky/pre-commit; echo x > .husky/_/h; echo end`)
	if b, _ := os.ReadFile(filepath.Join(ws, ".husky", "pre-commit")); string(b) != "npm test\n" {
		t.Errorf("a hook in the working tree was changed: %q (%s)", b, out.Text)
	}
	if _, err := os.Stat(filepath.Join(ws, ".husky", "_", "h")); err == nil {
		t.Error("a hook was added to the working tree's hooks folder")
	}
}

// A workspace that is a linked worktree can commit, and cannot change the
// settings of the repository it belongs to.
func TestLinkedWorktreeWorks(t *testing.T) {
	needs(t, protections(t).Writes)
	main := t.TempDir()
	git(t, main, "init", "-q")
	git(t, main, "commit", "-q", "--allow-empty", "-m", "first")
	ws := filepath.Join(t.TempDir(), "feature")
	git(t, main, "worktree", "add", "-q", "-b", "feature", ws)
	cfg, _ := os.ReadFile(filepath.Join(main, ".git", "config"))
	out := crun(t, sandbox.Confined{Workspace: ws, Guard: guardFor(ws, "")}, `git -c user.email=a@b -c user.name=n commit -q --allow-empty -m inside && git log --format=%s -1
git config core.fsmonitor 'touch MARKER'; echo '../../../../evil' > "$(git rev-parse --git-dir)/commondir"; echo end`)
	t.Logf("%s", out.Text)
	if !strings.HasPrefix(out.Text, "inside\n") {
		t.Errorf("git in a linked worktree: %q", out.Text)
	}
	if b, _ := os.ReadFile(filepath.Join(main, ".git", "config")); string(b) != string(cfg) {
		t.Errorf("the repository's settings changed:\n%s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(main, ".git", "worktrees", "feature", "commondir")); strings.Contains(string(b), "evil") {
		t.Error("the worktree's pointer to its repository was changed")
	}
	git(t, ws, "status")
}
