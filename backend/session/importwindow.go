package session

import (
	"context"
	"errors"
	"io"
)

// Clash names the session an import would have replaced: the window asks
// whether to keep both or skip.
type Clash struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// Import is the window's import of a session export read from r (see the
// package function Import). A session whose id is taken, with how
// ImportKeepID, imports nothing and comes back as the result's Clash, for
// the window to ask what to do and import again with ImportAsNew or
// ImportSkip.
func (m *Manager) Import(ctx context.Context, r io.Reader, how string) (ImportResult, error) {
	res, err := Import(ctx, m.store, r, how)
	var clash *ClashError
	if errors.As(err, &clash) {
		return ImportResult{Clash: &Clash{ID: clash.ID, Title: clash.Title}}, nil
	}
	return res, err
}
