package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A long-lived process (an MCP server) started by Start: the workspace is
// read-only to it but for what it was granted.
func TestStartedProcessWritesOnlyGrants(t *testing.T) {
	needs(t, protections(t).Writes)
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := Confined{Workspace: ws, BestEffort: true}
	p, err := c.Start(context.Background(), []string{"sh", "-c", "echo a > denied.txt; echo b > out/granted.txt"}, ws, nil, []string{"out"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	var stderr strings.Builder
	p.Cmd.Stderr = &stderr
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := p.Confirm(); err != nil {
		t.Fatal(err)
	}
	_ = p.Cmd.Wait()
	if _, err := os.Stat(filepath.Join(ws, "denied.txt")); err == nil {
		t.Errorf("the process wrote to the workspace outside its grants (%s)", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(ws, "out", "granted.txt")); err != nil {
		t.Errorf("the granted write did not land: %v (%s)", err, stderr.String())
	}
}

// A grant outside the workspace, or of a path that is not there, is
// refused with what to do; nothing starts.
func TestStartRefusesGrantsOutsideTheWorkspace(t *testing.T) {
	ws := t.TempDir()
	c := Confined{Workspace: ws, BestEffort: true}
	for grant, want := range map[string]string{t.TempDir(): "outside the workspace", "missing": "cannot be found"} {
		_, err := c.Start(context.Background(), []string{"true"}, ws, nil, []string{grant})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("grant %s: %v, want %q", grant, err, want)
		}
	}
}

// A helper that does not confine itself (here a program that is no
// helper) makes Confirm fail with ErrNotConfined and the reason: the
// caller says that, not that its server exited.
func TestStartConfirmSaysWhenConfinementFailed(t *testing.T) {
	protections(t)
	ws := t.TempDir()
	c := Confined{Workspace: ws, BestEffort: true, Helper: "/bin/true"}
	p, err := c.Start(context.Background(), []string{"sleep", "60"}, ws, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = p.Confirm()
	if !errors.Is(err, ErrNotConfined) || !strings.Contains(err.Error(), "without a report") {
		t.Fatalf("Confirm: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("Confirm took %v", time.Since(start))
	}
}
