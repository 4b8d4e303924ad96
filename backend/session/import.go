package session

// Import reads a JSON export (exportjson.go, docs/FORMAT.md) back into the
// database. The file is streamed: the decoder reads it token by token and
// one event at a time, each event written as soon as it is checked, so a
// file of any size costs the memory of its largest event. Everything is
// written in one transaction (store.Import): a file refused at its last
// byte leaves the database as it was.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"time"

	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// What an import does with a session whose id the database holds already.
const (
	// ImportKeepID (the default) keeps the file's id, and is refused with
	// a ClashError when that id is taken (once the whole file has been
	// read and found good: a bad file is refused for what is wrong).
	ImportKeepID = ""
	// ImportAsNew stores the session under a new id: both are kept.
	ImportAsNew = "as_new"
	// ImportSkip leaves the database as it is and imports nothing.
	ImportSkip = "skip"
)

// ImportResult is what an import did.
type ImportResult struct {
	// Session is the imported session as stored (when skipped: the one
	// the database already had under that id).
	Session Summary `json:"session"`
	// Skipped is set when the session was there already and ImportSkip
	// left it.
	Skipped bool `json:"skipped"`
	// Events is how many events were imported.
	Events int `json:"events"`
	// Clash is set, and nothing imported, when the window's import finds
	// the session there already (Manager.Import).
	Clash *Clash `json:"clash,omitempty"`
	// Notices say what of the file was not taken as it is (the Ollama
	// host it names, say).
	Notices []trace.Notice `json:"notices,omitempty"`
}

// ClashError is an import refused because the database has a session
// with the file's id already: import it as new (both kept) or skip it.
type ClashError struct {
	ID string
	// Title is the title of the session the database has.
	Title string
}

func (e *ClashError) Error() string {
	return fmt.Sprintf("session %s (%q) is in this database already: import it as a new session to keep both, or skip it", e.ID, e.Title)
}

// ImportError is a file that is not a session export Loupe can take back,
// with where in the file the problem is.
type ImportError struct {
	// Offset is the byte offset in the file of the value that is wrong
	// (where its reading began), or where the file ends.
	Offset int64
	// Pointer is the JSON Pointer of that value ("/events/17/seq"), ""
	// for the file as a whole.
	Pointer string
	// Seq is the seq of the event concerned, 0 when none.
	Seq     int64
	Problem string
}

func (e *ImportError) Error() string {
	where := fmt.Sprintf("byte %d", e.Offset)
	if e.Pointer != "" {
		where += ", " + e.Pointer
	}
	if e.Seq > 0 {
		where += fmt.Sprintf(", event %d", e.Seq)
	}
	return fmt.Sprintf("not imported: %s (at %s); nothing was written", e.Problem, where)
}

// The members of an export, in the order they are written and read.
var exportMembers = []string{"format", "version", "session", "events", "tool_sets"}

// importer reads one file.
type importer struct {
	ctx context.Context
	st  *store.Store
	dec *json.Decoder
	how string

	sum Summary
	id  string // the file's session id
	im  *store.Import
	// clashed: the database has the file's id and how is ImportKeepID.
	// The file is still read to its end, under a new id in the
	// transaction that is then rolled back, so that a file that could
	// not be imported anyway says so instead of asking what to do.
	clashed bool

	res ImportResult

	// What the events so far leave to check: the calls of the open run
	// with no result yet (by call id, the seqs of its calls), and the
	// tool sets the requests name (by id, the first request).
	open     map[string][]int64
	openRun  int
	needSets map[int]int64
	lastSeq  int64
	haveSets map[int]bool
	payload  bytes.Buffer
}

// Import reads a session export from r and stores it (see ImportKeepID,
// ImportAsNew and ImportSkip for how). A file that is not one Loupe can
// take back whole is an *ImportError, an id in use with ImportKeepID a
// *ClashError, and either leaves the database as it was.
func Import(ctx context.Context, st *store.Store, r io.Reader, how string) (ImportResult, error) {
	switch how {
	case ImportKeepID, ImportAsNew, ImportSkip:
	default:
		return ImportResult{}, fmt.Errorf("import: unknown choice %q for a session that is there already", how)
	}
	dec := json.NewDecoder(r)
	// Fields this Loupe does not know would be dropped, and the session
	// would not come back whole: a file that has them was not written
	// by this version of the format. Payloads are kept as they are.
	dec.DisallowUnknownFields()
	p := &importer{ctx: ctx, st: st, dec: dec, how: how, open: map[string][]int64{}, needSets: map[int]int64{}, haveSets: map[int]bool{}}
	err := p.read()
	if p.im != nil {
		p.im.Rollback() // after a Commit, nothing
	}
	if err != nil && !errors.Is(err, errSkipped) {
		return ImportResult{}, err
	}
	return p.res, nil
}

