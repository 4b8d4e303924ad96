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
func (c *Client) postChat(ctx context.Context, body []byte) (*http.Response, error) {
	const path = "/api/chat"
	u := c.base.JoinPath(path)
	var token string
	if envconfig.UseAuth() || c.base.Hostname() == "ollama.com" {
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
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
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
// or not; otherwise one of our errors (or ctx's, wrapped by http.Client).
// model is the requested model, for ModelNotFoundError.
func (c *Client) streamChat(ctx context.Context, model string, body []byte, fn func(api.ChatResponse)) error {
	resp, err := c.postChat(ctx, body)
	if err != nil {
		return c.classify(err, model)
	}
	defer resp.Body.Close()
	lines := &lineReader{r: bufio.NewReaderSize(resp.Body, lineBufSize), max: maxLineSize}
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
