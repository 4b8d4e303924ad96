package mcp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// faultBin is the in-repo misbehaving server (testkit/cmd/mcpfault),
// built once for the package's tests.
var faultBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpfault")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	faultBin = filepath.Join(dir, "mcpfault")
	out, err := exec.Command("go", "build", "-o", faultBin, "github.com/loupe-dev/loupe/testkit/cmd/mcpfault").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building mcpfault: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// npmServer is the entry point of a server installed by scripts/deps.sh
// into testkit/mcpservers (run with node, offline).
func npmServer(t testing.TB, pkg string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "testkit", "mcpservers", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not installed: run scripts/deps.sh (it installs testkit/mcpservers): %v", pkg, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is needed to run %s: %v", pkg, err)
	}
	return p
}
