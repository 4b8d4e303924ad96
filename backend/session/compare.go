package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Comparison is two sessions side by side, round by round
// (trace.Align): what the window's compare view and `loupe compare` show.
// Sessions are the two, in the order asked; A in the alignment is the
// first.
type Comparison struct {
	Sessions []store.Session `json:"sessions"`
	A        trace.Figures   `json:"a"`
	B        trace.Figures   `json:"b"`
	Rows     []trace.Row     `json:"rows"`
	// Diverge is the index in Rows of the first round where the two go
	// different ways, or -1 when they have not (yet); Why says how (see
	// trace.Align for what counts).
	Diverge int    `json:"diverge"`
	Why     string `json:"why,omitempty"`
}

// ErrSameSession is Compare asked to compare a session with itself.
var ErrSameSession = errors.New("choose two different sessions to compare")

// Compare aligns the logs of sessions a and b of st. It reads the store
// only: neither session is changed, and a session still running is
// compared as far as its log goes (its figures say it is open).
func Compare(ctx context.Context, st *store.Store, a, b string) (Comparison, error) {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == "" || b == "" {
		return Comparison{}, errors.New("name two sessions to compare")
	}
	if a == b {
		return Comparison{}, ErrSameSession
	}
	var c Comparison
	var logs [2][]trace.Event
	for i, id := range []string{a, b} {
		s, err := st.GetSession(ctx, id)
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return Comparison{}, fmt.Errorf("there is no session %q to compare (it may have been deleted): %w", id, err)
			}
			return Comparison{}, err
		}
		if logs[i], err = st.Events(ctx, id); err != nil {
			return Comparison{}, err
		}
		c.Sessions = append(c.Sessions, s)
	}
	al := trace.Align(logs[0], logs[1])
	c.A, c.B, c.Rows, c.Diverge, c.Why = al.A, al.B, al.Rows, al.Diverge, al.Why
	return c, nil
}

// Compare is Compare on the manager's store; a session DeleteLater is
// about to delete is not there to compare.
func (m *Manager) Compare(ctx context.Context, a, b string) (Comparison, error) {
	for _, id := range []string{a, b} {
		if m.beingDeleted(id) {
			return Comparison{}, fmt.Errorf("session %q is being deleted: undo the delete to compare it", id)
		}
	}
	return Compare(ctx, m.store, a, b)
}
