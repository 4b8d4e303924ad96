package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/loupe-dev/loupe/backend/session"
)

// ShareSession asks where to save a shared replay of the session (the file
// `loupe export --format html` writes: one page that replays it in any
// browser, from disk) and writes it there. It returns the path written, or
// "" when the user cancelled. The file appears whole or not at all: it is
// written beside its place and renamed into it.
func (a *App) ShareSession(id string) (string, error) {
	if err := a.ready(); err != nil {
		return "", err
	}
	s, err := a.store.GetSession(a.ctx, id)
	if err != nil {
		return "", err
	}
	path, err := runtime.SaveFileDialog(a.ctx, runtime.SaveDialogOptions{
		Title:           "Share a replay of this session",
		DefaultFilename: replayName(s.Title),
		Filters:         []runtime.FileFilter{{DisplayName: "Web page (*.html)", Pattern: "*.html"}},
	})
	if err != nil || path == "" {
		return "", err
	}
	return path, writeReplay(a, id, path)
}

func writeReplay(a *App, id, path string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".loupe-replay-*.html")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", filepath.Dir(path), err)
	}
	defer os.Remove(f.Name()) // gone once renamed; the leftover of a failure otherwise
	err = session.Export(a.ctx, a.store, id, "html", f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	return err
}

var unsafeName = regexp.MustCompile(`[^\p{L}\p{N}._ -]+`)

// replayName is the file name offered for a session's replay: its title
// with what a file name should not hold taken out.
func replayName(title string) string {
	name := strings.Join(strings.Fields(unsafeName.ReplaceAllString(title, " ")), " ")
	if r := []rune(name); len(r) > 60 {
		name = strings.TrimSpace(string(r[:60]))
	}
	if name == "" {
		name = "session"
	}
	return name + ".html"
}
