package ollama

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/loupe-dev/loupe/backend/llm"
)

// The errors below are returned as pointers; match them with errors.As:
//
//	var nf *ollama.ModelNotFoundError
//	if errors.As(err, &nf) { ... nf.Model ... }
//
// Their messages are meant for the user and say what to do.

// UnreachableError means nothing answered at Host: Ollama is not running,
// the address is wrong, or the name does not resolve.
type UnreachableError struct {
	Host string
	Err  error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("Ollama is not running at %s — start it with `ollama serve`", e.Host)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// ModelNotFoundError means Ollama has no model of that name.
type ModelNotFoundError struct {
	Model string
}

func (e *ModelNotFoundError) Error() string {
	return fmt.Sprintf("model %q is not installed in Ollama — run `ollama pull %s`", e.Model, e.Model)
}

// StatusError is any other HTTP error Ollama answered with. Message is the
// text of its {"error": ...} body, or the body itself if it was not JSON.
type StatusError struct {
	Code    int
	Message string
}

func (e *StatusError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Code)
	}
	s := fmt.Sprintf("Ollama answered HTTP %d: %s", e.Code, msg)
	switch {
	case strings.Contains(msg, "does not support tools"):
		s += " — choose a model that supports tools"
	case strings.Contains(msg, "does not support thinking"):
		s += " — turn thinking off for this model"
	case e.Code == http.StatusServiceUnavailable:
		s += " — Ollama is busy; try again in a moment"
	case e.Code >= 500:
		s += " — see the Ollama server log for details, then try again"
	}
	return s
}

// StreamError means the answer started but did not finish: Ollama sent an
// {"error": ...} line mid-stream (Message), the connection closed before
// the final done line (Cut), or the stream ended properly but without its
// done line (Ended). The partial answer is returned with it.
type StreamError struct {
	Message string
	Cut     bool
	// Ended: Ollama closed the answer as if it were finished, with no done
	// line and no error. Ollama v0.17 does this, and only this, when it
	// stops a model that produced the same token more than 30 times in a
	// row (llm/server.go, "token repeat limit reached"), so a repeating
	// model is what the message names.
	Ended bool
	Err   error
}

func (e *StreamError) Error() string {
	switch {
	case e.Ended:
		return "Ollama stopped the answer before it finished, without an error: it does this when the model repeats the same token over and over (more than 30 times in a row) — the partial answer is kept; try again, rephrase the request, or raise the temperature"
	case e.Cut:
		return "the connection to Ollama closed before the answer finished — check that Ollama is still running, then try again"
	}
	return fmt.Sprintf("Ollama failed while answering: %s — the partial answer is kept; try again", e.Message)
}

// TimeoutError means Ollama sent nothing for too long, and Chat gave up
// and closed the connection. Before the first byte of the answer the bound
// is the first-token timeout, which covers loading the model and reading
// the prompt; once the answer streams (Stall) it is the stall timeout
// between two pieces of it. Any partial answer is returned with it.
//
// Request names a short call instead (such as "POST /api/show"): one that
// Ollama answers at once, even while it loads a model, so that no answer
// within After means it is stuck or stopped.
type TimeoutError struct {
	Stall   bool
	After   time.Duration
	Model   string
	Request string
	Host    string
}

func (e *TimeoutError) Error() string {
	if e.Request != "" {
		return fmt.Sprintf("Ollama at %s did not answer %s within %s — it may be stuck, or its process stopped; check it with `ollama ps`, or restart it", e.Host, e.Request, human(e.After))
	}
	if e.Stall {
		return fmt.Sprintf("Ollama stopped sending the answer: nothing arrived for %s (the stall timeout) — the partial answer is kept; "+
			"the model runner may be stuck or paused: check `ollama ps` and the Ollama server log, then try again, or raise the stall timeout (loupe run --stall-timeout)", human(e.After))
	}
	return fmt.Sprintf("Ollama sent no answer within %s of the request (the first-token timeout), which includes loading %s and reading the prompt — "+
		"check `ollama ps` and the Ollama server log; if the model is still loading, try again once it is, or raise the first-token timeout (loupe run --first-token-timeout)", human(e.After), modelName(e.Model))
}

// Timeout says, as net.Error does, that this error is a timeout.
func (e *TimeoutError) Timeout() bool { return true }

// Temporary is false: the bound was already waited out once, so the agent
// does not silently wait it out again (it retries only temporary errors).
// The user sees the error and decides.
func (e *TimeoutError) Temporary() bool { return false }

func modelName(m string) string {
	if m == "" {
		return "the model"
	}
	return "model " + m
}

// human writes a duration without zero tails: "10m", "1h30m", "250ms".
func human(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func (e *StreamError) Unwrap() error { return e.Err }

// isNotFound tells a missing-model answer from other 404s (a proxy's, or an
// old server without the endpoint). Ollama words it "model 'x' not found"
// or "model \"x\" not found, try pulling it first".
func isNotFound(code int, msg string) bool {
	return code == http.StatusNotFound && strings.Contains(msg, "model") && strings.Contains(msg, "not found")
}

// isUnreachable reports a failure to connect at all.
func isUnreachable(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// isCut reports a connection that closed or reset under a request.
func isCut(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// PromptTooLongError means Ollama refused the prompt because it is longer
// than num_ctx: Loupe sends truncate false, so Ollama says so instead of
// dropping the oldest messages. It matches llm.ErrPromptTooLong.
type PromptTooLongError struct {
	Message string
}

func (e *PromptTooLongError) Error() string {
	return "the prompt does not fit the model's context (num_ctx): Ollama answered \"" + e.Message + "\""
}

func (e *PromptTooLongError) Unwrap() error { return llm.ErrPromptTooLong }

// isTooLong tells Ollama's refusal of a prompt over num_ctx: the runner's
// "the input length exceeds the context length", answered 400.
func isTooLong(code int, msg string) bool {
	return code == http.StatusBadRequest && strings.Contains(msg, "exceeds the context length")
}

// statusError is the error for an HTTP error status whose body said msg,
// for a call about model ("" when none).
func statusError(code int, msg, model string) error {
	if model != "" && isNotFound(code, msg) {
		return &ModelNotFoundError{Model: model}
	}
	if isTooLong(code, msg) {
		return &PromptTooLongError{Message: msg}
	}
	return &StatusError{Code: code, Message: msg}
}

// classify turns what api.Client (or http.Client, for Chat) returned into
// one of our errors. model is the model the call was about ("" when none).
func (ep *endpoint) classify(err error, model string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var se api.StatusError
	if errors.As(err, &se) {
		return statusError(se.StatusCode, se.ErrorMessage, model)
	}
	var ae api.AuthorizationError
	if errors.As(err, &ae) {
		return &StatusError{Code: ae.StatusCode, Message: "unauthorized"}
	}
	if isUnreachable(err) {
		return &UnreachableError{Host: ep.host, Err: err}
	}
	if isCut(err) {
		return &StreamError{Cut: true, Err: err}
	}
	return fmt.Errorf("ollama: %w", err)
}

// Temporary reports whether trying the same request again may work: Ollama
// not answering (it may be restarting), busy (503, 429), or failing on its
// side (5xx). The agent retries such errors only when nothing of the answer
// has arrived yet.
func (e *UnreachableError) Temporary() bool { return true }

// Temporary: see UnreachableError.Temporary.
func (e *StatusError) Temporary() bool {
	return e.Code == http.StatusTooManyRequests || e.Code >= 500
}
