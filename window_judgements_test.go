package main

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/session"
)

// windowJudgements is where the window's specs and the demo read what Go
// judges (a rule's check, the protections of a machine, the tool list):
// the replay bridge answers checkRule, protections and tools from it, so
// that no spec needs a TypeScript copy of the judgement.
const windowJudgements = "frontend/src/lib/replay/judgements.json"

// judgedRules are the rules the specs and the demo show: the rule
// editor's examples, and rules of each kind with and without a problem.
var judgedRules = []permission.Rule{
	{Effect: "allow", Command: "go test ./..."},
	{Effect: "allow", Command: "git log *"},
	{Effect: "ask", Command: "git push *"},
	{Effect: "deny", Command: "rm *"},
	{Effect: "deny", Path: ".env*"},
	{Effect: "deny", Path: "**/*.pem"},
	{Effect: "allow", Tool: "write_file", Path: "docs/**"},
	{Effect: "allow", Command: "ls *"},
	{Effect: "allow", Command: "rm *"},
	{Effect: "allow", Command: "go build && rm -rf x"},
	{Effect: "deny", Tool: "write_file", Path: "docs/**"},
	{Effect: "deny", Path: "*.pem"},
	{Effect: "deny", Path: "secrets/key.txt"},
	{Effect: "deny", Command: "cat *.pem secrets/key.txt"},
	{Effect: "allow", Command: "ls"},
	{Effect: "allow", Command: "make test"},
	{Effect: "allow", Command: "npm test"},
	{Effect: "deny", Command: "cat .env"},
	{Effect: "deny", Path: ".env"},
	{Effect: "deny", Path: "secrets/**"},
	{Effect: "deny", Path: "keys/**"},
	{Effect: "deny", Tool: "run_command", Path: "secrets/**"},
	{Effect: "deny", Tool: "read_file", Path: "private/**"},
	{Effect: "ask", Path: "docs/**"},
	{Effect: "ask", CommandLine: "make   deploy"},
	{Effect: "deny", Tool: "run_command"},
	{Effect: "deny"},
	{Effect: "allow", Command: "go test && rm -rf x"},
	{Effect: "allow", Command: "ls | sh"},
	{Effect: "allow", Command: "echo $(id)"},
	{Effect: "allow", Command: "echo 'open"},
	{Effect: "allow", Command: "* foo"},
	{Effect: "allow", Command: "ls", Path: "a"},
	{Effect: "allow", Tool: "read_file", Command: "ls"},
	{Effect: "deny", Path: "/"},
	{Effect: "deny", Path: "src/[ab"},
	{Effect: "permit", Command: "ls"},
}

// machine is a machine whose every protection is as the probe finds it
// on a Linux with Landlock ABI 6 and user namespaces, changed by edit.
func machine(edit func(*sandbox.Protections)) sandbox.Report {
	p := sandbox.Protections{
		LandlockABI: 6,
		Writes:      sandbox.Protection{Name: "Writes", Active: true, Detail: "only the workspace and a temporary directory are writable (Landlock ABI 6)"},
		Network:     sandbox.Protection{Name: "Network", Active: true, Detail: "blocked: a network namespace with only a loopback interface"},
		Processes:   sandbox.Protection{Name: "Processes", Active: true, Detail: "a PID namespace: nothing a command starts outlives it"},
		Secrets:     sandbox.Protection{Name: "Secrets", Active: true, Detail: "a command sees the workspace, the system's directories and a private home: nothing of your home"},
		Sockets:     sandbox.Protection{Name: "Sockets", Active: true, Detail: "no Unix socket outside the sandbox is reachable: abstract sockets are per network namespace"},
		IPC:         sandbox.Protection{Name: "IPC", Active: true, Detail: "a command has System V shared memory, message queues and semaphores and POSIX message queues of its own (IPC namespace); still shared with the machine: the clock"},
		Limits:      sandbox.Protection{Name: "Limits", Active: true, Detail: "files up to 1024 MiB, 8 GiB of memory per process, at most 2048 processes"},
	}
	if edit != nil {
		edit(&p)
	}
	return p.Report()
}

func unconfined(why string) func(*sandbox.Protections) {
	return func(p *sandbox.Protections) {
		p.LandlockABI = 0
		p.Writes = sandbox.Protection{Name: "Writes", Detail: why}
		p.Network = sandbox.Protection{Name: "Network", Detail: "no network namespace and no Landlock network rules"}
		p.Processes = sandbox.Protection{Name: "Processes", Detail: "no PID namespace: user namespaces are disabled"}
		p.Secrets = sandbox.Protection{Name: "Secrets", Detail: "no mount namespace; only the environment is scrubbed"}
		p.Sockets = sandbox.Protection{Name: "Sockets", Detail: "Unix sockets outside the sandbox (tmux, ssh-agent, D-Bus, Docker) are reachable: no mount namespace"}
		p.IPC = sandbox.Protection{Name: "IPC", Detail: "shared memory, message queues and semaphores of your other programs are reachable: no IPC namespace"}
		p.Limits = sandbox.Protection{Name: "Limits", Active: true, Detail: "files up to 1024 MiB, 8 GiB of memory per process, no core dumps"}
	}
}

type judgedRule struct {
	Rule  permission.Rule      `json:"rule"`
	Check permission.RuleCheck `json:"check"`
}

func judgements() ([]byte, error) {
	rules := make([]judgedRule, len(judgedRules))
	for i, r := range judgedRules {
		rules[i] = judgedRule{r, r.Check()}
	}
	out := struct {
		Tools    []session.ToolInfo        `json:"tools"`
		Rules    []judgedRule              `json:"rules"`
		Machines map[string]sandbox.Report `json:"machines"`
	}{
		Tools: session.BuiltinTools(),
		Rules: rules,
		Machines: map[string]sandbox.Report{
			"sandboxed":              machine(nil),
			"unconfined":             machine(unconfined("Landlock is not available (the kernel does not support it)")),
			"unconfined_no_landlock": machine(unconfined("Landlock is not available")),
			"no_sockets": machine(func(p *sandbox.Protections) {
				p.Sockets = sandbox.Protection{Name: "Sockets", Detail: "abstract Unix sockets outside are reachable"}
			}),
			"no_writes_sockets": machine(func(p *sandbox.Protections) {
				p.Writes = sandbox.Protection{Name: "Writes", Detail: "writes anywhere your user can write are allowed: no Landlock"}
				p.Sockets = sandbox.Protection{Name: "Sockets", Detail: "Unix sockets outside the sandbox are reachable"}
			}),
			"no_limits": machine(func(p *sandbox.Protections) {
				p.Limits = sandbox.Protection{Name: "Limits", Detail: "no process limit"}
			}),
		},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// TestWindowJudgements fails when the judgements the window's specs read
// are not what Go judges now. Regenerate with
// go test . -run TestWindowJudgements -update.
func TestWindowJudgements(t *testing.T) {
	got, err := judgements()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(windowJudgements, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(windowJudgements)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what Go judges now: run `go test . -run TestWindowJudgements -update` and read the diff", windowJudgements)
	}
}
