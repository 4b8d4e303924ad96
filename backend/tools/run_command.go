package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/trace"
)

const (
	runDefaultTimeout = 120_000 // ms
	runMaxTimeout     = 600_000 // ms
	runOutputCap      = 32 << 10
)

//go:embed run_command.md
var runCommandDoc string

type runCommandInput struct {
	Command   string `json:"command" jsonschema:"the shell command to run"`
	TimeoutMs int    `json:"timeout_ms,omitempty" jsonschema:"time limit in milliseconds (default 120000, maximum 600000)"`
}

var runCommandSpec = llm.ToolSpec{
	Name: "run_command",
	Description: describe("run_command", runCommandDoc, map[string]any{
		"DefaultMs": runDefaultTimeout, "MaxMs": runMaxTimeout, "HalfKB": runOutputCap >> 11,
	}),
	Parameters: schemaFor[runCommandInput](func(p map[string]*jsonschema.Schema) {
		p["timeout_ms"].Minimum = jsonschema.Ptr(1.0)
		p["timeout_ms"].Maximum = jsonschema.Ptr(float64(runMaxTimeout))
	}),
}

type runCommand struct {
	ws  *Workspace
	run sandbox.Runner
}

func (runCommand) Spec() llm.ToolSpec { return runCommandSpec }
func (runCommand) ReadOnly() bool     { return false }

func (t runCommand) input(args json.RawMessage) (runCommandInput, error) {
	in, err := decode[runCommandInput]("run_command", args)
	if err != nil {
		return in, err
	}
	if strings.TrimSpace(in.Command) == "" {
		return in, errors.New("command is empty")
	}
	return in, nil
}

func (t runCommand) Preview(_ context.Context, args json.RawMessage) (trace.Display, error) {
	in, err := t.input(args)
	if err != nil {
		return trace.Display{}, err
	}
	return trace.Display{Command: in.Command, Path: t.ws.Dir()}, nil
}

func (t runCommand) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	in, err := t.input(args)
	if err != nil {
		return Result{}, err
	}
	ms := in.TimeoutMs
	if ms <= 0 {
		ms = runDefaultTimeout
	}
	ms = min(ms, runMaxTimeout)
	timeout := time.Duration(ms) * time.Millisecond
	c := sandbox.Command{
		Dir:       t.ws.Dir(),
		Script:    in.Command,
		Timeout:   timeout,
		OutputCap: runOutputCap,
	}
	if r := roundOf(ctx); r != nil {
		// What the command leaves is checked once the round's parallel
		// calls have all ended (Round.End), not while they run.
		c.Sweep = r.commandSweep()
	}
	if send := OutputOf(ctx); send != nil {
		// The window shows the output as it comes, as much of it as the
		// model will get.
		live := newOutputStream(send, runOutputCap)
		defer live.close()
		c.OnOutput = live.write
	}
	out, err := t.run.Run(ctx, c)
	if err != nil {
		return Result{}, err
	}
	// The user stopped this one call: the run goes on, and the model
	// learns that it was stopped, not that it failed or timed out.
	stopped := out.Cancelled && errors.Is(context.Cause(ctx), ErrStopped)

	var b strings.Builder
	b.WriteString(out.Text)
	if out.Text == "" {
		b.WriteString("(no output)\n")
	} else if !strings.HasSuffix(out.Text, "\n") {
		b.WriteByte('\n')
	}
	switch {
	case stopped:
		fmt.Fprintf(&b, "stopped by the user after %.1f s; the command and everything it started were killed\n", out.Duration.Seconds())
	case out.TimedOut:
		fmt.Fprintf(&b, "timed out after %v; the command and everything it started were killed\n", timeout)
	case out.Cancelled:
		b.WriteString("cancelled; the command and everything it started were killed\n")
	}
	if out.Truncated {
		fmt.Fprintf(&b, "[output was %d bytes; the middle was left out]\n", out.TotalBytes)
	}
	fmt.Fprintf(&b, "exit code %d", out.ExitCode)
	code := out.ExitCode
	return Result{
		Content:   b.String(),
		IsError:   out.ExitCode != 0 || out.TimedOut || out.Cancelled,
		Truncated: out.Truncated,
		ExitCode:  &code,
		Display:   &trace.Display{Command: in.Command, Path: t.ws.Dir()},
	}, nil
}
