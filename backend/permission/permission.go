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
	// ModeAskAll asks before every call, reads included ("Ask every
	// time"). Allow rules, grants and tools set to always still run.
	ModeAskAll Mode = "ask_all"
	// ModeAsk runs reads and asks before changes and commands (the default).
	ModeAsk Mode = "ask"
	// ModeAuto runs every call without asking, except what deny rules
	// refuse and protected paths (the UI warns about it).
	ModeAuto Mode = "auto"
)

// Valid reports whether m is a known mode.
func (m Mode) Valid() bool { return m == ModeAskAll || m == ModeAsk || m == ModeAuto }

// Verdict is what the policy says before anyone is asked.
type Verdict int

const (
	Run Verdict = iota
	Ask
	Refuse
)

var verdictNames = [...]string{Run: "run", Ask: "ask", Refuse: "refuse"}

func (v Verdict) String() string {
	if v >= 0 && int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// MarshalText writes a verdict as "run", "ask" or "refuse".
func (v Verdict) MarshalText() ([]byte, error) {
	if v < 0 || int(v) >= len(verdictNames) {
		return nil, fmt.Errorf("permission: unknown verdict %d", int(v))
	}
	return []byte(verdictNames[v]), nil
}

// UnmarshalText reads "run", "ask" or "refuse".
func (v *Verdict) UnmarshalText(b []byte) error {
	for i, n := range verdictNames {
		if string(b) == n {
			*v = Verdict(i)
			return nil
		}
	}
	return fmt.Errorf("permission: unknown verdict %q", b)
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
	// Call is what the policy decided on; the broker builds the grant for
	// a remembered answer from it. Without it only "once" can be answered.
	Call *Call `json:"call,omitempty"`
	// Reasons say why Loupe asks (Decision.Reasons).
	Reasons []string `json:"reasons,omitempty"`
	// OnceOnly is Decision.OnceOnly: the answer cannot be remembered.
	OnceOnly bool `json:"once_only,omitempty"`
}

// Answer is the user's reply.
type Answer struct {
	Allow bool
	// By is "you", "you (for this session)" or "you (always for this
	// workspace)".
	By string
	// Scope is how long the answer counts.
	Scope Scope
	// Grant is set for session and workspace answers: the session layer
	// stores it and passes it back in Policy.Grants.
	Grant *Grant
}

// ErrUnknownRequest is returned when answering a question that is not
// pending (already answered, or its run was stopped).
var ErrUnknownRequest = errors.New("permission: no such pending request (already answered or the run stopped)")

// ErrOnceOnly is returned when a question that can only be answered once
// (a protected path, a possible deny) is answered for longer. The question
// stays open.
var ErrOnceOnly = errors.New("permission: this can only be answered for this call (it touches something protected)")

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

// Reply delivers the user's reply and how long it counts; the first answer
// wins. For ScopeSession and ScopeWorkspace the answer carries the Grant
// to remember (built from the request's Call). A request that is OnceOnly
// or has no Call refuses a longer scope and stays pending.
func (b *Broker) Reply(id string, allow bool, scope Scope) error {
	if !scope.Valid() {
		return fmt.Errorf("permission: unknown scope %q (use once, session or workspace)", scope)
	}
	b.mu.Lock()
	p, ok := b.pending[id]
	if !ok {
		b.mu.Unlock()
		return ErrUnknownRequest
	}
	a := Answer{Allow: allow, By: scope.by(), Scope: scope}
	if scope != ScopeOnce {
		if p.req.OnceOnly {
			b.mu.Unlock()
			return ErrOnceOnly
		}
		if p.req.Call == nil {
			b.mu.Unlock()
			return errors.New("permission: this question cannot be remembered (it does not say which call it is about)")
		}
		g, err := GrantFor(*p.req.Call, allow, scope)
		if err != nil {
			b.mu.Unlock()
			return err
		}
		a.Grant = &g
	}
	delete(b.pending, id)
	b.mu.Unlock()
	p.ch <- a
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
