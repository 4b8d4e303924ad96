package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/loupe-dev/loupe/backend/llm"
)

// TaskName is the sub-agent tool's name.
const TaskName = "task"

// SubAgentTools are the tools a sub-agent gets when its task call names
// none: those that only read.
var SubAgentTools = []string{"read_file", "list_dir", "glob", "grep"}

// SubAgentRounds is the round cap a sub-agent's run gets unless the
// session says otherwise; it is said in the tool's description.
const SubAgentRounds = 10

// TaskMaxBytes caps a sub-agent's answer as the parent reads it.
const TaskMaxBytes = 32 << 10

//go:embed task.md
var taskDoc string

// TaskInput is what a task call asks for.
type TaskInput struct {
	Prompt string   `json:"prompt" jsonschema:"the goal for the sub-agent, complete in itself: it does not see this conversation"`
	Tools  []string `json:"tools,omitempty" jsonschema:"the tools the sub-agent may use (default: read_file, list_dir, glob, grep)"`
}

var taskSpec = llm.ToolSpec{
	Name: TaskName,
	Description: describe(TaskName, taskDoc, map[string]any{
		"Default": strings.Join(SubAgentTools, ", "), "Rounds": SubAgentRounds, "KB": TaskMaxBytes >> 10}),
	Parameters: schemaFor[TaskInput](func(props map[string]*jsonschema.Schema) {
		props["prompt"].MinLength = new(1)
	}),
}

// Delegate runs a sub-agent for one task call: the agent gives it to the
// call (WithDelegate), since the nested run is its own loop's.
type Delegate func(ctx context.Context, in TaskInput) (Result, error)

type delegateKey struct{}

// WithDelegate gives the task tool run with ctx the loop that runs its
// sub-agent.
func WithDelegate(ctx context.Context, d Delegate) context.Context {
	return context.WithValue(ctx, delegateKey{}, d)
}

// taskTool is the sub-agent tool: it hands its prompt to a nested run of
// the same loop (see agent), which its call's context carries.
type taskTool struct{}

func (taskTool) Spec() llm.ToolSpec { return taskSpec }

// ReadOnly: the task call itself changes nothing; each call its
// sub-agent makes is decided on its own, by the same policy.
func (taskTool) ReadOnly() bool { return true }

func (taskTool) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	in, err := decode[TaskInput](TaskName, args)
	if err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return Result{}, errors.New("the prompt is empty: say what the sub-agent should find or do")
	}
	d, _ := ctx.Value(delegateKey{}).(Delegate)
	if d == nil {
		return Result{}, errors.New("sub-agents cannot run here")
	}
	return d(ctx, in)
}

// WithTask is reg with the task tool after its own: the registry of a
// session that offers sub-agents.
func WithTask(reg *Registry) *Registry {
	e, err := newEntry(taskTool{})
	if err != nil {
		// The task schema is ours: a failure is a programming error.
		panic(fmt.Sprintf("tools: %v", err))
	}
	out := &Registry{entries: append(slices.Clip(reg.entries), e), byName: make(map[string]*entry, len(reg.entries)+1)}
	for _, x := range out.entries {
		out.byName[x.spec.Name] = x
	}
	return out
}

// CapAnswer cuts a sub-agent's answer to TaskMaxBytes, on a character's
// boundary, saying so; it reports whether it cut.
func CapAnswer(s string) (string, bool) {
	if len(s) <= TaskMaxBytes {
		return s, false
	}
	return cutUTF8(s, TaskMaxBytes) + "\n[loupe: the sub-agent's answer was cut here, after about 32 KB]", true
}
