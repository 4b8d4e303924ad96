package main

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"strings"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/localollama"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/readiness"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/workspace"
)

// Event channels the UI listens on (frontend/src/lib/bridge): the log's
// events, from which it draws every state of a session, and the deltas:
// the streamed text of answers and the output of running commands.
const (
	chanEvent = "loupe:event"
	chanDelta = "loupe:delta"
)

// Flags are the window's command-line options.
type Flags struct {
	DB   string
	Host string
}

// windowFlags reads --db and --host by hand: a dev build of the window has
// flags of its own (-assetdir, -devserver) that a strict parser would
// reject.
func windowFlags(args []string) Flags {
	var f Flags
	for i := 0; i < len(args); i++ {
		for _, name := range []string{"db", "host"} {
			var val string
			switch a := strings.TrimLeft(args[i], "-"); {
			case a == name && i+1 < len(args):
				val = args[i+1]
				i++
			case strings.HasPrefix(a, name+"="):
				val = strings.TrimPrefix(a, name+"=")
			default:
				continue
			}
			if name == "db" {
				f.DB = val
			} else {
				f.Host = val
			}
		}
	}
	return f
}

// App is the only type that touches the Wails runtime: it wires the
// backend at startup and exposes thin bound methods to the UI.
type App struct {
	ctx     context.Context
	flags   Flags
	dbPath  string
	store   *store.Store
	mgr     *session.Manager
	ollama  *ollama.Client
	openErr error

	// host is where a.ollama talks and why; SaveSettings changes it.
	hostMu sync.Mutex
	host   settings.HostChoice

	// local is the `ollama serve` Loupe may start, and pulls the model
	// pulls under way (app_ollama.go).
	local *localollama.Launcher
	pulls ollama.Pulls
	// tries are the requests sent again under way (app_try.go).
	tries session.Tries
	// waits are the Undos, Restores and fork copies waiting for commands
	// to end (app_files.go).
	waits fileWaits

	// stopIndex ends the indexing of older events for search, and
	// indexDone is closed once it has (shutdown waits for it before the
	// store closes).
	stopIndex context.CancelFunc
	indexDone chan struct{}
	// recovered is closed when the recovery of open runs has ended.
	recovered chan struct{}
}

// NewApp returns an unstarted app.
func NewApp(f Flags) *App { return &App{flags: f, local: newLauncher()} }

func (a *App) startup(ctx context.Context) {
	a.ctx = ctx
	a.dbPath = store.ResolvePath(a.flags.DB)
	st, err := store.Open(a.dbPath)
	if err != nil {
		// The window still opens and says why; nothing is written. The
		// host is then the flag's, OLLAMA_HOST or the default.
		a.openErr = err
		a.host = settings.ChooseHost(a.flags.Host, settings.Defaults())
		a.ollama = ollama.New(a.host.Host, nil)
		return
	}
	a.store = st
	set, err := settings.Load(ctx, st) // the defaults when it fails
	a.host = settings.ChooseHost(a.flags.Host, set)
	a.ollama = ollama.New(a.host.Host, nil)
	if err == nil {
		a.ollama.SetTimeouts(set.OllamaTimeouts())
	}
	a.mgr = session.NewManager(st, a.ollama, permission.NewBroker(), sink{a})
	// Recovery may wait on Ollama (a paused run checks its model), so it
	// must not hold the window back; what it writes reaches the UI as
	// events.
	// Its error goes to the standard log: Wails' own logger ends the
	// process when the window is already gone (a close during recovery),
	// or when there never was one (the tests).
	a.recovered = make(chan struct{})
	go func() {
		defer close(a.recovered)
		if err := a.mgr.Recover(ctx); err != nil {
			log.Printf("loupe: recovering open runs: %v", err)
		}
	}()
	// Events an older Loupe wrote are indexed for search in the
	// background, in small transactions that leave the database free for
	// the runs; SearchStatus shows how far it is.
	ictx, stop := context.WithCancel(ctx)
	a.stopIndex, a.indexDone = stop, make(chan struct{})
	go func() {
		defer close(a.indexDone)
		if err := a.mgr.IndexSearch(ictx, 30*time.Second); err != nil && ictx.Err() == nil {
			log.Printf("loupe: indexing older events for search: %v", err)
		}
	}()
}

