// Package permission decides whether a tool call may run without asking, and
// carries the question to whoever can answer it. For now there are two
// modes: "ask" (reads run, changes and commands ask) and "auto" (everything
// runs). Rules and remembered grants come later.
package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/loupe-dev/loupe/backend/trace"
)

// Mode is the session-wide permission mode.
type Mode string

const (
	// ModeAsk runs reads and asks before changes and commands (the default).
	ModeAsk Mode = "ask"
	// ModeAuto runs every call without asking.
	ModeAuto Mode = "auto"
)

// Valid reports whether m is a known mode.
func (m Mode) Valid() bool { return m == ModeAsk || m == ModeAuto }

// Verdict is what the policy says before anyone is asked.
type Verdict int

const (
	Run Verdict = iota
	Ask
)

// Decide applies the mode to a call. The readOnly flag comes from the tool's
// own definition, never from anything the model sent.
func Decide(mode Mode, readOnly bool) (Verdict, string) {
	switch {
	case mode == ModeAuto:
		return Run, "auto mode"
	case readOnly:
		return Run, "rule: reads run without asking"
	}
	return Ask, ""
}

// Request is a question to the user about one call.
type Request struct {
	ID        string          `json:"id"`
	SessionID string          `json:"session_id"`
	CallID    string          `json:"call_id"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Display   trace.Display   `json:"display"`
	Summary   string          `json:"summary"`
}

// Answer is the user's reply.
type Answer struct {
	Allow bool
	By    string
}

// ErrUnknownRequest is returned when answering a question that is not
// pending (already answered, or its run was stopped).
var ErrUnknownRequest = errors.New("permission: no such pending request (already answered or the run stopped)")

// Broker holds pending questions. Request blocks until the first answer or
// until ctx is done; later answers are refused.
type Broker struct {
	mu      sync.Mutex
	next    int
	pending map[string]*pending
	// OnOpen and OnClose tell the UI about questions; they are called
	// without the lock held.
	OnOpen  func(Request)
	OnClose func(id string, decision string)
}

type pending struct {
	req Request
	ch  chan Answer
}

// NewBroker returns an empty broker.
func NewBroker() *Broker { return &Broker{pending: map[string]*pending{}} }

// Request asks and waits. The returned error is ctx's when the run stopped
// before anyone answered.
func (b *Broker) Request(ctx context.Context, r Request) (Answer, error) {
	b.mu.Lock()
	b.next++
	r.ID = fmt.Sprintf("ask-%d", b.next)
	p := &pending{req: r, ch: make(chan Answer, 1)}
	b.pending[r.ID] = p
	b.mu.Unlock()
	if b.OnOpen != nil {
		b.OnOpen(r)
	}
	select {
	case a := <-p.ch:
		b.close(r.ID, a)
		return a, nil
	case <-ctx.Done():
		b.remove(r.ID)
		if b.OnClose != nil {
			b.OnClose(r.ID, "cancelled")
		}
		return Answer{}, ctx.Err()
	}
}

func (b *Broker) close(id string, a Answer) {
	if b.OnClose != nil {
		d := trace.Deny
		if a.Allow {
			d = trace.Allow
		}
		b.OnClose(id, d)
	}
}

func (b *Broker) remove(id string) {
	b.mu.Lock()
	delete(b.pending, id)
	b.mu.Unlock()
}

// Answer delivers the user's reply; the first answer wins.
func (b *Broker) Answer(id string, allow bool) error {
	b.mu.Lock()
	p, ok := b.pending[id]
	delete(b.pending, id)
	b.mu.Unlock()
	if !ok {
		return ErrUnknownRequest
	}
	p.ch <- Answer{Allow: allow, By: "you"}
	return nil
}

// Pending lists the open questions of one session (for a UI that reloads).
func (b *Broker) Pending(sessionID string) []Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Request
	for _, p := range b.pending {
		if p.req.SessionID == sessionID {
			out = append(out, p.req)
		}
	}
	return out
}
