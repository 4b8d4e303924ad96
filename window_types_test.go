package main

import (
	"bytes"
	"flag"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/localollama"
	"github.com/loupe-dev/loupe/backend/mcp"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/readiness"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/tsgen"
	"github.com/loupe-dev/loupe/backend/workspace"
)

var update = flag.Bool("update", false, "rewrite "+windowTypesFile+" and "+windowJudgements)

// windowTypesFile is the window's copy of the Go types it reads.
const windowTypesFile = "frontend/src/lib/types/go.ts"

// windowTypes declares every Go type the window reads or sends: the bound
// methods with what they take and return, the events' envelope and
// payloads, the deltas and a pull's progress.
func windowTypes() ([]byte, error) {
	g := tsgen.New("github.com/loupe-dev/loupe", ".")
	// Names the window gives these types (two packages' types of one
	// name, or a name that says which part of the app it is).
	for v, name := range map[any]string{
		(*trace.Event)(nil):            "EventEnvelope",
		(*trace.UserMessage)(nil):      "UserMessagePayload",
		(*trace.ModelRequest)(nil):     "ModelRequestPayload",
		(*trace.ModelResponse)(nil):    "ModelResponsePayload",
		(*trace.ToolCall)(nil):         "ToolCallPayload",
		(*trace.Permission)(nil):       "PermissionPayload",
		(*trace.ToolResult)(nil):       "ToolResultPayload",
		(*trace.Notice)(nil):           "NoticePayload",
		(*trace.Error)(nil):            "ErrorPayload",
		(*trace.RunEnd)(nil):           "RunEndPayload",
		(*trace.Checkpoint)(nil):       "CheckpointPayload",
		(*trace.Edit)(nil):             "EditPayload",
		(*trace.Restore)(nil):          "RestorePayload",
		(*trace.Compaction)(nil):       "CompactionPayload",
		(*trace.Pending)(nil):          "PendingRequest",
		(*trace.Split)(nil):            "PromptSplit",
		(*trace.Parts)(nil):            "PromptParts",
		(*trace.Meter)(nil):            "ContextMeter",
		(*llm.ToolCall)(nil):           "LlmToolCall",
		(*permission.Call)(nil):        "PolicyCall",
		(*workspace.Info)(nil):         "WorkspaceInfo",
		(*workspace.Change)(nil):       "WorkspaceChangeFields",
		(*session.Detail)(nil):         "SessionDetail",
		(*session.SystemPrompt)(nil):   "SystemPromptView",
		(*readiness.Report)(nil):       "ReadinessReport",
		(*readiness.Item)(nil):         "ReadinessItem",
		(*localollama.State)(nil):      "LocalOllama",
		(*settings.Settings)(nil):      "SettingsWire",
		(*permission.RuleLimits)(nil):  "RuleLimits",
		(*sandbox.Report)(nil):         "Protections",
		(*sandbox.Protections)(nil):    "ProbedProtections",
		(*Status)(nil):                 "StatusInfo",
		(*trace.Answer)(nil):           "TryAnswer",
		(*trace.AnswerComparison)(nil): "AnswerComparison",
		(*trace.DiffLine)(nil):         "TryDiffLine",
		(*trace.CallPair)(nil):         "TryCallPair",
		(*trace.ArgPair)(nil):          "TryArgPair",
		(*trace.Figure)(nil):           "TryFigure",
		(*trace.Figures)(nil):          "CompareFigures",
		(*trace.Totals)(nil):           "CompareTotals",
		(*trace.Row)(nil):              "CompareRow",
		(*store.Session)(nil):          "StoredSession",
		(*mcp.ServerInfo)(nil):         "MCPServerInfo",
		(*mcp.ToolInfo)(nil):           "MCPToolInfo",
		(*mcp.Reach)(nil):              "MCPReach",
		(*mcp.Grant)(nil):              "MCPGrant",
	} {
		g.Name(v, name)
	}
	// The bound methods (every exported method of App: Wails binds them
	// all), with what they take and return.
	g.Methods("BoundApp", (*App)(nil))
	g.Add(trace.Event{}, trace.Cut{}, agent.Delta{}, ollama.PullProgress{}, FilesWaiting{}, permission.Call{}, session.TryDelta{}, session.Forked{}, session.ForkPreview{})
	// Each kind of command (session.Command), the union the window sends,
	// told apart by do, and each kind's fields (what DecodeCommand takes).
	g.Require(session.Needed)
	var cmds, fields, needs strings.Builder
	cmds.WriteString("/** One thing the window asks of a session (session.Command): do names the kind, the other fields are the kind's. */\nexport type Command =")
	fields.WriteString("/** The fields each kind of command takes besides do (session.DecodeCommand refuses any other). */\nexport const COMMAND_FIELDS = {\n")
	needs.WriteString("/** The fields each kind of command needs (session.Needs: Do refuses the command with one empty); the types above require them. */\nexport const COMMAND_REQUIRED = {\n")
	for _, c := range session.CommandValues() {
		name := commandTypeName(c.Kind())
		g.Name(c, name)
		g.Add(c)
		cmds.WriteString("\n  | ({ do: '" + c.Kind() + "' } & " + name + ")")
		var names []string
		t := reflect.TypeOf(c)
		for i := range t.NumField() {
			n, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			names = append(names, n)
		}
		fields.WriteString("  " + c.Kind() + ": [" + quoted(names) + "],\n")
		needs.WriteString("  " + c.Kind() + ": [" + quoted(session.Needs(c)) + "],\n")
	}
	cmds.WriteString(";")
	fields.WriteString("} as const satisfies Record<Command['do'], readonly string[]>;")
	g.Raw(cmds.String())
	needs.WriteString("} as const satisfies { [K in Command['do']]: readonly (keyof Extract<Command, { do: K }>)[] };")
	g.Raw(fields.String())
	g.Raw(needs.String())
	// The values of the Go constants the window tells apart.
	g.Consts("ERROR_KINDS", "ErrorKind", trace.Event{}, "Err")
	g.Consts("STOP_REASONS", "StopReason", trace.Event{}, "End")
	g.Consts("POINTS", "CheckpointPoint", trace.Event{}, "Point")
	g.Consts("ACTIONS", "ResumeAction", trace.Event{}, "Action")
	g.Consts("EDIT_TARGETS", "EditTarget", trace.Event{}, "Edit")
	g.Consts("METER_SOURCES", "MeterSource", trace.Event{}, "Source")
	g.Consts("STANDINGS", "RunStanding", trace.Event{}, "Standing")
	g.Consts("COMPACT_TRIGGERS", "CompactTrigger", trace.Event{}, "Compact")
	g.Consts("ROUND_OUTCOMES", "RoundOutcome", trace.Event{}, "Outcome")
	g.Consts("CALL_OUTCOMES", "CallOutcome", trace.Event{}, "Call")
	// Each kind's payload, for the TraceEvent union.
	payloads := trace.Payloads()
	kinds := make([]string, 0, len(payloads))
	for k := range payloads {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	var m strings.Builder
	m.WriteString("/** The payload of each kind of event (trace.Payloads). */\nexport interface PayloadMap {\n")
	for _, k := range kinds {
		g.Add(payloads[trace.Kind(k)])
		m.WriteString("  " + k + ": " + g.NameOf(payloads[trace.Kind(k)]) + ";\n")
	}
	m.WriteString("}")
	g.Raw(m.String())
	return g.Write(`// Generated from the Go types by ` + "`go test . -run TestWindowTypes -update`" + `: do not edit.
// Field names are the json tags; an omitempty field is optional (but for a
// field a command needs), and a nil pointer, slice or map arrives as null.
import type { JsonValue } from './json';
`)
}

// TestWindowTypes fails when the window's types are not the Go types as
// they are now: a Go change the window reads must be generated again, and
// then the frontend's type check says what no longer fits.
func TestWindowTypes(t *testing.T) {
	got, err := windowTypes()
	if err != nil {
		t.Fatal(err)
	}
	generated(t, windowTypesFile, got)
}

// generated fails unless file holds got (and writes it with -update).
func generated(t *testing.T, file string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		line := 0
		for line < len(g) && line < len(w) && g[line] == w[line] {
			line++
		}
		at := func(l []string) string {
			if line < len(l) {
				return l[line]
			}
			return "(end of file)"
		}
		t.Fatalf("%s is not what the Go types give (line %d is %q, the Go types give %q): run `go test . -run TestWindowTypes -update`, then `npm run check` in frontend/", file, line+1, at(w), at(g))
	}
}

// quoted is names as the items of a TypeScript list.
func quoted(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "'" + n + "'"
	}
	return strings.Join(out, ", ")
}

// commandTypeName is the TypeScript name of a kind of command:
// "edit_args" → "EditArgsCommand".
func commandTypeName(kind string) string {
	var b strings.Builder
	for _, w := range strings.Split(kind, "_") {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String() + "Command"
}