func (p *importer) fail(off int64, ptr string, seq int64, format string, args ...any) error {
	return &ImportError{Offset: off, Pointer: ptr, Seq: seq, Problem: fmt.Sprintf(format, args...)}
}

// decodeErr turns what the decoder says of the value at ptr (read from
// off) into an ImportError.
func (p *importer) decodeErr(err error, off int64, ptr string, seq int64) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return p.fail(p.dec.InputOffset(), ptr, seq, "the file ends in the middle of the export: it was cut short (copy or download it again)")
	case errors.As(err, &syn):
		return p.fail(syn.Offset, ptr, seq, "not valid JSON: %v", syn)
	case errors.As(err, &typ):
		at := ptr
		if typ.Field != "" {
			at += "/" + jsonPointerPath(typ.Field)
		}
		return p.fail(typ.Offset, at, seq, "a %s where the format has a %s", typ.Value, typ.Type)
	}
	return p.fail(off, ptr, seq, "%v", err)
}

// jsonPointerPath writes a decoder's field path ("a.b") as pointer tokens.
func jsonPointerPath(field string) string {
	return string(bytes.ReplaceAll([]byte(field), []byte("."), []byte("/")))
}

func (p *importer) token(ptr string) (json.Token, error) {
	off := p.dec.InputOffset()
	t, err := p.dec.Token()
	if err != nil {
		return nil, p.decodeErr(err, off, ptr, 0)
	}
	return t, nil
}

func (p *importer) read() error {
	t, err := p.dec.Token()
	if errors.Is(err, io.EOF) {
		return p.fail(0, "", 0, "the file is empty")
	}
	if err != nil {
		return p.decodeErr(err, 0, "", 0)
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return p.fail(0, "", 0, "this is not a Loupe session export: it is JSON, but %s, not an object that starts with \"format\": %q", describeToken(t), exportFormat)
	}
	next := 0
	for p.dec.More() {
		off := p.dec.InputOffset()
		t, err := p.token("")
		if err != nil {
			return err
		}
		key, _ := t.(string)
		ptr := "/" + key
		if next == 0 && key != "format" {
			return p.fail(off, ptr, 0, "this is not a Loupe session export: its first member is %q, and a Loupe export starts with \"format\": %q", key, exportFormat)
		}
		i := indexOf(exportMembers, key)
		switch {
		case i < 0:
			return p.fail(off, ptr, 0, "%q is not a member of a Loupe session export (version %d has %v)", key, ExportVersion, exportMembers)
		case i < next:
			return p.fail(off, ptr, 0, "%q appears twice, or after %q", key, exportMembers[next-1])
		case i > next:
			return p.fail(off, ptr, 0, "%q comes where %q should: an export holds %v in that order", key, exportMembers[next], exportMembers)
		}
		next++
		if err := p.member(key, ptr); err != nil {
			return err
		}
	}
	if next < len(exportMembers) {
		return p.fail(p.dec.InputOffset(), "", 0, "the export has no %q", exportMembers[next])
	}
	if _, err := p.token(""); err != nil { // the closing brace
		return err
	}
	end := p.dec.InputOffset()
	if t, err := p.dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil {
			return p.decodeErr(err, end, "", 0)
		}
		return p.fail(end, "", 0, "something follows the end of the export (%s): is it two files in one?", describeToken(t))
	}
	return p.finish()
}

