package ollama

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/auth"
	"github.com/ollama/ollama/envconfig"
	"github.com/ollama/ollama/version"
)

// Chat does its own POST /api/chat rather than calling api.Client.Chat, for
// two reasons: the body sent is then by construction the bytes
// EncodeChatRequest returns, and the answer is read with a buffer that grows
// only as long lines need it (api.Client allocates 8 MB per request). The
// rest follows api.Client v0.17.4 (headers, auth, and how it reads error
// statuses and {"error": ...} lines), so the errors are the same.

// maxLineSize bounds one NDJSON line of an answer. Lines are usually one
// token, but one line can carry every tool call of a message, and a
// write_file call carries a whole file; api.Client's own bound is 8 MB.
const maxLineSize = 16 << 20

// lineBufSize is the read buffer of an answer; longer lines are put
// together in a slice that grows as needed.
const lineBufSize = 8 << 10

var errLineTooLong = fmt.Errorf("a line of the answer is longer than %d MB, more than Loupe reads", maxLineSize>>20)

// userAgent is the User-Agent api.Client sends.
var userAgent = fmt.Sprintf("ollama/%s (%s %s) Go/%s", version.Version, runtime.GOARCH, runtime.GOOS, runtime.Version())

// postChat sends body to /api/chat, signed as api.Client signs requests to
// ollama.com or when OLLAMA_AUTH is set.
func (c *Client) postChat(ctx context.Context, ep *endpoint, body *chatBody) (*http.Response, error) {
	const path = "/api/chat"
	u := ep.base.JoinPath(path)
	var token string
	if envconfig.UseAuth() || ep.base.Hostname() == "ollama.com" {
		now := strconv.FormatInt(time.Now().Unix(), 10)
		var err error
		token, err = auth.Sign(ctx, []byte(fmt.Sprintf("%s,%s?ts=%s", http.MethodPost, path, now)))
		if err != nil {
			return nil, err
		}
		q := u.Query()
		q.Set("ts", now)
		u.RawQuery = q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), body)
	if err != nil {
		return nil, err
	}
	req.ContentLength, req.GetBody = int64(body.size), body.again
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/x-ndjson")
	req.Header.Set("User-Agent", userAgent)
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	return c.hc.Do(req)
}

// errorLine is the part of a line that says it is an error.
type errorLine struct {
	Error string `json:"error,omitempty"`
}

// streamChat posts body and hands each line of the answer to fn, in order,
// until the stream ends. It returns nil when the stream ends cleanly, done
// or not; a *TimeoutError when Ollama sent nothing for longer than the
// client's timeouts allow (the request is then cancelled, which closes its
// connection); otherwise one of our errors (or ctx's, wrapped by
// http.Client). model is the requested model, for ModelNotFoundError and
// TimeoutError.
func (c *Client) streamChat(ctx context.Context, model string, body *chatBody, fn func(api.ChatResponse)) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	w := watch(c.Timeouts(), model, cancel)
	defer w.stop()
	// The whole answer comes from the server the request went to, also
	// when SetHost is called while it streams.
	err := c.readChat(ctx, c.at(), model, body, fn, w)
	if te := w.expired(); te != nil {
		// Whatever the cut request failed with, the cause is the timeout.
		return te
	}
	return err
}

func (c *Client) readChat(ctx context.Context, ep *endpoint, model string, body *chatBody, fn func(api.ChatResponse), w *watchdog) error {
	resp, err := c.postChat(ctx, ep, body)
	if err != nil {
		return ep.classify(err, model)
	}
	defer resp.Body.Close()
	lines := &lineReader{r: bufio.NewReaderSize(watchedBody{r: resp.Body, w: w}, lineBufSize), max: maxLineSize}
	if resp.StatusCode >= http.StatusBadRequest {
		return readStatusError(resp.StatusCode, lines, model)
	}
	for {
		// Lines already buffered do not outlive a cancel: once ctx is done
		// (say, by onChunk), not another line is taken.
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := lines.next()
		switch {
		case err == io.EOF:
			return nil
		case errors.Is(err, errLineTooLong):
			return &StreamError{Message: err.Error(), Err: err}
		case err != nil:
			return &StreamError{Cut: true, Err: err}
		}
		var e errorLine
		if err := json.Unmarshal(line, &e); err != nil {
			// Not JSON (a proxy's page, say): the line is the message.
			return &StreamError{Message: string(line), Err: err}
		}
		if e.Error != "" {
			return &StreamError{Message: e.Error}
		}
		var cr api.ChatResponse
		if err := json.Unmarshal(line, &cr); err != nil {
			return &StreamError{Message: err.Error(), Err: err}
		}
		fn(cr)
	}
}

