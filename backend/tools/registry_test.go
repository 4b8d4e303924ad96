package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

var builtinNames = []string{"read_file", "write_file", "edit_file", "list_dir", "glob", "grep", "run_command"}

func TestBuiltinsOrderAndSpecs(t *testing.T) {
	ws, _ := newWorkspace(t, nil)
	reg := Builtins(ws, nil)
	if got := reg.Names(); !slices.Equal(got, builtinNames) {
		t.Fatalf("Names() = %v, want %v", got, builtinNames)
	}
	specs := reg.Specs()
	for i, s := range specs {
		if s.Name != builtinNames[i] {
			t.Errorf("Specs()[%d] = %s, want %s", i, s.Name, builtinNames[i])
		}
		if s.Description == "" || strings.Contains(s.Description, "{{") || strings.Contains(s.Description, "<no value>") {
			t.Errorf("%s: description not rendered: %q", s.Name, s.Description)
		}
		if strings.Contains(s.Description, "&#") || strings.Contains(s.Description, "&lt;") {
			t.Errorf("%s: description is HTML-escaped: %q", s.Name, s.Description)
		}
	}
	// Rendered numbers come from the Go constants.
	if !strings.Contains(specs[0].Description, "2000 lines") {
		t.Errorf("read_file description lacks its line limit: %q", specs[0].Description)
	}
	if !strings.Contains(specs[6].Description, "default 120000, at most 600000") {
		t.Errorf("run_command description lacks its timeouts: %q", specs[6].Description)
	}
}

func TestSchemasHaveExactlyTheArgumentNames(t *testing.T) {
	want := map[string]struct{ props, required []string }{
		"read_file":   {[]string{"path", "offset", "limit"}, []string{"path"}},
		"write_file":  {[]string{"path", "content"}, []string{"path", "content"}},
		"edit_file":   {[]string{"path", "old_string", "new_string", "replace_all"}, []string{"path", "old_string", "new_string"}},
		"list_dir":    {[]string{"path"}, []string{"path"}},
		"glob":        {[]string{"pattern"}, []string{"pattern"}},
		"grep":        {[]string{"pattern", "path", "include"}, []string{"pattern"}},
		"run_command": {[]string{"command", "timeout_ms"}, []string{"command"}},
	}
	ws, _ := newWorkspace(t, nil)
	for _, s := range Builtins(ws, nil).Specs() {
		var schema struct {
			Type       string `json:"type"`
			Properties map[string]struct {
				Type        string `json:"type"`
				Description string `json:"description"`
			} `json:"properties"`
			Required             []string `json:"required"`
			AdditionalProperties *bool    `json:"additionalProperties"`
		}
		if err := json.Unmarshal(s.Parameters, &schema); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		order, err := propertyOrder(s.Parameters)
		if err != nil {
			t.Fatal(err)
		}
		w := want[s.Name]
		if !slices.Equal(order, w.props) {
			t.Errorf("%s properties = %v, want %v", s.Name, order, w.props)
		}
		if !slices.Equal(schema.Required, w.required) {
			t.Errorf("%s required = %v, want %v", s.Name, schema.Required, w.required)
		}
		if schema.Type != "object" || schema.AdditionalProperties == nil || *schema.AdditionalProperties {
			t.Errorf("%s: type %q additionalProperties %v; want a closed object", s.Name, schema.Type, schema.AdditionalProperties)
		}
		for name, p := range schema.Properties {
			if p.Description == "" {
				t.Errorf("%s.%s has no description", s.Name, name)
			}
			if p.Type == "" {
				t.Errorf("%s.%s has no single type", s.Name, name)
			}
		}
	}
}

func TestReadOnlyAndPreviewers(t *testing.T) {
	ws, _ := newWorkspace(t, nil)
	readOnly := []string{"read_file", "list_dir", "glob", "grep"}
	previews := []string{"write_file", "edit_file", "run_command"}
	for _, tool := range Builtins(ws, nil).Tools() {
		name := tool.Spec().Name
		if got := tool.ReadOnly(); got != slices.Contains(readOnly, name) {
			t.Errorf("%s ReadOnly() = %v", name, got)
		}
		_, ok := tool.(Previewer)
		if ok != slices.Contains(previews, name) {
			t.Errorf("%s implements Previewer: %v", name, ok)
		}
	}
}