func (p *importer) member(key, ptr string) error {
	off := p.dec.InputOffset()
	switch key {
	case "format":
		var f string
		if err := p.dec.Decode(&f); err != nil {
			return p.decodeErr(err, off, ptr, 0)
		}
		if f != exportFormat {
			return p.fail(off, ptr, 0, "this is not a Loupe session export: its format is %q, not %q", f, exportFormat)
		}
	case "version":
		var v int
		if err := p.dec.Decode(&v); err != nil {
			return p.decodeErr(err, off, ptr, 0)
		}
		switch {
		case v > ExportVersion:
			return p.fail(off, ptr, 0, "written by a newer Loupe: format version %d, and this Loupe reads version %d; update Loupe to import it", v, ExportVersion)
		case v < ExportVersion:
			return p.fail(off, ptr, 0, "format version %d is older than the one this Loupe imports (%d): export the session again with this Loupe", v, ExportVersion)
		}
	case "session":
		if err := p.dec.Decode(&p.sum); err != nil {
			return p.decodeErr(err, off, ptr, 0)
		}
		return p.begin(off)
	case "events":
		return p.events(ptr)
	case "tool_sets":
		return p.toolSets(ptr)
	}
	return nil
}

// begin decides what to do with the session (its id may be taken) and
// opens the import's transaction.
func (p *importer) begin(off int64) error {
	s := p.sum.Session
	if s.ID == "" {
		return p.fail(off, "/session/id", 0, "the session has no id")
	}
	if s.CreatedAt.IsZero() || s.UpdatedAt.IsZero() {
		return p.fail(off, "/session", 0, "the session has no created_at or updated_at")
	}
	if (s.ForkedFrom == "") != (s.ForkSeq == 0) {
		return p.fail(off, "/session/fork_seq", 0, "a fork names both the session it was forked from and the event (forked_from %q, fork_seq %d)", s.ForkedFrom, s.ForkSeq)
	}
	p.id = s.ID
	in := s
	host, err := p.host(s.Host)
	if err != nil {
		return err
	}
	in.Host = host
	taken, err := p.st.Exists(p.ctx, s.ID)
	if err != nil {
		return err
	}
	if taken {
		switch p.how {
		case ImportSkip:
			return p.skip()
		case ImportAsNew:
			in.ID = ""
		default:
			in.ID, p.clashed = "", true
		}
	}
	var stepping string
	bp := p.sum.Breakpoints
	if p.sum.Stepping || len(bp.Points) > 0 || len(bp.Tools) > 0 {
		b, err := json.Marshal(debugState{Stepping: p.sum.Stepping, Breakpoints: bp.normal()})
		if err != nil {
			return err
		}
		stepping = string(b)
	}
	p.im, err = p.st.BeginImport(p.ctx, in, stepping)
	if errors.Is(err, store.ErrExists) {
		// Taken between the look and the write (another import).
		return p.clash()
	}
	return err
}

// errSkipped ends the reading of a file whose session is skipped.
var errSkipped = errors.New("skipped")

func (p *importer) skip() error {
	s, err := p.st.GetSession(p.ctx, p.id)
	if err != nil {
		return err
	}
	p.res = ImportResult{Session: Summary{Session: s}, Skipped: true}
	return errSkipped
}

func (p *importer) clash() error {
	s, err := p.st.GetSession(p.ctx, p.id)
	if err != nil {
		return err
	}
	return &ClashError{ID: s.ID, Title: s.Title}
}

// importedEvent is an event as the file holds it: the stored fields, and
// nothing a log does not hold (no preview).
type importedEvent struct {
	SessionID string          `json:"session_id"`
	Seq       int64           `json:"seq"`
	Kind      trace.Kind      `json:"kind"`
	Time      time.Time       `json:"time"`
	Run       int             `json:"run"`
	Round     int             `json:"round"`
	Payload   json.RawMessage `json:"payload"`
	Agent     string          `json:"agent,omitempty"`
}

func (p *importer) events(ptr string) error {
	t, err := p.token(ptr)
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != '[' {
		return p.fail(p.dec.InputOffset(), ptr, 0, "the events are not a list (%s)", describeToken(t))
	}
	kinds := trace.Payloads()
	for i := 0; p.dec.More(); i++ {
		if err := p.ctx.Err(); err != nil {
			return err
		}
		at := fmt.Sprintf("%s/%d", ptr, i)
		off := p.dec.InputOffset()
		var e importedEvent
		if err := p.dec.Decode(&e); err != nil {
			return p.decodeErr(err, off, at, p.lastSeq+1)
		}
		if err := p.event(e, off, at, kinds); err != nil {
			return err
		}
	}
	_, err = p.token(ptr) // the closing bracket
	return err
}

