// Package asuser runs a test as an ordinary user when the tests run as
// root: what some tests check (a folder Loupe's process cannot list) does
// not exist for root, who reads every folder.
package asuser

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Env marks a run of a test binary that Run started as the user nobody.
const Env = "LOUPE_TEST_AS_USER"

// Nobody is the user the test runs as.
const Nobody = 65534

// Run runs the calling top-level test in a copy of this test binary as the
// user nobody (65534), through setpriv, when the tests run as root. It
// reports whether the caller is that run (or the tests run as an ordinary
// user already) and should do the test's work; otherwise the test's
// outcome is the child's, which is logged.
func Run(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return true
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("the tests run as root and setpriv (util-linux) is not installed, so this cannot run as an ordinary user, the only one for whom a folder can be unreadable")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A folder nobody can reach: the go tool builds the test binary in a
	// folder only root can enter.
	dir, err := os.MkdirTemp("", "loupe-as-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, filepath.Base(self))
	if err := copyFile(self, exe); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, Nobody, Nobody); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--",
		exe, "-test.run", "^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Dir = home
	cmd.Env = append(os.Environ(), Env+"=1", "HOME="+home, "TMPDIR=/tmp")
	b, err := cmd.CombinedOutput()
	t.Logf("as user nobody:\n%s", b)
	if err != nil {
		t.Fatalf("the test failed as user nobody: %v", err)
	}
	if strings.Contains(string(b), "--- SKIP") {
		t.Skip("skipped as user nobody (see the log)")
	}
	return false
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
