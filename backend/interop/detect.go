package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Loupe is Loupe's own export (docs/FORMAT.md), which Detect also knows.
const Loupe = "loupe"

// Formats are the names --from takes.
var Formats = []string{ClaudeCode, Codex, ATIF, Loupe}

// peekSize is how much of a file Detect reads to tell its format: its
// first line, or the start of its first object.
const peekSize = 1 << 20

// NewReader is a reader for Detect and then the converter.
func NewReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, peekSize) }

// Detect tells the format of the file br reads from its start, without
// consuming it: Loupe, ClaudeCode, Codex or ATIF, or an error that says
// what the file seems to be instead.
func Detect(br *bufio.Reader) (string, error) {
	head, err := br.Peek(peekSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", err
	}
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	if len(trimmed) == 0 {
		return "", errors.New("not imported: the file is empty; nothing was written")
	}
	if trimmed[0] != '{' {
		return "", errors.New("not imported: this is not a session file Loupe knows (a Loupe export, a Claude Code or Codex CLI session, an ATIF trajectory): it does not start with a JSON object; nothing was written")
	}
	first := trimmed
	if i := bytes.IndexByte(trimmed, '\n'); i >= 0 {
		first = trimmed[:i]
	}
	if json.Valid(first) {
		if f := ofLine(first); f != "" {
			return f, nil
		}
		return "", errors.New("not imported: the file is JSON, but its first record is not one of a Loupe export, a Claude Code or Codex CLI session or an ATIF trajectory; name the format with --from if it is one of them; nothing was written")
	}
	// One object over many lines: the first members tell.
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if _, err := dec.Token(); err != nil {
		return "", fmt.Errorf("not imported: not valid JSON: %v; nothing was written", err)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		switch t {
		case "format":
			return Loupe, nil
		case "schema_version", "steps":
			return ATIF, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			break
		}
	}
	return "", errors.New("not imported: the file is one JSON object, but neither a Loupe export (it starts with \"format\") nor an ATIF trajectory (it has \"schema_version\"); nothing was written")
}

// ofLine tells the format of a file whose first line is the JSON object
// line, "" when it is none Loupe reads.
func ofLine(line []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return ""
	}
	var typ string
	_ = json.Unmarshal(m["type"], &typ)
	_, payload := m["payload"]
	switch {
	case has(m, "format") && typ == "":
		return Loupe
	case has(m, "schema_version"):
		return ATIF
	case payload && (typ == "session_meta" || typ == "response_item" || typ == "event_msg" || typ == "turn_context" || typ == "compacted"):
		return Codex
	case has(m, "sessionId") || has(m, "parentUuid") || typ == "summary" || typ == "file-history-snapshot" || (typ == "user" || typ == "assistant") && has(m, "message"):
		return ClaudeCode
	case typ == "" && has(m, "id") && has(m, "timestamp") && (has(m, "instructions") || len(m) == 2):
		return Codex // a rollout written before session_meta
	case isItemType(typ):
		return Codex
	}
	return ""
}

func has(m map[string]json.RawMessage, k string) bool { _, ok := m[k]; return ok }

// Convert reads the file r holds in format from (not Loupe) into sink.
// fallback is the time of events a file gives none for before any other.
func Convert(from string, r io.Reader, sink Sink, fallback time.Time) (Meta, error) {
	var read func(io.Reader, Sink, time.Time) (Meta, error)
	switch from {
	case ClaudeCode:
		read = readClaudeCode
	case Codex:
		read = readCodex
	case ATIF:
		read = readATIF
	default:
		return Meta{}, fmt.Errorf("import: %q is not a format Loupe converts (it reads %v)", from, Sources)
	}
	m, err := read(r, sink, fallback)
	var se *sinkError
	if errors.As(err, &se) {
		err = se.err
	}
	return m, err
}
