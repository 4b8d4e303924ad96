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
	SessionID string `json:"session_id"`
	// Agent is the sub-agent's loop that asks (trace.Event.Agent), "" for
	// the session's own: each loop's model names its calls itself, so
	// two loops of one run may both ask about "call_1" at once.
	Agent   string          `json:"agent,omitempty"`
	CallID  string          `json:"call_id"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args"`
	Display trace.Display   `json:"display"`
	Summary string          `json:"summary"`
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

// Broker holds pending questions, one per call of a session's loop. Request
// blocks until the first answer or until ctx is done; later answers are
// refused. The window learns of a question from the log (the loop records
// an ask event), and answers it by session and call.
type Broker struct {
	mu      sync.Mutex
	pending map[questionKey]*pending
}

type questionKey struct{ session, agent, call string }

type pending struct {
	req Request
	ch  chan Answer
}

// NewBroker returns an empty broker.
func NewBroker() *Broker { return &Broker{pending: map[questionKey]*pending{}} }

// Request registers the question, calls asked (which records it in the
// log, so that whoever sees it may answer at once), and waits. The
// returned error is asked's, or ctx's when the run stopped before anyone
// answered.
func (b *Broker) Request(ctx context.Context, r Request, asked func() error) (Answer, error) {
	k := questionKey{r.SessionID, r.Agent, r.CallID}
	p := &pending{req: r, ch: make(chan Answer, 1)}
	b.mu.Lock()
	b.pending[k] = p
	b.mu.Unlock()
	defer b.remove(k, p)
	if asked != nil {
		if err := asked(); err != nil {
			return Answer{}, err
		}
	}
	select {
	case a := <-p.ch:
		return a, nil
	case <-ctx.Done():
		return Answer{}, ctx.Err()
	}
}

func (b *Broker) remove(k questionKey, p *pending) {
	b.mu.Lock()
	if b.pending[k] == p {
		delete(b.pending, k)
	}
	b.mu.Unlock()
}

// Reply delivers the user's reply to the question about call callID of
// the loop agent ("" for the session's own, else a sub-agent's) of session
// sessionID, and how long it counts; the first answer wins. For
// ScopeSession and ScopeWorkspace the answer carries the Grant to remember
// (built from the request's Call). A request that is OnceOnly or has no
// Call refuses a longer scope and stays pending.
func (b *Broker) Reply(sessionID, agent, callID string, allow bool, scope Scope) error {
	if !scope.Valid() {
		return fmt.Errorf("permission: unknown scope %q (use once, session or workspace)", scope)
	}
	k := questionKey{sessionID, agent, callID}
	b.mu.Lock()
	p, ok := b.pending[k]
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
	delete(b.pending, k)
	b.mu.Unlock()
	p.ch <- a
	return nil
}
