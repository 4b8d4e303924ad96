// Package interop reads the session files of other coding agents (Claude
// Code's JSONL transcripts, Codex CLI's rollout files, ATIF trajectories)
// and turns them into Loupe events, which the caller stores. It is a pure
// converter: a reader in, events and the session's description out, with
// no store and no session behind it.
//
// Each converter is tolerant of fields it does not know and strict about
// the structure it needs: a line that is not JSON, a record without the
// fields that make it what it says it is, is an *Error naming the line
// (or, for ATIF, the byte and the JSON Pointer) and what is wrong. What a
// converter understands the structure of but has no Loupe event for (an
// unknown record type, an image, a block of a kind it does not map) is
// kept as a notice event that names it and holds its raw JSON: nothing in
// the file is dropped without a word.
//
// The events keep the invariants of a log Loupe writes itself: each run
// starts with a user_message and ends with a run_end, each answer follows
// a model_request (rebuilt: the file does not say what was sent, only
// what the conversation was), and each tool_call gets exactly one
// tool_result before its run ends; a call the file has no result for
// gets an "interrupted" result and a notice that says so.
package interop

import (
	"fmt"
	"time"

	"github.com/loupe-dev/loupe/backend/trace"
)

// Sources: the formats this package reads, as a session's source names
// them.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
	ATIF       = "atif"
)

// Sources lists the formats read here.
var Sources = []string{ClaudeCode, Codex, ATIF}

// SourceName is how the window and the CLI name a source.
func SourceName(src string) string {
	switch src {
	case ClaudeCode:
		return "Claude Code"
	case Codex:
		return "Codex CLI"
	case ATIF:
		return "an ATIF trajectory"
	}
	return src
}

// Meta describes the session a file holds, as far as the file says.
type Meta struct {
	// Source is ClaudeCode, Codex or ATIF; SourceID the session's id in
	// that program ("" when the file has none).
	Source   string
	SourceID string
	// Title is the file's summary, or the first thing the user asked.
	Title string
	// Workspace is the folder the agent worked in ("" when not said).
	Workspace string
	// Model is the model of the session's last answer.
	Model string
	// Created and Updated are the times of the first and last events.
	Created, Updated time.Time
	// Agent names the program and its version, as the file says
	// ("claude-code 2.0.14").
	Agent string
}

// Sink takes what a converter makes, in order: Start once, before the
// first event, with the session as far as it is known then (its source
// id when the file says it first, which it does in every format but an
// ATIF file whose steps come before its session_id); then each event,
// numbered from 1, with its run, round and time.
type Sink interface {
	Start(Meta) error
	Event(trace.Event) error
}

// Error is a file a converter cannot read, with where the problem is.
type Error struct {
	Source string
	// Line is the line of a JSONL file (from 1), 0 for ATIF.
	Line int
	// Offset and Pointer say where in an ATIF file (its byte, the JSON
	// Pointer of the value).
	Offset  int64
	Pointer string
	Problem string
}

func (e *Error) Error() string {
	what := SourceName(e.Source)
	if e.Source == ATIF {
		what = "ATIF trajectory"
	}
	switch {
	case e.Line > 0:
		return fmt.Sprintf("not imported: line %d of the %s file: %s; nothing was written", e.Line, what, e.Problem)
	case e.Pointer != "":
		return fmt.Sprintf("not imported: the %s, at byte %d (%s): %s; nothing was written", what, e.Offset, e.Pointer, e.Problem)
	}
	return fmt.Sprintf("not imported: the %s file: %s; nothing was written", what, e.Problem)
}

// Notice codes of what an import keeps without a Loupe event of its own.
const (
	// CodeImported opens every imported log: where it comes from.
	CodeImported = "imported"
	// CodeUnknown is a record, block or field the converter does not
	// map; the notice holds its raw JSON.
	CodeUnknown = "imported_unknown"
	// CodeNoResult is a call the file has no result for: Loupe gives it
	// an interrupted result.
	CodeNoResult = "imported_no_result"
	// CodeStray is a result for a call the file never made.
	CodeStray = "imported_stray_result"
	// CodeNoUser is a run the file opens with the agent, not the user.
	CodeNoUser = "imported_no_user_message"
	// CodeKept is something the file says that Loupe shows as a notice
	// (a summary of compacted history, an aborted turn, a sub-agent's
	// record, a system message of the agent).
	CodeKept = "imported_note"
)
