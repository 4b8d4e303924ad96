package session_test

// The JSON Schema of a session export (docs/loupe-session.schema.json) is
// written from the Go types an export is encoded from, so it cannot drift
// from them: this test writes it again and compares (`-update` rewrites
// it), and every recording's export is validated against the file
// (checkJSONRoundTrip), by a validator of JSON Schema 2020-12.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/trace"
)

var schemaFile = filepath.Join("..", "..", "docs", "loupe-session.schema.json")

func TestExportSchemaFollowsTheGoTypes(t *testing.T) {
	want := exportSchema()
	b, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *update {
		if err := os.WriteFile(schemaFile, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b) {
		t.Fatalf("%s is not the schema of the Go types an export is written from: run `go test ./backend/session -run TestExportSchema -update` and read the diff (bump the export's version if its shape changed)", schemaFile)
	}
}

// exportSchema is the schema of session.Exported: the envelope written
// here, the session, events' payloads and tool specs from their types.
func exportSchema() map[string]any {
	kinds := []string{}
	defs := map[string]any{}
	var cases []any
	for k, zero := range trace.Payloads() {
		kinds = append(kinds, string(k))
		def := structSchema(reflect.TypeOf(zero), false)
		def["description"] = "The payload of a " + string(k) + " event (backend/trace/event.go). Fields of payloads written by older Loupes are kept as they are."
		defs[string(k)] = def
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		cases = append(cases, map[string]any{
			"if":   map[string]any{"properties": map[string]any{"kind": map[string]any{"const": k}}},
			"then": map[string]any{"properties": map[string]any{"payload": map[string]any{"$ref": "#/$defs/" + k}}},
		})
	}
	sess := structSchema(reflect.TypeFor[session.Summary](), true)
	sess["description"] = "The session's row and what the window shows of it: its id, title, workspace, model, host, tools, the fork or copy it comes from, its Step mode and breakpoints. event_count, open_run and rounds are what its events make them; running and standing are read from the log."
	defs["session"] = sess
	spec := structSchema(reflect.TypeFor[llm.ToolSpec](), true)
	spec["description"] = "One tool as the model was offered it."
	defs["tool_spec"] = spec
	defs["event"] = map[string]any{
		"description":          "One event of the log, as stored: seqs count 1, 2, 3… with no gap.",
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"session_id", "seq", "kind", "time", "run", "round", "payload"},
		"properties": map[string]any{
			"session_id": map[string]any{"type": "string", "minLength": 1},
			"seq":        map[string]any{"type": "integer", "minimum": 1},
			"kind":       map[string]any{"enum": kinds},
			"time":       map[string]any{"type": "string", "format": "date-time"},
			"run":        map[string]any{"type": "integer", "minimum": 0},
			"round":      map[string]any{"type": "integer", "minimum": 0},
			"payload":    map[string]any{"type": "object"},
			"agent":      map[string]any{"type": "string", "description": "The sub-run the event belongs to: the id of the task call that started the sub-agent (a deeper one's is the path of ids, c1/c2); absent for the session's own loop."},
		},
		"allOf": cases,
	}
	return map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"title":                "Loupe session export, format version " + itoa(session.ExportVersion),
		"description":          "A whole Loupe session: what the file is, the session, its log and the tool sets its requests name, in that order. See docs/FORMAT.md. Written from the Go types by backend/session/schema_test.go.",
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"format", "version", "session", "events", "tool_sets"},
		"properties": map[string]any{
			"format":  map[string]any{"const": "loupe-session"},
			"version": map[string]any{"const": session.ExportVersion},
			"session": map[string]any{"$ref": "#/$defs/session"},
			"events":  map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/event"}},
			"tool_sets": map[string]any{
				"description":          "The session's tool sets by the id its requests name them by (model_request.tool_set).",
				"type":                 "object",
				"additionalProperties": false,
				"patternProperties": map[string]any{
					"^[1-9][0-9]*$": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/tool_spec"}},
				},
			},
		},
		"$defs": defs,
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// structSchema is the schema of a struct's JSON object: each field by its
// JSON name (embedded structs' fields in line); strict objects list every
// field written always as required and allow no other.
func structSchema(t reflect.Type, strict bool) map[string]any {
	props := map[string]any{}
	var required []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if f.Anonymous && tag == "" {
				walk(f.Type)
				continue
			}
			if !f.IsExported() || tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name == "" {
				name = f.Name
			}
			omit := strings.Contains(opts, "omitempty")
			props[name] = typeSchema(f.Type, !omit)
			if !omit {
				required = append(required, name)
			}
		}
	}
	walk(t)
	out := map[string]any{"type": "object", "properties": props}
	if strict {
		slices.Sort(required)
		out["required"] = required
		out["additionalProperties"] = false
	}
	return out
}

// typeSchema is what encoding/json writes for t; nullable when a nil
// value is written as null (no omitempty).
func typeSchema(t reflect.Type, nullable bool) map[string]any {
	with := func(typ string) map[string]any {
		if nullable {
			return map[string]any{"type": []string{typ, "null"}}
		}
		return map[string]any{"type": typ}
	}
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == rawType:
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return typeSchema(t.Elem(), nullable)
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		s := with("array")
		if item := typeSchema(t.Elem(), false); len(item) > 0 && t.Elem().Kind() != reflect.Struct {
			s["items"] = item
		}
		return s
	case reflect.Map, reflect.Struct:
		if t.Kind() == reflect.Map {
			return with("object")
		}
		return map[string]any{"type": "object"}
	}
	return map[string]any{}
}

// validateExport checks an export against the schema file.
func validateExport(t *testing.T, export []byte) {
	t.Helper()
	b, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	var v any
	if err := json.Unmarshal(export, &v); err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(v); err != nil {
		t.Fatalf("the export does not follow %s: %v", schemaFile, err)
	}
}
