package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// startAndWait runs script as a started process of c in ws with grants,
// to its end, and returns its stderr; err is Start's or Confirm's.
func startAndWait(t *testing.T, c Confined, ws, script string, grants ...string) (string, error) {
	t.Helper()
	p, err := c.Start(context.Background(), []string{"sh", "-c", script}, ws, nil, grants)
	if err != nil {
		return "", err
	}
	defer p.Release()
	var stderr strings.Builder
	p.Cmd.Stderr = &stderr
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := p.Confirm(); err != nil {
		return stderr.String(), err
	}
	_ = p.Cmd.Wait()
	return stderr.String(), nil
}

// Attack: where the kernel gives no mount namespace (Landlock alone), a
// server granted the whole workspace could write .git/config and hooks,
// which only a read-only mount protects. Unless the user chose to run
// with what there is (BestEffort), such a server does not start. With
// BestEffort it starts, and writes its grant (Landlock can let it write
// only folders that are there: its cache folder was never made, so no
// server started at all on such a machine).
func TestAdversaryStartWithLandlockAlone(t *testing.T) {
	needs(t, protections(t).Writes)
	ws := t.TempDir()
	if b, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, b)
	}
	os.Mkdir(filepath.Join(ws, "out"), 0o755)
	cfg, _ := os.ReadFile(filepath.Join(ws, ".git", "config"))
	landlockAlone := func(pr *probeResult) {
		pr.best.MountNS = false
		pr.prot.Writes = Protection{Name: "Writes", Detail: "test: writes stay in the workspace, but protected paths are writable: no mount namespace"}
	}
	_, err := startAndWait(t, Confined{Workspace: ws, adjust: landlockAlone}, ws,
		`printf '[core]\n\tfsmonitor = touch /tmp/x\n' >> .git/config; echo '#!/bin/sh' > .git/hooks/pre-commit`, ".")
	if !errors.Is(err, ErrNotConfined) {
		t.Errorf("not in best-effort mode, a server without a view of its own: %v, want ErrNotConfined", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); string(b) != string(cfg) {
		t.Errorf("a server refused changed .git/config")
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "hooks", "pre-commit")); err == nil {
		t.Errorf("a server refused made a hook")
	}

	stderr, err := startAndWait(t, Confined{Workspace: ws, adjust: landlockAlone, BestEffort: true}, ws,
		`echo b > out/granted.txt; echo a > denied.txt`, "out")
	if err != nil {
		t.Fatalf("best effort, Landlock alone: %v (%s)", err, stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "out", "granted.txt")); err != nil {
		t.Errorf("the granted write did not land: %v (%s)", err, stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "denied.txt")); err == nil {
		t.Errorf("the server wrote outside its grant (%s)", stderr)
	}
}