func TestCheck(t *testing.T) {
	ws, _ := newWorkspace(t, nil)
	reg := Builtins(ws, nil)
	const readSig = "; expected {path: string, offset?: integer, limit?: integer}"
	tests := []struct {
		name, tool, args string
		kind, message    string // kind "" means valid
	}{
		{"valid", "read_file", `{"path":"a.txt"}`, "", ""},
		{"valid all", "read_file", `{"path":"a.txt","offset":3,"limit":10}`, "", ""},
		{"null optional is absent", "read_file", `{"path":"a.txt","offset":null}`, "", ""},
		{"valid bool", "edit_file", `{"path":"a","old_string":"x","new_string":"y","replace_all":true}`, "", ""},
		{"unknown tool", "read", `{}`, trace.ErrUnknownTool,
			"unknown tool read; available: read_file, write_file, edit_file, list_dir, glob, grep, run_command"},
		{"missing required", "read_file", `{}`, trace.ErrInvalidArgs,
			`invalid arguments for read_file: missing required property "path"` + readSig},
		{"empty args", "read_file", ``, trace.ErrInvalidArgs,
			`invalid arguments for read_file: missing required property "path"` + readSig},
		{"wrong type", "read_file", `{"path":5}`, trace.ErrInvalidArgs,
			`invalid arguments for read_file: "path" must be a string, got number (5)` + readSig},
		{"integer as string", "read_file", `{"path":"a","offset":"5"}`, trace.ErrInvalidArgs,
			`invalid arguments for read_file: "offset" must be an integer, got string ("5")` + readSig},
		{"fraction", "read_file", `{"path":"a","limit":2.5}`, trace.ErrInvalidArgs,
			`invalid arguments for read_file: "limit" must be an integer, got number (2.5)` + readSig},
		{"extra property", "read_file", `{"path":"a","file":"b"}`, trace.ErrInvalidArgs,
			`invalid arguments for read_file: unknown property "file"` + readSig},
		{"several problems", "read_file", `{"file":"b","limit":"x"}`, trace.ErrInvalidArgs,
			`invalid arguments for read_file: unknown property "file", missing required property "path", "limit" must be an integer, got string ("x")` + readSig},
		{"null required", "read_file", `{"path":null}`, trace.ErrInvalidArgs,
			`invalid arguments for read_file: "path" must be a string, got null` + readSig},
		{"below minimum", "read_file", `{"path":"a","limit":0}`, trace.ErrInvalidArgs,
			`invalid arguments for read_file: "limit" must be at least 1, got 0` + readSig},
		{"above maximum", "run_command", `{"command":"ls","timeout_ms":600001}`, trace.ErrInvalidArgs,
			`invalid arguments for run_command: "timeout_ms" must be at most 600000, got 600001; expected {command: string, timeout_ms?: integer}`},
		{"not an object", "glob", `["*.go"]`, trace.ErrInvalidArgs,
			`invalid arguments for glob: the arguments must be a JSON object, not array; expected {pattern: string}`},
		{"bad json", "glob", `{"pattern":`, trace.ErrInvalidArgs,
			`invalid arguments for glob: the arguments are not valid JSON (unexpected EOF); expected {pattern: string}`},
		{"trailing data", "glob", `{"pattern":"*"} {}`, trace.ErrInvalidArgs,
			`invalid arguments for glob: the arguments are not valid JSON (more data after the object); expected {pattern: string}`},
		{"bool as string", "edit_file", `{"path":"a","old_string":"x","new_string":"y","replace_all":"true"}`, trace.ErrInvalidArgs,
			`invalid arguments for edit_file: "replace_all" must be a boolean, got string ("true"); expected {path: string, old_string: string, new_string: string, replace_all?: boolean}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, cerr := reg.Check(tt.tool, json.RawMessage(tt.args))
			if tt.kind == "" {
				if cerr != nil {
					t.Fatalf("Check: %s", cerr.Message)
				}
				if tool.Spec().Name != tt.tool {
					t.Errorf("Check returned %s", tool.Spec().Name)
				}
				return
			}
			if cerr == nil {
				t.Fatal("Check accepted the call")
			}
			if tool != nil {
				t.Error("Check returned a tool with an error")
			}
			if cerr.Kind != tt.kind || cerr.Message != tt.message {
				t.Errorf("got %s: %s\nwant %s: %s", cerr.Kind, cerr.Message, tt.kind, tt.message)
			}
		})
	}
}

// TestCheckRunsBeforeTheTool proves that a call refused by Check is never
// run: the registry hands out no tool, so a caller has nothing to run.
func TestCheckRunsBeforeTheTool(t *testing.T) {
	ran := false
	reg, err := NewRegistry(fakeTool{name: "probe", run: func() { ran = true }})
	if err != nil {
		t.Fatal(err)
	}
	if tool, cerr := reg.Check("probe", json.RawMessage(`{"x":1}`)); cerr == nil || tool != nil {
		t.Fatalf("Check accepted bad args: %v", cerr)
	}
	if ran {
		t.Error("the tool ran")
	}
	tool, cerr := reg.Check("probe", json.RawMessage(`{"n":1}`))
	if cerr != nil {
		t.Fatal(cerr.Message)
	}
	if _, err := tool.Run(context.Background(), nil); err != nil || !ran {
		t.Errorf("run: %v, ran %v", err, ran)
	}
}

type fakeTool struct {
	name   string
	schema string
	run    func()
}

func (f fakeTool) Spec() llm.ToolSpec {
	s := f.schema
	if s == "" {
		s = `{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}`
	}
	return llm.ToolSpec{Name: f.name, Description: "fake", Parameters: json.RawMessage(s)}
}
func (fakeTool) ReadOnly() bool { return true }
func (f fakeTool) Run(context.Context, json.RawMessage) (Result, error) {
	if f.run != nil {
		f.run()
	}
	return Result{Content: "ok"}, nil
}

func TestNewRegistryRefusesBadTools(t *testing.T) {
	tests := []struct {
		name  string
		tools []Tool
	}{
		{"duplicate", []Tool{fakeTool{name: "a"}, fakeTool{name: "a"}}},
		{"no name", []Tool{fakeTool{}}},
		{"not an object schema", []Tool{fakeTool{name: "a", schema: `{"type":"string"}`}}},
		{"invalid schema JSON", []Tool{fakeTool{name: "a", schema: `{"type":`}}},
	}
	for _, tt := range tests {
		if _, err := NewRegistry(tt.tools...); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

func TestOpenSchemaAllowsExtraProperties(t *testing.T) {
	reg, err := NewRegistry(fakeTool{name: "open", schema: `{"type":"object","properties":{"n":{"type":"integer"}}}`})
	if err != nil {
		t.Fatal(err)
	}
	if _, cerr := reg.Check("open", json.RawMessage(`{"n":1,"extra":true}`)); cerr != nil {
		t.Errorf("open schema refused an extra property: %s", cerr.Message)
	}
}

func TestCheckFallsBackToSchemaValidator(t *testing.T) {
	// Constraints Check does not handle itself (here an enum) are still
	// enforced, by the schema validator.
	reg, err := NewRegistry(fakeTool{name: "mode", schema: `{"type":"object","properties":{"m":{"type":"string","enum":["a","b"]}},"required":["m"]}`})
	if err != nil {
		t.Fatal(err)
	}
	_, cerr := reg.Check("mode", json.RawMessage(`{"m":"c"}`))
	if cerr == nil || cerr.Kind != trace.ErrInvalidArgs || !strings.Contains(cerr.Message, "expected {m: string}") {
		t.Errorf("got %+v", cerr)
	}
	if _, cerr := reg.Check("mode", json.RawMessage(`{"m":"a"}`)); cerr != nil {
		t.Errorf("valid enum refused: %s", cerr.Message)
	}
}

func TestSubset(t *testing.T) {
	ws, _ := newWorkspace(t, nil)
	reg := Builtins(ws, nil)
	sub := reg.Subset("grep", "read_file", "no_such_tool")
	if got := sub.Names(); !slices.Equal(got, []string{"read_file", "grep"}) {
		t.Errorf("Subset names = %v; want registry order [read_file grep]", got)
	}
	if len(sub.Specs()) != 2 {
		t.Errorf("Subset specs: %d", len(sub.Specs()))
	}
	_, cerr := sub.Check("write_file", json.RawMessage(`{"path":"a","content":""}`))
	if cerr == nil || cerr.Kind != trace.ErrUnknownTool || cerr.Message != "unknown tool write_file; available: read_file, grep" {
		t.Errorf("Check on subset: %+v", cerr)
	}
	if _, ok := sub.Get("grep"); !ok {
		t.Error("Get(grep) on subset")
	}
	if got := reg.Names(); len(got) != 7 {
		t.Errorf("Subset changed the original: %v", got)
	}
}

func TestCallErrorIsError(t *testing.T) {
	var err error = &CallError{Kind: trace.ErrInvalidArgs, Message: "m"}
	if err.Error() != "m" {
		t.Errorf("Error() = %q", err.Error())
	}
}
