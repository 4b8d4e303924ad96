package main

import (
	"context"
	"os"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/loupe-dev/loupe/backend/session"
)

// chanDropped carries the paths of files dropped on the window, for the
// window to import them.
const chanDropped = "loupe:files-dropped"

// domReady is called each time the window's page has loaded: from then
// on each file dropped on the window is named to it. It is not part of
// startup, which the tests call without a window (Wails' runtime would
// end the process there).
func (a *App) domReady(ctx context.Context) { a.hearDrops(ctx) }

// hearDrops names each file dropped on the window to the UI, which imports
// it (ImportFile) and asks what to do when the session is there already.
// A page loaded again (a reload) hears them once: the listener before is
// removed first.
func (a *App) hearDrops(ctx context.Context) {
	runtime.OnFileDropOff(ctx)
	runtime.OnFileDrop(ctx, func(_, _ int, paths []string) { runtime.EventsEmit(ctx, chanDropped, paths) })
}

// ImportFile stores the session in the file at path (the Import dialog's,
// or a file dropped on the window): a Loupe export, or a Claude Code,
// Codex CLI or ATIF session, imported read-only; read as a stream; how
// is session.ImportKeepID, ImportAsNew or ImportSkip. A session there
// already comes back as the result's Clash, with nothing imported.
func (a *App) ImportFile(path, how string) (session.ImportResult, error) {
	return withManager(a, func(m *session.Manager) (session.ImportResult, error) {
		f, err := os.Open(path)
		if err != nil {
			return session.ImportResult{}, err
		}
		defer f.Close()
		return m.Import(a.ctx, f, how)
	})
}

// ImportText is ImportFile for a file the page read itself: one dropped
// where the window is not told its path (a browser).
func (a *App) ImportText(text, how string) (session.ImportResult, error) {
	return withManager(a, func(m *session.Manager) (session.ImportResult, error) {
		return m.Import(a.ctx, strings.NewReader(text), how)
	})
}

// PickImportFile asks for a session file with the native file dialog: a
// Loupe export or an ATIF trajectory (*.json), a Claude Code or Codex CLI
// session (*.jsonl); "" when the user cancels.
func (a *App) PickImportFile(title string) (string, error) {
	return runtime.OpenFileDialog(a.ctx, runtime.OpenDialogOptions{Title: title,
		Filters: []runtime.FileFilter{
			{DisplayName: "Sessions (*.json, *.jsonl)", Pattern: "*.json;*.jsonl"},
			{DisplayName: "Loupe exports, ATIF trajectories (*.json)", Pattern: "*.json"},
			{DisplayName: "Claude Code, Codex CLI sessions (*.jsonl)", Pattern: "*.jsonl"},
		}})
}