func (p *importer) event(e importedEvent, off int64, at string, kinds map[trace.Kind]any) error {
	seq := e.Seq
	switch {
	case e.SessionID != p.id:
		return p.fail(off, at+"/session_id", seq, "the event is of session %q, and the file's session is %q", e.SessionID, p.id)
	case seq == p.lastSeq && seq > 0:
		return p.fail(off, at+"/seq", seq, "seq %d appears twice (the event before has it too)", seq)
	case seq != p.lastSeq+1:
		return p.fail(off, at+"/seq", seq, "seq %d where %d should be: a log's seqs count 1, 2, 3… with no gap", seq, p.lastSeq+1)
	case e.Time.IsZero():
		return p.fail(off, at+"/time", seq, "the event has no time")
	case e.Run < 0 || e.Round < 0:
		return p.fail(off, at, seq, "run %d, round %d: neither can be negative", e.Run, e.Round)
	case len(e.Payload) == 0:
		return p.fail(off, at+"/payload", seq, "the event has no payload")
	}
	zero, ok := kinds[e.Kind]
	if !ok {
		return p.fail(off, at+"/kind", seq, "%q is not a kind of event this Loupe knows", e.Kind)
	}
	// The payload as compact JSON: the file's indentation is not the
	// payload's, and a second export indents it the same way again.
	p.payload.Reset()
	if err := json.Compact(&p.payload, e.Payload); err != nil {
		return p.fail(off, at+"/payload", seq, "not valid JSON: %v", err)
	}
	payload := p.payload.Bytes()
	typed := reflect.New(reflect.TypeOf(zero))
	if err := json.Unmarshal(payload, typed.Interface()); err != nil {
		return p.fail(off, at+"/payload", seq, "not the payload of a %s event: %v", e.Kind, err)
	}
	if err := p.pairs(typed.Elem().Interface(), e, off, at); err != nil {
		return err
	}
	ev := trace.Event{Seq: seq, Kind: e.Kind, Time: e.Time, Run: e.Run, Round: e.Round, Payload: payload, Agent: e.Agent}
	if err := p.im.Event(ev); err != nil {
		return p.fail(off, at, seq, "%v", err)
	}
	p.lastSeq = seq
	p.res.Events++
	return nil
}

// pairs checks what the loop guarantees of every log it writes: each call
// gets exactly one result before its run ends. Only the last run may be
// open with calls unanswered: that is what a run cut off (a crash, a
// kill, a pause before a call) leaves, and Loupe closes or resumes it as
// any run whose owner is gone (Manager.Recover).
func (p *importer) pairs(payload any, e importedEvent, off int64, at string) error {
	if e.Agent != "" {
		// A sub-agent's run opens and ends inside its parent's; its calls
		// are its own (their ids may be its parent's too), and must all be
		// answered by the time its parent's run ends.
		switch v := payload.(type) {
		case trace.ToolCall:
			p.open[e.Agent+"\x00"+v.CallID] = append(p.open[e.Agent+"\x00"+v.CallID], e.Seq)
		case trace.ToolResult:
			key := e.Agent + "\x00" + v.CallID
			if len(p.open[key]) == 0 {
				return p.fail(off, at+"/payload/call_id", e.Seq, "a result for call %q of sub-agent %q, which no open tool_call before it asked for", v.CallID, e.Agent)
			}
			if p.open[key] = p.open[key][1:]; len(p.open[key]) == 0 {
				delete(p.open, key)
			}
		case trace.ModelRequest:
			if _, ok := p.needSets[v.ToolSet]; v.ToolSet != 0 && !ok {
				p.needSets[v.ToolSet] = e.Seq
			}
		}
		return nil
	}
	switch v := payload.(type) {
	case trace.UserMessage:
		if err := p.unanswered(off, at, e.Seq, fmt.Sprintf("run %d starts here", e.Run)); err != nil {
			return err
		}
		p.openRun = e.Run
	case trace.ToolCall:
		p.open[v.CallID] = append(p.open[v.CallID], e.Seq)
	case trace.ToolResult:
		calls := p.open[v.CallID]
		if len(calls) == 0 {
			return p.fail(off, at+"/payload/call_id", e.Seq, "a result for call %q, which no open tool_call before it asked for", v.CallID)
		}
		if len(calls) == 1 {
			delete(p.open, v.CallID)
		} else {
			p.open[v.CallID] = calls[1:]
		}
	case trace.RunEnd:
		if err := p.unanswered(off, at, e.Seq, fmt.Sprintf("run %d ends here", e.Run)); err != nil {
			return err
		}
		p.openRun = 0
	case trace.ModelRequest:
		if _, ok := p.needSets[v.ToolSet]; v.ToolSet != 0 && !ok {
			p.needSets[v.ToolSet] = e.Seq
		}
	}
	return nil
}

