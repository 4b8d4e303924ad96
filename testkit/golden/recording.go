package golden

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sync"
	"testing"
	"time"
)

// A Recording is one scenario as the window lived it: the commands the UI
// sent, interleaved with what the engine sent back on each stream, in the
// order it happened. The frontend's replay bridge plays it into the real
// UI and checks, at each command step, that the UI sends that command.
type Recording struct {
	// Scenario names the recording (its file name without .json).
	Scenario string `json:"scenario"`
	// About says in a sentence what happens in it.
	About string `json:"about"`
	// Session is the session's summary before the first step.
	Session json.RawMessage `json:"session"`
	// Settings are the saved settings before the first step.
	Settings json.RawMessage `json:"settings"`
	Steps    []Step          `json:"steps"`
	// RawRequests are the bodies RawRequest rebuilt for each model_request
	// event, by seq: the Raw view's source.
	RawRequests map[string]string `json:"raw_requests"`
}

// Step is one thing that happened. Exactly one field is set.
type Step struct {
	// Command is something the UI asked of the backend, with its answer.
	Command *Command `json:"command,omitempty"`
	// Query is a read the UI may make at any time (a workspace's state, a
	// rule's limits); the replay answers it without waiting for it.
	Query *Command `json:"query,omitempty"`
	// Event and Delta are what the window's two runtime channels carried
	// (app.go): the log's events and the streamed text.
	Event json.RawMessage `json:"event,omitempty"`
	Delta json.RawMessage `json:"delta,omitempty"`
	// Outside is something that happened outside Loupe (a file changed by
	// hand); a spec says when it happens.
	Outside string `json:"outside,omitempty"`
	// Mark names a point that a spec can start from.
	Mark string `json:"mark,omitempty"`
}

// Command is a bound method called with its arguments, named and ordered
// as the frontend's Bridge interface has them, and how it answered.
type Command struct {
	Method string            `json:"method"`
	Args   []json.RawMessage `json:"args"`
	Result json.RawMessage   `json:"result,omitempty"`
	Error  *string           `json:"error,omitempty"`
}

// Recorder collects a Recording while a scenario runs. Its methods are
// safe to call from run goroutines. Values are encoded when they are
// recorded, as the window would have received them then.
type Recorder struct {
	t    testing.TB
	mu   sync.Mutex
	rec  Recording
	wake chan struct{}
}

// NewRecorder starts an empty recording of the named scenario.
func NewRecorder(t testing.TB, scenario, about string) *Recorder {
	return &Recorder{t: t, rec: Recording{Scenario: scenario, About: about, RawRequests: map[string]string{}}, wake: make(chan struct{})}
}

// Encode marshals v as JSON without HTML escaping: text the model or the
// user wrote keeps its < > and & as they are.
func Encode(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

func (r *Recorder) encode(v any) json.RawMessage {
	b, err := Encode(v)
	if err != nil {
		r.t.Errorf("recording: %v", err)
	}
	return b
}

func (r *Recorder) add(s Step) {
	r.mu.Lock()
	r.rec.Steps = append(r.rec.Steps, s)
	close(r.wake)
	r.wake = make(chan struct{})
	r.mu.Unlock()
}

// Start sets the session and settings the recording begins with.
func (r *Recorder) Start(session, settings any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rec.Session, r.rec.Settings = r.encode(session), r.encode(settings)
}

// Event records a committed event sent on the event channel.
func (r *Recorder) Event(v any) { r.add(Step{Event: r.encode(v)}) }

// Delta records a streamed token delta.
func (r *Recorder) Delta(v any) { r.add(Step{Delta: r.encode(v)}) }

// Outside records something done outside Loupe, in words.
func (r *Recorder) Outside(what string) { r.add(Step{Outside: what}) }

// Mark records a named point a spec may start from.
func (r *Recorder) Mark(name string) { r.add(Step{Mark: name}) }

// RawRequest keeps the rebuilt body of the model_request event seq.
func (r *Recorder) RawRequest(seq int64, body string) {
	r.mu.Lock()
	r.rec.RawRequests[fmt.Sprint(seq)] = body
	r.mu.Unlock()
}

// Command records that the UI calls method with args, then calls do and
// records its answer. The step is placed when the call begins: what the
// engine sends while it runs comes after it, as the window sees it.
func (r *Recorder) Command(method string, do func() (any, error), args ...any) error {
	return r.call(false, method, do, args)
}

// Query records a read the UI makes, with its answer.
func (r *Recorder) Query(method string, do func() (any, error), args ...any) error {
	return r.call(true, method, do, args)
}

func (r *Recorder) call(query bool, method string, do func() (any, error), args []any) error {
	c := &Command{Method: method, Args: make([]json.RawMessage, len(args))}
	for i, a := range args {
		c.Args[i] = r.encode(a)
	}
	if query {
		r.add(Step{Query: c})
	} else {
		r.add(Step{Command: c})
	}
	res, err := do()
	r.mu.Lock()
	if err != nil {
		msg := err.Error()
		c.Error = &msg
	} else if res != nil {
		c.Result = r.encode(res)
	}
	r.mu.Unlock()
	return err
}

// Wait blocks until cond, given the steps so far, holds; it fails the test
// after 10 s. cond is called with the recorder's lock held.
func (r *Recorder) Wait(what string, cond func(steps []Step) bool) {
	r.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		ok := cond(r.rec.Steps)
		wake := r.wake
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-wake:
		case <-deadline:
			r.t.Fatalf("recording %s: timed out waiting for %s", r.rec.Scenario, what)
		}
	}
}