// beforeClose asks before Loupe closes while a run works: closing ends
// it as interrupted. A run paused at a checkpoint is not asked about: it
// stays paused and waits there when Loupe opens again. It returns true to
// keep the window open.
func (a *App) beforeClose(ctx context.Context) bool {
	if a.mgr == nil {
		return false
	}
	working := a.mgr.Working(ctx)
	if len(working) == 0 {
		return false
	}
	names := make([]string, len(working))
	for i, s := range working {
		names[i] = "“" + s.Title + "”"
	}
	answer, err := runtime.MessageDialog(ctx, runtime.MessageDialogOptions{
		Type:  runtime.QuestionDialog,
		Title: "Close Loupe?",
		Message: "A run is still working in " + strings.Join(names, ", ") + ". If Loupe closes now, the run stops and is recorded as interrupted because Loupe was closed.\n\n" +
			"Close Loupe anyway?",
		Buttons:       []string{"Yes", "No"},
		DefaultButton: "No",
		CancelButton:  "No",
	})
	// The platform's dialog answers Yes or No (GTK ignores the labels);
	// anything else (an error, the dialog dismissed) keeps the window.
	return err != nil || answer != "Yes"
}

func (a *App) shutdown(context.Context) {
	a.pulls.CancelAll()
	// Only a server Loupe started; one the user started stays.
	a.local.Stop()
	if a.mgr != nil {
		// A paused run stays paused; a working one is recorded as
		// interrupted because Loupe was closed.
		a.mgr.Close()
	}
	if a.stopIndex != nil {
		a.stopIndex()
		<-a.indexDone
	}
	if a.store != nil {
		_ = a.store.Close()
	}
}

// sink forwards live updates to the UI.
type sink struct{ a *App }

func (s sink) Event(e trace.Event) { runtime.EventsEmit(s.a.ctx, chanEvent, e) }
func (s sink) Delta(d agent.Delta) { runtime.EventsEmit(s.a.ctx, chanDelta, d) }

// useHost points the client at the host chosen. The manager shares the
// client, so its runs' next requests go there too.
func (a *App) useHost(c settings.HostChoice) {
	a.hostMu.Lock()
	defer a.hostMu.Unlock()
	a.host = c
	a.ollama.SetHost(c.Host)
}

func (a *App) hostChoice() settings.HostChoice {
	a.hostMu.Lock()
	defer a.hostMu.Unlock()
	return a.host
}

// Status tells the UI where Ollama and the database are and whether they
// work, with what to do when they don't.
type Status struct {
	// OllamaHost is the server the check asked; Hosts says where that
	// host was chosen from, and what else names one.
	OllamaHost string              `json:"ollama_host"`
	Hosts      settings.HostChoice `json:"hosts"`
	Reachable  bool                `json:"reachable"`
	Version    string              `json:"version"`
	Message    string              `json:"message"`
	DBPath     string              `json:"db_path"`
	DBError    string              `json:"db_error"`
	// Local is the Ollama of this machine: installed or not (and how to
	// get it), whether Loupe can start it for OllamaHost, whether it did.
	Local localollama.State `json:"local"`
}

// ready says why the sessions cannot be reached yet, if so.
func (a *App) ready() error {
	if a.openErr != nil {
		return a.openErr
	}
	if a.mgr == nil {
		return errors.New("Loupe is still starting")
	}
	return nil
}

// withManager runs f once the sessions can be reached: every bound method
// that needs them goes through it.
func withManager[T any](a *App, f func(*session.Manager) (T, error)) (T, error) {
	if err := a.ready(); err != nil {
		var zero T
		return zero, err
	}
	return f(a.mgr)
}

// Status checks Ollama (quickly) and reports the database.
func (a *App) Status() (Status, error) {
	st := Status{Hosts: a.hostChoice(), DBPath: a.dbPath}
	if a.openErr != nil {
		st.DBError = a.openErr.Error()
	}
	ctx, cancel := context.WithTimeout(a.ctx, 3*time.Second)
	defer cancel()
	v, host, err := a.ollama.VersionAt(ctx)
	st.OllamaHost = host
	st.Local = a.local.Describe(host)
	if err != nil {
		st.Message = err.Error()
		return st, nil
	}
	st.Reachable, st.Version = true, v
	return st, nil
}

// Models lists installed models with their capabilities.
func (a *App) Models() ([]ollama.ModelInfo, error) { return a.ollama.Models(a.ctx) }

