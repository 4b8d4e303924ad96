package main

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/loupe-dev/loupe/backend/localollama"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/store"
)

// This file is Ollama without a terminal: starting `ollama serve` from the
// window, pulling and deleting models. The work is in backend/localollama
// and backend/ollama; these are the bound methods that reach it.

// chanPull carries a pull's progress (ollama.PullProgress) to the window.
const chanPull = "loupe:pull"

// newLauncher is the launcher of the window: the server's log lives beside
// the default database, where the user's Loupe data is.
func newLauncher() *localollama.Launcher {
	return &localollama.Launcher{LogPath: filepath.Join(filepath.Dir(store.DefaultPath()), "ollama-serve.log")}
}

// StartOllama starts `ollama serve` on the host Loupe uses when nothing
// answers there (and does nothing when a server already does), and returns
// the status after. It fails, saying why and where the log is, when Ollama
// is not installed, the host is on another machine, or the server does not
// come up in time. Loupe stops a server it started when it exits.
func (a *App) StartOllama() (Status, error) {
	if _, err := a.local.Start(a.ctx, a.hostChoice().Host); err != nil {
		return Status{}, err
	}
	return a.Status()
}

// PullModel pulls a model by name into Ollama, sending its progress on
// chanPull, and returns once it is installed, failed, or was cancelled
// (CancelPull), which is not an error.
func (a *App) PullModel(name string) error {
	err := a.pulls.Run(a.ctx, a.ollama, name, func(p ollama.PullProgress) {
		runtime.EventsEmit(a.ctx, chanPull, p)
	})
	if errors.Is(err, context.Canceled) && a.ctx.Err() == nil {
		return nil
	}
	return err
}

// CancelPull stops the pull of name; nothing of it is installed then. It
// reports whether a pull of that name was under way.
func (a *App) CancelPull(name string) bool { return a.pulls.Cancel(name) }

// DeleteModel removes an installed model from Ollama.
func (a *App) DeleteModel(name string) error { return a.ollama.Delete(a.ctx, name) }
