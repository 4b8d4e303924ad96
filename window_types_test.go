package main

import (
	"bytes"
	"flag"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/localollama"
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

// windowTypes declares every Go type the window reads or sends: what the
// bound methods take and return, the events' envelope and payloads, the
// deltas and a pull's progress.
func windowTypes() ([]byte, error) {
	g := tsgen.New("github.com/loupe-dev/loupe", ".")
	// Names the window gives these types (two packages' types of one
	// name, or a name that says which part of the app it is).
	for v, name := range map[any]string{
		(*trace.Event)(nil):           "EventEnvelope",
		(*trace.UserMessage)(nil):     "UserMessagePayload",
		(*trace.ModelRequest)(nil):    "ModelRequestPayload",
		(*trace.ModelResponse)(nil):   "ModelResponsePayload",
		(*trace.ToolCall)(nil):        "ToolCallPayload",
		(*trace.Permission)(nil):      "PermissionPayload",
		(*trace.ToolResult)(nil):      "ToolResultPayload",
		(*trace.Notice)(nil):          "NoticePayload",
		(*trace.Error)(nil):           "ErrorPayload",
		(*trace.RunEnd)(nil):          "RunEndPayload",
		(*trace.Checkpoint)(nil):      "CheckpointPayload",
		(*trace.Edit)(nil):            "EditPayload",
		(*trace.Restore)(nil):         "RestorePayload",
		(*trace.Compaction)(nil):      "CompactionPayload",
		(*trace.Pending)(nil):         "PendingRequest",
		(*trace.Split)(nil):           "PromptSplit",
		(*trace.Parts)(nil):           "PromptParts",
		(*trace.Meter)(nil):           "ContextMeter",
		(*llm.ToolCall)(nil):          "LlmToolCall",
		(*permission.Call)(nil):       "PolicyCall",
		(*workspace.Info)(nil):        "WorkspaceInfo",
		(*workspace.Change)(nil):      "WorkspaceChangeFields",
		(*session.Detail)(nil):        "SessionDetail",
		(*session.SystemPrompt)(nil):  "SystemPromptView",
		(*readiness.Report)(nil):      "ReadinessReport",
		(*readiness.Item)(nil):        "ReadinessItem",
		(*localollama.State)(nil):     "LocalOllama",
		(*settings.Settings)(nil):     "SettingsWire",
		(*permission.RuleLimits)(nil): "RuleLimitsWire",
		(*sandbox.Report)(nil):        "Protections",
		(*sandbox.Protections)(nil):   "ProbedProtections",
		(*Status)(nil):                "StatusInfo",
	} {
		g.Name(v, name)
	}
	g.Add(
		trace.Event{}, trace.Cut{}, agent.Delta{}, ollama.PullProgress{},
		// The bound methods' parameters and results (app.go).
		Status{}, HostCheck{}, ollama.ModelInfo{}, ollama.Connection{},
		session.SystemPrompt{}, session.Summary{}, session.Detail{}, session.Outcome{},
		session.RenderedPrompt{}, session.ModelCheck{}, readiness.Report{},
		settings.Settings{}, store.SearchFilter{}, store.SearchResults{}, store.SearchStatus{},
		workspace.Info{}, workspace.Change{}, sandbox.Report{},
		permission.Rule{}, permission.RuleLimits{}, permission.RuleCheck{}, permission.Call{}, agent.RequestEdit{},
		session.ToolInfo{}, session.Fork{}, session.Forked{}, session.ForkPreview{},
	)
	// Each kind of command (session.Command), and the union the window
	// sends, told apart by do.
	var cmds strings.Builder
	cmds.WriteString("/** One thing the window asks of a session (session.Command): do names the kind. */\nexport type CommandWire =")
	for _, c := range session.CommandValues() {
		name := commandTypeName(c.Kind())
		g.Name(c, name)
		g.Add(c)
		cmds.WriteString("\n  | ({ do: '" + c.Kind() + "' } & " + name + ")")
	}
	cmds.WriteString(";")
	g.Raw(cmds.String())
	// The values of the Go constants the window tells apart.
	g.Consts("ERROR_KINDS", "ErrorKind", trace.Event{}, "Err")
	g.Consts("STOP_REASONS", "StopReason", trace.Event{}, "End")
	g.Consts("POINTS", "CheckpointPoint", trace.Event{}, "Point")
	g.Consts("ACTIONS", "ResumeAction", trace.Event{}, "Action")
	g.Consts("EDIT_TARGETS", "EditTarget", trace.Event{}, "Edit")
	g.Consts("METER_SOURCES", "MeterSource", trace.Event{}, "Source")
	g.Consts("STANDINGS", "RunStanding", trace.Event{}, "Standing")
	g.Consts("COMPACT_TRIGGERS", "CompactTrigger", trace.Event{}, "Compact")
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
// Field names are the json tags; an omitempty field is optional, and a nil
// pointer, slice or map arrives as null.
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
	if *update {
		if err := os.WriteFile(windowTypesFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(windowTypesFile)
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
		t.Fatalf("%s is not what the Go types give (line %d is %q, the Go types give %q): run `go test . -run TestWindowTypes -update`, then `npm run check` in frontend/", windowTypesFile, line+1, at(w), at(g))
	}
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