// ModelsOn lists the models installed at a host as the new-session dialog
// names it: "" for the local host, or a name of Settings' Ollama hosts.
func (a *App) ModelsOn(host string) ([]ollama.ModelInfo, error) {
	if host == "" {
		return a.Models()
	}
	return withManager(a, func(m *session.Manager) ([]ollama.ModelInfo, error) { return m.ModelsOn(a.ctx, host) })
}

// Connections lists every network connection Loupe has made since it
// started: each address dialled, how often, and whether it stayed on this
// machine. Every connection goes through the Ollama client's transport.
func (a *App) Connections() []ollama.Connection {
	if a.ollama == nil {
		return []ollama.Connection{}
	}
	return a.ollama.Connections()
}

// SystemPrompt is the whole system prompt a run would send, from the
// template given (Settings' field, saved or not) in the workspace given
// (with its AGENTS.md), or with a placeholder for the folder when "".
func (a *App) SystemPrompt(template, workspace string) (session.SystemPrompt, error) {
	set := settings.Defaults()
	if a.store != nil {
		set, _ = settings.Load(a.ctx, a.store) // the defaults when it fails
	}
	return session.SystemPreview(set, template, workspace)
}

// Sessions lists stored sessions, most recent first.
func (a *App) Sessions() ([]session.Summary, error) {
	return withManager(a, func(m *session.Manager) ([]session.Summary, error) { return m.List(a.ctx) })
}

// Open returns a session with its log, each event with the payload its
// card draws (long texts of ended runs cut; EventPayload has the rest).
func (a *App) Open(id string) (session.Detail, error) {
	return withManager(a, func(m *session.Manager) (session.Detail, error) { return m.Open(a.ctx, id) })
}

// EventPayload is the whole payload of a session's event seq, as stored
// (JSON), for an event Open sent cut.
func (a *App) EventPayload(id string, seq int64) (string, error) {
	return withManager(a, func(m *session.Manager) (string, error) { return m.Payload(a.ctx, id, seq) })
}

// Search finds text in every session's log (messages, answers, thinking,
// tool arguments and whole outputs, notices, reasons, paths): at most limit
// hits grouped by session, each with a snippet whose matched pieces are
// marked. A query of fewer than 3 characters, or only quotes, is an error
// that says so.
func (a *App) Search(query string, f store.SearchFilter, limit int) (store.SearchResults, error) {
	return withManager(a, func(m *session.Manager) (store.SearchResults, error) { return m.Search(a.ctx, query, f, limit) })
}

// SearchStatus is how many events search covers, while older ones are
// indexed in the background (results meanwhile are marked partial).
func (a *App) SearchStatus() (store.SearchStatus, error) {
	return withManager(a, func(m *session.Manager) (store.SearchStatus, error) { return m.SearchStatus(a.ctx) })
}

// Do carries out one command on a session (create, send, stop, stop_call,
// answer, step, edit, restore…); what the run does in answer arrives as events.
// The command is the JSON the window sends (session.DecodeCommand): one
// object whose "do" names the kind.
func (a *App) Do(cmd json.RawMessage) (session.Outcome, error) {
	c, err := session.DecodeCommand(cmd)
	if err != nil {
		return session.Outcome{}, err
	}
	ctx := a.ctx
	if id, ok := filesOf(c); ok {
		var done func()
		ctx, done = a.waiting(id)
		defer done()
	}
	return withManager(a, func(m *session.Manager) (session.Outcome, error) { return m.Do(ctx, c) })
}

// RawRequest is the exact body sent to Ollama for a model_request event.
func (a *App) RawRequest(id string, seq int64) (string, error) {
	if err := a.ready(); err != nil {
		return "", err
	}
	return session.RawRequest(a.ctx, a.store, id, seq)
}

// RenderedPrompt asks Ollama for the prompt the model's chat template
// makes, now, of the model_request event seq: "As the model read it".
func (a *App) RenderedPrompt(id string, seq int64) (session.RenderedPrompt, error) {
	if err := a.ready(); err != nil {
		return session.RenderedPrompt{}, err
	}
	return session.RenderRequest(a.ctx, a.store, a.ollama, id, seq)
}

