package session

import (
	"context"
	"errors"
	"io"
	"os"
)

// Clash names the session an import would have replaced: the window asks
// whether to keep both or skip.
type Clash struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// Import is the window's import of a session file read from r: a Loupe
// export or another agent's session, told from the file (ImportFrom; a
// file that names no folder works in the home folder). A session whose id is taken, with how
// ImportKeepID, imports nothing and comes back as the result's Clash, for
// the window to ask what to do and import again with ImportAsNew or
// ImportSkip.
func (m *Manager) Import(ctx context.Context, r io.Reader, how string) (ImportResult, error) {
	home, _ := os.UserHomeDir()
	res, err := ImportFrom(ctx, m.store, r, "", how, ImportOptions{Workspace: home})
	var clash *ClashError
	if errors.As(err, &clash) {
		return ImportResult{Clash: &Clash{ID: clash.ID, Title: clash.Title}}, nil
	}
	return res, err
}