func (p *importer) unanswered(off int64, at string, seq int64, what string) error {
	for id, calls := range p.open {
		return p.fail(off, at, seq, "%s, but call %q (event %d) has no result: Loupe gives every call its result before a run ends", what, id, calls[0])
	}
	return nil
}

func (p *importer) toolSets(ptr string) error {
	t, err := p.token(ptr)
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return p.fail(p.dec.InputOffset(), ptr, 0, "the tool sets are not an object by id (%s)", describeToken(t))
	}
	for p.dec.More() {
		off := p.dec.InputOffset()
		t, err := p.token(ptr)
		if err != nil {
			return err
		}
		key, _ := t.(string)
		at := ptr + "/" + key
		id, err := strconv.Atoi(key)
		if err != nil || id < 1 {
			return p.fail(off, at, 0, "a tool set's id is a number from 1, not %q", key)
		}
		var raw json.RawMessage
		if err := p.dec.Decode(&raw); err != nil {
			return p.decodeErr(err, off, at, 0)
		}
		var specs []json.RawMessage
		if json.Unmarshal(raw, &specs) != nil {
			return p.fail(off, at, 0, "a tool set is a list of tools")
		}
		p.payload.Reset()
		if err := json.Compact(&p.payload, raw); err != nil {
			return p.fail(off, at, 0, "not valid JSON: %v", err)
		}
		if err := p.im.ToolSet(id, p.payload.Bytes()); err != nil {
			return p.fail(off, at, 0, "%v", err)
		}
		p.haveSets[id] = true
	}
	_, err = p.token(ptr)
	return err
}

// finish checks what could only be checked at the end, and commits.
func (p *importer) finish() error {
	end := p.dec.InputOffset()
	for id, seq := range p.needSets {
		if !p.haveSets[id] {
			return p.fail(end, fmt.Sprintf("/tool_sets/%d", id), seq, "the request names tool set %d, which the file does not hold", id)
		}
	}
	want := p.sum.Session
	if want.ForkSeq > p.lastSeq {
		return p.fail(end, "/session/fork_seq", 0, "the fork was made at event %d, and its log has %d events", want.ForkSeq, p.lastSeq)
	}
	got, err := p.im.Finish(want.UpdatedAt, want.LastReason)
	if err != nil {
		return err
	}
	// What the store counts as the events go in must be what the file
	// says: otherwise the file was changed by hand, or cut and mended.
	for _, c := range []struct {
		name      string
		file, log int
	}{{"event_count", want.EventCount, got.EventCount}, {"open_run", want.OpenRun, got.OpenRun}, {"rounds", want.Rounds, got.Rounds}} {
		if c.file != c.log {
			return p.fail(end, "/session/"+c.name, 0, "the session says %s %d, and its events make it %d", c.name, c.file, c.log)
		}
	}
	if p.clashed {
		return p.clash() // rolled back by Import
	}
	if err := p.im.Commit(); err != nil {
		return err
	}
	sum, err := summaryOf(p.ctx, p.st, got.ID)
	if err != nil {
		return err
	}
	p.res.Session = sum
	return nil
}

// summaryOf is a stored session as the window lists one no run holds.
func summaryOf(ctx context.Context, st *store.Store, id string) (Summary, error) {
	s, err := st.GetSession(ctx, id)
	if err != nil {
		return Summary{}, err
	}
	var dbg debugState
	if _, err := st.GetStepping(ctx, id, &dbg); err != nil {
		return Summary{}, err
	}
	return Summary{Session: s, Stepping: dbg.Stepping, Breakpoints: dbg.Breakpoints.normal()}, nil
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// describeToken names what the file has where something else was due.
func describeToken(t json.Token) string {
	switch v := t.(type) {
	case json.Delim:
		switch v {
		case '[':
			return "a list"
		case '{':
			return "an object"
		}
		return fmt.Sprintf("%q", string(v))
	case string:
		return fmt.Sprintf("the string %q", v)
	case nil:
		return "null"
	case bool:
		return fmt.Sprintf("%v", v)
	default:
		return fmt.Sprintf("the number %v", v)
	}
}