// CheckModel is the readiness checklist of a model for a new or open
// session: the tools capability, whether the system prompt and the tool
// schemas leave room in num_ctx, and, when asked, one round trip.
func (a *App) CheckModel(c session.ModelCheck) (readiness.Report, error) {
	if err := a.ready(); err != nil {
		return readiness.Report{}, err
	}
	return withManager(a, func(m *session.Manager) (readiness.Report, error) {
		var mcpSpecs []llm.ToolSpec
		if c.Workspace != "" {
			specs, err := m.MCPSpecs(a.ctx, c.Workspace)
			if err != nil {
				return readiness.Report{}, err
			}
			mcpSpecs = specs
		}
		return session.CheckModelWith(a.ctx, a.store, a.ollama, c, mcpSpecs, m.SchemaCosts())
	})
}

// Settings returns the current settings.
func (a *App) Settings() (settings.Settings, error) {
	if err := a.ready(); err != nil {
		return settings.Defaults(), err
	}
	return settings.Load(a.ctx, a.store)
}

// SaveSettings validates and saves settings. The Ollama host saved is
// used from the next call to Ollama on, in every session (a --host given
// at start wins over it).
func (a *App) SaveSettings(s settings.Settings) error {
	if err := a.ready(); err != nil {
		return err
	}
	if err := settings.Save(a.ctx, a.store, s); err != nil {
		return err
	}
	// Read back: the host is stored normalised.
	saved, err := settings.Load(a.ctx, a.store)
	if err != nil {
		return err
	}
	// The waits for Ollama count from the next request on.
	a.ollama.SetTimeouts(saved.OllamaTimeouts())
	a.useHost(settings.ChooseHost(a.flags.Host, saved))
	return nil
}

// HostCheck is what an Ollama host answered when asked its version.
type HostCheck struct {
	Host      string `json:"host"`
	Reachable bool   `json:"reachable"`
	Version   string `json:"version"`
	// Message says what went wrong and what to do, when not reachable.
	Message string `json:"message"`
}

// CheckHost asks the Ollama host typed in Settings (not saved yet) for its
// version; "" checks where an empty field leads (--host, OLLAMA_HOST or
// the default). A host that cannot be used is an error saying what to
// type.
func (a *App) CheckHost(host string) (HostCheck, error) {
	h := settings.ChooseHost(a.flags.Host, settings.Settings{}).Host
	if strings.TrimSpace(host) != "" {
		var err error
		if h, err = settings.ParseOllamaHost(host); err != nil {
			return HostCheck{}, err
		}
	}
	ctx, cancel := context.WithTimeout(a.ctx, 3*time.Second)
	defer cancel()
	// A client of its own, so the check does not move the app's, sharing
	// its counted connections.
	v, err := a.ollama.At(h).Version(ctx)
	if err != nil {
		return HostCheck{Host: h, Message: err.Error()}, nil
	}
	return HostCheck{Host: h, Reachable: true, Version: v}, nil
}

// Workspace describes a workspace folder's trust, network, exposed paths
// and remembered answers.
func (a *App) Workspace(dir string) (workspace.Info, error) {
	return withManager(a, func(m *session.Manager) (workspace.Info, error) { return m.Workspaces().Info(a.ctx, dir) })
}

// SetWorkspace changes one thing of a workspace folder (trust, network,
// exposed paths, remembered answers) and describes it as it is now.
func (a *App) SetWorkspace(dir string, c workspace.Change) (workspace.Info, error) {
	return withManager(a, func(m *session.Manager) (workspace.Info, error) { return m.Workspaces().Apply(a.ctx, dir, c) })
}

// PickFolder opens the native folder picker with the title given; "" when
// cancelled.
func (a *App) PickFolder(title string) (string, error) {
	return runtime.OpenDirectoryDialog(a.ctx, runtime.OpenDialogOptions{Title: title})
}

// Protections says which OS protections commands get on this machine, and
// what the policy makes of them (sandboxed or not, what is missing).
func (a *App) Protections() sandbox.Report { return workspace.Protections().Report() }

// RuleLimits says what a rule cannot hold (a command deny rule cannot see
// inside inline interpreter code or scripts) and which path rules would
// hold it whatever runs, for the rule editor.
func (a *App) RuleLimits(r permission.Rule) permission.RuleLimits { return r.Limits() }

// CheckRule says how a rule reads and what is wrong with it, exactly as
// saving it would judge it, for the rule editor as the rule is typed.
func (a *App) CheckRule(r permission.Rule) permission.RuleCheck { return r.Check() }

// Tools lists the built-in tools in the order the model sees them, each
// with whether it takes a path (and so can be named by a path rule).
func (a *App) Tools() []session.ToolInfo { return session.BuiltinTools() }
