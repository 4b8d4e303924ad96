// Package tools holds the tools the agent can call: the Tool interface, a
// Registry that lists them in a stable order and checks a call's arguments
// against the tool's JSON schema before it runs, and the built-in tools,
// which reach files only through a Workspace.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Tool is something the model can call.
type Tool interface {
	// Spec is the tool's name, its description for the model and the JSON
	// schema of its arguments.
	Spec() llm.ToolSpec
	// ReadOnly tools only read; they may run without asking.
	ReadOnly() bool
	// Run runs the tool with arguments that passed Registry.Check. A
	// returned error means the tool failed while running; the agent shows
	// it to the model as "NAME failed: ...". A Result with IsError is an
	// outcome the tool reports itself (say, a command's nonzero exit).
	Run(ctx context.Context, args json.RawMessage) (Result, error)
}

// Previewer is implemented by tools that change something: Preview says
// what Run would do (the diff, the command), without doing it, for the
// approval card.
type Previewer interface {
	Preview(ctx context.Context, args json.RawMessage) (trace.Display, error)
}

// Result is the outcome of a tool run.
type Result struct {
	// Content is exactly what the model sees.
	Content   string
	IsError   bool
	Truncated bool
	ExitCode  *int
	// Display is for the UI only (a diff, a command).
	Display *trace.Display
	// Changes are the files the tool changed, with their content before
	// and after, for undo.
	Changes []trace.FileChange
	// Notice is for the user, recorded after the result (an MCP server
	// that crashed or hung, with its log's tail).
	Notice *trace.Notice
}

// CallError says why a call was refused before running: the tool does not
// exist (trace.ErrUnknownTool) or the arguments do not fit its schema
// (trace.ErrInvalidArgs). Message is written for the model.
type CallError struct {
	Kind    string
	Message string
}

func (e *CallError) Error() string { return e.Message }

// schemaFor builds a tool's argument schema from its input struct. The
// struct's `jsonschema` tags are the property descriptions; adjust may add
// bounds.
func schemaFor[T any](adjust func(props map[string]*jsonschema.Schema)) json.RawMessage {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("tools: schema for %T: %v", *new(T), err))
	}
	if adjust != nil {
		adjust(s.Properties)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tools: encode schema for %T: %v", *new(T), err))
	}
	return b
}

// describe renders a tool's description template. Descriptions are text
// for the model, so text/template: nothing is HTML-escaped.
func describe(name, src string, data any) string {
	t, err := template.New(name).Option("missingkey=error").Parse(src)
	if err != nil {
		panic(fmt.Sprintf("tools: description of %s: %v", name, err))
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		panic(fmt.Sprintf("tools: description of %s: %v", name, err))
	}
	return strings.TrimSpace(b.String())
}

// decode unmarshals arguments that passed Check into the tool's input.
func decode[T any](name string, args json.RawMessage) (T, error) {
	var in T
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, fmt.Errorf("invalid arguments for %s: %v", name, err)
	}
	return in, nil
}
