package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Registry is an ordered set of tools. Its order is the order the model
// sees them in, and it never changes. A Registry is immutable and safe for
// concurrent use.
type Registry struct {
	entries []*entry
	byName  map[string]*entry
}

// entry is a tool with its schema prepared for checking calls.
type entry struct {
	tool      Tool
	spec      llm.ToolSpec
	schema    *jsonschema.Schema
	resolved  *jsonschema.Resolved
	order     []string // property names in schema order
	required  map[string]bool
	signature string // e.g. {path: string, offset?: integer}
}

// NewRegistry makes a registry of tools in the given order. It fails if
// two tools share a name or a tool's schema is not a usable object schema.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{byName: make(map[string]*entry, len(tools))}
	for _, t := range tools {
		e, err := newEntry(t)
		if err != nil {
			return nil, err
		}
		if _, dup := r.byName[e.spec.Name]; dup {
			return nil, fmt.Errorf("tools: two tools are named %q", e.spec.Name)
		}
		r.entries = append(r.entries, e)
		r.byName[e.spec.Name] = e
	}
	return r, nil
}

func newEntry(t Tool) (*entry, error) {
	spec := t.Spec()
	if spec.Name == "" {
		return nil, errors.New("tools: a tool has no name")
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(spec.Parameters, &s); err != nil {
		return nil, fmt.Errorf("tools: schema of %s: %w", spec.Name, err)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("tools: schema of %s: type is %q, want \"object\"", spec.Name, s.Type)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("tools: schema of %s: %w", spec.Name, err)
	}
	order, err := propertyOrder(spec.Parameters)
	if err != nil {
		return nil, fmt.Errorf("tools: schema of %s: %w", spec.Name, err)
	}
	e := &entry{tool: t, spec: spec, schema: &s, resolved: rs, order: order, required: map[string]bool{}}
	for _, name := range s.Required {
		e.required[name] = true
	}
	parts := make([]string, 0, len(order))
	for _, name := range order {
		opt := "?"
		if e.required[name] {
			opt = ""
		}
		parts = append(parts, fmt.Sprintf("%s%s: %s", name, opt, typeName(s.Properties[name])))
	}
	e.signature = "{" + strings.Join(parts, ", ") + "}"
	return e, nil
}

// propertyOrder reads the names under "properties" in the order the schema
// JSON lists them (a Go map would lose it).
func propertyOrder(schema json.RawMessage) ([]string, error) {
	var top struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &top); err != nil || len(top.Properties) == 0 {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(top.Properties))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		names = append(names, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// forbidsExtra reports "additionalProperties": false, which the schema
// package reads as {"not": {}}. Other additionalProperties schemas are left
// to the validator.
func forbidsExtra(s *jsonschema.Schema) bool {
	ap := s.AdditionalProperties
	if ap == nil || ap.Not == nil {
		return false
	}
	b, err := json.Marshal(ap)
	return err == nil && string(b) == "false"
}

func typeName(s *jsonschema.Schema) string {
	switch {
	case s == nil:
		return "any"
	case s.Type != "":
		return s.Type
	case len(s.Types) > 0:
		return strings.Join(s.Types, "|")
	}
	return "any"
}

// Names lists the tools' names in order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.entries))
	for i, e := range r.entries {
		names[i] = e.spec.Name
	}
	return names
}

// Tools lists the tools in order.
func (r *Registry) Tools() []Tool {
	ts := make([]Tool, len(r.entries))
	for i, e := range r.entries {
		ts[i] = e.tool
	}
	return ts
}

// Get returns the tool with this name.
func (r *Registry) Get(name string) (Tool, bool) {
	e, ok := r.byName[name]
	if !ok {
		return nil, false
	}
	return e.tool, true
}

// Specs returns the tools' specs in order, for the model request.
func (r *Registry) Specs() []llm.ToolSpec {
	specs := make([]llm.ToolSpec, len(r.entries))
	for i, e := range r.entries {
		specs[i] = e.spec
	}
	return specs
}

// Subset returns a registry with only the named tools, in this registry's
// order (not the order of names). Names it does not have are ignored;
// compare Names() when that matters.
func (r *Registry) Subset(names ...string) *Registry {
	sub := &Registry{byName: map[string]*entry{}}
	for _, e := range r.entries {
		if slices.Contains(names, e.spec.Name) {
			sub.entries = append(sub.entries, e)
			sub.byName[e.spec.Name] = e
		}
	}
	return sub
}

// Check finds the tool and checks that args fit its schema, before
// anything runs. The CallError's message is written for the model: what
// is wrong and what was expected.
func (r *Registry) Check(name string, args json.RawMessage) (Tool, *CallError) {
	e, ok := r.byName[name]
	if !ok {
		return nil, &CallError{
			Kind:    trace.ErrUnknownTool,
			Message: fmt.Sprintf("unknown tool %s; available: %s", name, strings.Join(r.Names(), ", ")),
		}
	}
	if problem := e.check(args); problem != "" {
		return nil, &CallError{
			Kind:    trace.ErrInvalidArgs,
			Message: fmt.Sprintf("invalid arguments for %s: %s; expected %s", name, problem, e.signature),
		}
	}
	return e.tool, nil
}

// check returns what is wrong with args, or "".
func (e *entry) check(args json.RawMessage) string {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Sprintf("the arguments are not valid JSON (%v)", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "the arguments are not valid JSON (more data after the object)"
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "the arguments must be a JSON object, not " + jsonType(v)
	}

	var problems []string
	var unknown []string
	for k := range obj {
		if _, known := e.schema.Properties[k]; !known {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	if len(unknown) > 0 && forbidsExtra(e.schema) {
		for _, k := range unknown {
			problems = append(problems, fmt.Sprintf("unknown property %q", k))
		}
	}
	for _, name := range e.order {
		val, present := obj[name]
		if present && val == nil && !e.required[name] {
			// Some models send null for an optional argument they
			// mean to leave out; treat it as left out.
			delete(obj, name)
			present = false
		}
		if !present {
			if e.required[name] {
				problems = append(problems, fmt.Sprintf("missing required property %q", name))
			}
			continue
		}
		if p := checkValue(name, e.schema.Properties[name], val); p != "" {
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		return strings.Join(problems, ", ")
	}

	// Whatever else the schema says (enums, patterns, ...) is checked by
	// the schema validator itself, on plain JSON values.
	var plain map[string]any
	b, _ := json.Marshal(obj)
	_ = json.Unmarshal(b, &plain)
	if err := e.resolved.Validate(plain); err != nil {
		msg := err.Error()
		msg = strings.ReplaceAll(msg, "validating root: ", "")
		msg = strings.ReplaceAll(msg, "validating /properties/", "")
		return msg
	}
	return ""
}

// checkValue checks the type and bounds of one property's value (v as
// decoded with UseNumber).
func checkValue(name string, s *jsonschema.Schema, v any) string {
	if s == nil {
		return ""
	}
	want := s.Types
	if s.Type != "" {
		want = []string{s.Type}
	}
	got := jsonType(v)
	if len(want) > 0 && !slices.ContainsFunc(want, func(t string) bool { return fits(t, v) }) {
		return fmt.Sprintf("%q must be %s, got %s%s", name, article(strings.Join(want, " or ")), got, short(v))
	}
	if n, ok := v.(json.Number); ok {
		f, err := n.Float64()
		if err != nil {
			return fmt.Sprintf("%q is not a usable number: %s", name, n)
		}
		if s.Minimum != nil && f < *s.Minimum {
			return fmt.Sprintf("%q must be at least %s, got %s", name, num(*s.Minimum), n)
		}
		if s.Maximum != nil && f > *s.Maximum {
			return fmt.Sprintf("%q must be at most %s, got %s", name, num(*s.Maximum), n)
		}
	}
	return ""
}

// fits reports whether v is of JSON schema type t. Integers must be
// written as integers (5, not 5.0) so they decode into Go ints.
func fits(t string, v any) bool {
	switch t {
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		_, err := strconv.ParseInt(n.String(), 10, 64)
		return err == nil
	case "number":
		_, ok := v.(json.Number)
		return ok
	default:
		return jsonType(v) == t
	}
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func article(t string) string {
	if t != "" && strings.ContainsRune("aeiou", rune(t[0])) {
		return "an " + t
	}
	return "a " + t
}

// short shows a value briefly in a message.
func short(v any) string {
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return " (" + s + ")"
}

func num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