// Steps returns a copy of the steps so far.
func (r *Recorder) Steps() []Step {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Step(nil), r.rec.Steps...)
}

// Len is the number of steps so far.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.rec.Steps)
}

// RecordOptions say what varies between runs of a scenario and how the
// recording names it instead.
type RecordOptions struct {
	// Replace maps strings that vary (the workspace's temp path, the
	// session id, the home folder) to stable ones, applied in order to
	// the whole recording.
	Replace [][2]string
	// Start is the time the first event gets; each next event is 250 ms
	// later. Session summaries get Start as their created and updated
	// times.
	Start time.Time
}

// Durations the recording gives to what the engine measured: they differ
// on every run.
const (
	recordedDurationMs   = 12
	recordedFirstTokenNs = 45_000_000
)

var (
	eventTime   = regexp.MustCompile(`([{,])"time":"[^"]*"`)
	summaryTime = regexp.MustCompile(`([{,])"(created_at|updated_at)":"[^"]*"`)
	durationMs  = regexp.MustCompile(`([{,])"duration_ms":-?[0-9]+`)
	firstToken  = regexp.MustCompile(`([{,])"time_to_first_token":-?[0-9]+`)
	// The same inside a JSON string (a payload as EventPayload answers it).
	durationMsQuoted = regexp.MustCompile(`([{,])\\"duration_ms\\":-?[0-9]+`)
	firstTokenQuoted = regexp.MustCompile(`([{,])\\"time_to_first_token\\":-?[0-9]+`)
)

// Bytes renders the recording as indented JSON, with what varies replaced
// as o says. The result is the same on every run of a deterministic
// scenario.
func (r *Recorder) Bytes(o RecordOptions) []byte {
	r.t.Helper()
	r.mu.Lock()
	rec := r.rec
	rec.Steps = append([]Step(nil), r.rec.Steps...)
	r.mu.Unlock()
	b, err := Encode(rec)
	if err != nil {
		r.t.Fatal(err)
	}
	for _, kv := range o.Replace {
		if kv[0] != "" {
			b = bytes.ReplaceAll(b, []byte(kv[0]), []byte(kv[1]))
		}
	}
	// An event the recording holds twice (streamed, then in a session
	// opened again) keeps one time.
	times := map[string]string{}
	b = eventTime.ReplaceAllFunc(b, func(m []byte) []byte {
		t, ok := times[string(m[1:])]
		if !ok {
			t = o.Start.Add(time.Duration(len(times)) * 250 * time.Millisecond).UTC().Format(time.RFC3339Nano)
			times[string(m[1:])] = t
		}
		return fmt.Appendf(nil, `%c"time":%q`, m[0], t)
	})
	b = summaryTime.ReplaceAllFunc(b, func(m []byte) []byte {
		key := summaryTime.FindSubmatch(m)[2]
		return fmt.Appendf(nil, `%c"%s":%q`, m[0], key, o.Start.UTC().Format(time.RFC3339))
	})
	b = durationMs.ReplaceAll(b, fmt.Appendf(nil, `${1}"duration_ms":%d`, recordedDurationMs))
	b = firstToken.ReplaceAll(b, fmt.Appendf(nil, `${1}"time_to_first_token":%d`, recordedFirstTokenNs))
	b = durationMsQuoted.ReplaceAll(b, fmt.Appendf(nil, `${1}\"duration_ms\":%d`, recordedDurationMs))
	b = firstTokenQuoted.ReplaceAll(b, fmt.Appendf(nil, `${1}\"time_to_first_token\":%d`, recordedFirstTokenNs))
	b = unescapeHTML(b)
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		r.t.Fatalf("recording %s: %v", rec.Scenario, err)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// unescapeHTML turns the \u003c, \u003e and \u0026 escapes that
// json.Marshal put in payloads the engine encoded back into <, > and &:
// the same strings, as a person reads them. An escaped backslash before
// "u003c" is left alone, so text holding those six characters keeps them.
func unescapeHTML(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+5 < len(b) {
			switch string(b[i+2 : i+6]) {
			case "003c", "003C":
				out, i = append(out, '<'), i+5
				continue
			case "003e", "003E":
				out, i = append(out, '>'), i+5
				continue
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			}
		}
		// Any other escape is kept whole, so its second byte is never
		// read as the start of one.
		out, i = append(out, b[i], b[i+1]), i+1
	}
	return out
}
