package session

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loupe-dev/loupe/backend/store"
)

// What the session list does to a session besides its runs: rename, pin,
// duplicate, and delete with a few seconds to take it back.

// MaxTitle is the longest name a session can be given, in characters.
const MaxTitle = 200

// UndoDeleteFor is how long a deleted session can be taken back.
const UndoDeleteFor = 6 * time.Second

// Rename gives a session a name of the user's. The name is one line: its
// runs of spaces, tabs and line breaks become one space. A name the user
// gave is kept: the first message names only a session still called "New
// session".
func (m *Manager) Rename(ctx context.Context, id, title string) (Summary, error) {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return Summary{}, errors.New("type a name for the session (Esc keeps the old one)")
	}
	if n := utf8.RuneCountInString(title); n > MaxTitle {
		return Summary{}, fmt.Errorf("a session's name can have at most %d characters; this one has %d", MaxTitle, n)
	}
	s, err := m.store.RenameSession(ctx, id, title)
	if err != nil {
		return Summary{}, err
	}
	return m.summary(ctx, s)
}

// SetPinned pins a session on top of the list, or unpins it.
func (m *Manager) SetPinned(ctx context.Context, id string, on bool) (Summary, error) {
	s, err := m.store.SetPinned(ctx, id, on)
	if err != nil {
		return Summary{}, err
	}
	return m.summary(ctx, s)
}

// Duplicate makes a copy of a session: a new session with the same
// workspace, model, host, tools and Step mode whose log is a copy of the
// source's, event for event (store.CopySession, one transaction), linked
// to it by CopiedFrom. The copy goes on from where the source ended, on
// its own: what either does next is not the other's. The answers given
// "for this session" are the source's alone; the copy asks again. A
// session whose run has not ended cannot be copied, and nothing changes.
func (m *Manager) Duplicate(ctx context.Context, id string) (Summary, error) {
	src, err := m.store.GetSession(ctx, id)
	if err != nil {
		return Summary{}, err
	}
	title := copyTitle(src.Title)
	s, err := m.store.CopySession(ctx, id, title)
	if errors.Is(err, store.ErrRunOpen) {
		return Summary{}, fmt.Errorf("“%s” has a run that has not ended: stop it or let it finish, then duplicate the session", src.Title)
	}
	if err != nil {
		return Summary{}, err
	}
	return m.summary(ctx, s)
}

// copyTitle names a copy after its source, within MaxTitle.
func copyTitle(title string) string {
	if title == "" {
		title = "Untitled session"
	}
	const suffix = " (copy)"
	if r := []rune(title); len(r)+utf8.RuneCountInString(suffix) > MaxTitle {
		title = string(r[:MaxTitle-utf8.RuneCountInString(suffix)])
	}
	return title + suffix
}

// DeleteLater deletes a session after a while (after; UndoDeleteFor when
// 0), until when UndoDelete takes it back. Meanwhile the session is left
// out of List and Search, and nothing of it is touched in the database:
// if the process dies before the time is up, the session is still there
// when Loupe opens again. Of the two ways a crash can go, keeping what the
// user may have wanted back is the one that loses nothing; they can
// delete it again. Close deletes what is still waiting. A session whose
// run is going or paused is refused: stopping a run cannot be taken back.
// It returns when the session goes for good.
func (m *Manager) DeleteLater(ctx context.Context, id string, after time.Duration) (time.Time, error) {
	s, err := m.store.GetSession(ctx, id)
	if err != nil {
		return time.Time{}, err
	}
	if m.runs(id) || s.OpenRun != 0 {
		return time.Time{}, fmt.Errorf("“%s” has a run that has not ended: stop it first, then delete the session", s.Title)
	}
	if after <= 0 {
		after = UndoDeleteFor
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if t := m.deleting[id]; t != nil {
		t.Stop()
	}
	m.deleting[id] = time.AfterFunc(after, func() { m.deleteNow(id) })
	return time.Now().Add(after), nil
}

// UndoDelete takes back a DeleteLater whose time is not up. Once the
// session is gone it says so.
func (m *Manager) UndoDelete(ctx context.Context, id string) (Summary, error) {
	m.mu.Lock()
	t := m.deleting[id]
	delete(m.deleting, id)
	m.mu.Unlock()
	if t == nil {
		if _, err := m.store.GetSession(ctx, id); err != nil {
			return Summary{}, fmt.Errorf("the session is deleted already: %w", err)
		}
		return m.summaryOf(ctx, id) // nothing was waiting: it is there
	}
	t.Stop()
	return m.summaryOf(ctx, id)
}

// deleteNow deletes a session DeleteLater left waiting, unless it was
// taken back meanwhile.
func (m *Manager) deleteNow(id string) {
	m.mu.Lock()
	_, waiting := m.deleting[id]
	delete(m.deleting, id)
	m.mu.Unlock()
	if !waiting {
		return
	}
	if err := m.deleteSession(context.Background(), id); err != nil && !errors.Is(err, store.ErrNotFound) {
		log.Printf("loupe: deleting session %s: %v", id, err)
	}
}

// finishDeletes deletes at once every session DeleteLater left waiting:
// the app is closing, and the user did not take them back.
func (m *Manager) finishDeletes() {
	m.mu.Lock()
	ids := make([]string, 0, len(m.deleting))
	for id, t := range m.deleting {
		t.Stop()
		ids = append(ids, id)
	}
	m.mu.Unlock()
	for _, id := range ids {
		m.deleteNow(id)
	}
}

// beingDeleted tells whether DeleteLater is waiting to delete the session.
func (m *Manager) beingDeleted(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.deleting[id]
	return ok
}