// readStatusError reads the error an HTTP error status came with. As in
// api.Client only the first line counts: its "error" if it is JSON, else
// the line itself; no line at all leaves only the status.
func readStatusError(code int, lines *lineReader, model string) error {
	line, err := lines.next()
	if err != nil {
		return &StatusError{Code: code}
	}
	var e errorLine
	if json.Unmarshal(line, &e) != nil {
		return statusError(code, string(line), model)
	}
	if code == http.StatusUnauthorized {
		return &StatusError{Code: code, Message: "unauthorized"}
	}
	return statusError(code, e.Error, model)
}

// lineReader splits a stream into lines the way bufio.ScanLines does (the
// "\n" and a "\r" before it are dropped; a last line may lack "\n"), with
// a buffer that grows only for a line longer than r's.
type lineReader struct {
	r    *bufio.Reader
	long []byte // a line longer than r's buffer, put together
	max  int
}

// next returns the next line, valid until the following call; io.EOF at
// the end; errLineTooLong for a line over max bytes; or the read error,
// dropping a partial line.
func (l *lineReader) next() ([]byte, error) {
	line, err := l.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.long = append(l.long[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(l.long) > l.max+1 { // +1 for a "\r" before the "\n"
				return nil, errLineTooLong
			}
			line, err = l.r.ReadSlice('\n')
			l.long = append(l.long, line...)
		}
		line = l.long
	}
	if err != nil && (err != io.EOF || len(line) == 0) {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > l.max {
		return nil, errLineTooLong
	}
	return line, nil
}

// watchdog cancels a request when Ollama sends nothing for too long: no
// byte of the answer within the first-token bound from the start, or,
// once bytes came, none within the stall bound of the one before. Reading
// only notes the time; the timer, when it fires, checks whether the bound
// really passed and otherwise sets itself for what is left.
type watchdog struct {
	t      Timeouts
	model  string
	cancel context.CancelCauseFunc
	start  time.Time

	mu      sync.Mutex
	timer   *time.Timer // nil while no bound applies
	due     time.Time   // when the timer should fire
	started bool        // a byte of the answer arrived
	last    time.Time   // when the newest one did
	fired   *TimeoutError
	stopped bool
	// graced is set once a late timer gave the reader a moment first.
	graced bool
}

// lateBy is how late a timer must fire to say that the process did not
// run meanwhile (stopped with Ctrl-Z, say): the bytes that came in then
// wait in the socket, so the reader gets a moment to take them before
// the bound is called run out.
const lateBy = time.Second

// arm starts or resets the timer for d; the caller holds mu.
func (w *watchdog) arm(d time.Duration) {
	w.due = time.Now().Add(d)
	if w.timer == nil {
		w.timer = time.AfterFunc(d, w.check)
		return
	}
	w.timer.Reset(d)
}

func watch(t Timeouts, model string, cancel context.CancelCauseFunc) *watchdog {
	w := &watchdog{t: t, model: model, cancel: cancel, start: time.Now()}
	if t.FirstToken > 0 {
		w.mu.Lock()
		w.arm(t.FirstToken)
		w.mu.Unlock()
	}
	return w
}

// progress notes that bytes of the answer arrived.
func (w *watchdog) progress() {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last = now
	w.graced = false
	if w.started || w.stopped {
		return
	}
	// The first byte: from now on the stall bound applies.
	w.started = true
	switch {
	case w.t.Stall <= 0:
		if w.timer != nil {
			w.timer.Stop()
		}
	default:
		w.arm(w.t.Stall)
	}
}

// check runs when the timer fires: it cancels the request if its bound
// has passed, or waits for the rest of it.
func (w *watchdog) check() {
	w.mu.Lock()
	if w.stopped || w.fired != nil {
		w.mu.Unlock()
		return
	}
	bound, since := w.t.FirstToken, w.start
	if w.started {
		bound, since = w.t.Stall, w.last
	}
	if bound <= 0 {
		w.mu.Unlock()
		return
	}
	if left := bound - time.Since(since); left > 0 {
		w.arm(left)
		w.mu.Unlock()
		return
	}
	if time.Since(w.due) > lateBy && !w.graced {
		// Fired late: the process was not running. What arrived meanwhile
		// is read first; progress clears the grace.
		w.graced = true
		w.arm(lateBy)
		w.mu.Unlock()
		return
	}
	w.fired = &TimeoutError{Stall: w.started, After: bound, Model: w.model}
	te := w.fired
	w.mu.Unlock()
	w.cancel(te)
}

// expired is the timeout that cancelled the request, nil if none did.
func (w *watchdog) expired() *TimeoutError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
}

// watchedBody tells the watchdog of every read that brought bytes.
type watchedBody struct {
	r io.Reader
	w *watchdog
}

func (b watchedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		b.w.progress()
	}
	return n, err
}
