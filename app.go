package main

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/workspace"
)

// Event channels the UI listens on (frontend/src/lib/bridge).
const (
	chanEvent          = "loupe:event"
	chanDelta          = "loupe:delta"
	chanSession        = "loupe:session"
	chanApproval       = "loupe:approval"
	chanApprovalClosed = "loupe:approval_closed"
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
	broker  *permission.Broker
	mgr     *session.Manager
	ollama  *ollama.Client
	openErr error
}

// NewApp returns an unstarted app.
func NewApp(f Flags) *App { return &App{flags: f} }

func (a *App) startup(ctx context.Context) {
	a.ctx = ctx
	host := a.flags.Host
	if host == "" {
		host = ollama.HostFromEnv()
	}
	a.ollama = ollama.New(host, nil)
	a.dbPath = store.ResolvePath(a.flags.DB)
	st, err := store.Open(a.dbPath)
	if err != nil {
		// The window still opens and says why; nothing is written.
		a.openErr = err
		return
	}
	a.store = st
	a.broker = permission.NewBroker()
	a.broker.OnOpen = func(r permission.Request) { runtime.EventsEmit(a.ctx, chanApproval, r) }
	a.broker.OnClose = func(id, decision string) {
		runtime.EventsEmit(a.ctx, chanApprovalClosed, map[string]string{"id": id, "decision": decision})
	}
	a.mgr = session.NewManager(st, a.ollama, a.broker, sink{a})
	// Recovery may wait on Ollama (a paused run checks its model), so it
	// must not hold the window back; what it writes reaches the UI as
	// events.
	go func() {
		if err := a.mgr.Recover(ctx); err != nil {
			runtime.LogErrorf(ctx, "recovering open runs: %v", err)
		}
	}()
}

func (a *App) shutdown(context.Context) {
	if a.mgr != nil {
		a.mgr.StopAll()
	}
	if a.store != nil {
		_ = a.store.Close()
	}
}

// sink forwards live updates to the UI.
type sink struct{ a *App }

func (s sink) Event(e trace.Event)         { runtime.EventsEmit(s.a.ctx, chanEvent, e) }
func (s sink) Delta(d agent.Delta)         { runtime.EventsEmit(s.a.ctx, chanDelta, d) }
func (s sink) Session(sum session.Summary) { runtime.EventsEmit(s.a.ctx, chanSession, sum) }

// Status tells the UI where Ollama and the database are and whether they
// work, with what to do when they don't.
type Status struct {
	OllamaHost string `json:"ollama_host"`
	Reachable  bool   `json:"reachable"`
	Version    string `json:"version"`
	Message    string `json:"message"`
	DBPath     string `json:"db_path"`
	DBError    string `json:"db_error"`
}

func (a *App) ready() error {
	if a.openErr != nil {
		return a.openErr
	}
	if a.mgr == nil {
		return errors.New("Loupe is still starting")
	}
	return nil
}

// Status checks Ollama (quickly) and reports the database.
func (a *App) Status() (Status, error) {
	st := Status{OllamaHost: a.ollama.Host(), DBPath: a.dbPath}
	if a.openErr != nil {
		st.DBError = a.openErr.Error()
	}
	ctx, cancel := context.WithTimeout(a.ctx, 3*time.Second)
	defer cancel()
	v, err := a.ollama.Version(ctx)
	if err != nil {
		st.Message = err.Error()
		return st, nil
	}
	st.Reachable, st.Version = true, v
	return st, nil
}

// ListModels lists installed models with their capabilities.
func (a *App) ListModels() ([]ollama.ModelInfo, error) { return a.ollama.Models(a.ctx) }

// ListSessions lists stored sessions, most recent first.
func (a *App) ListSessions() ([]session.Summary, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return a.mgr.List(a.ctx)
}

// NewSession creates an empty session on a workspace folder.
func (a *App) NewSession(workspace, model string) (session.Summary, error) {
	if err := a.ready(); err != nil {
		return session.Summary{}, err
	}
	return a.mgr.Create(a.ctx, workspace, model)
}

// DeleteSession stops and deletes a session.
func (a *App) DeleteSession(id string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.mgr.Delete(a.ctx, id)
}

// SetModel changes a session's model.
func (a *App) SetModel(id, model string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.mgr.SetModel(a.ctx, id, model)
}

// OpenSession returns a session's log, each event with the payload its
// card draws (long texts cut; EventPayload has the rest), and its open
// questions.
func (a *App) OpenSession(id string) (session.Detail, error) {
	if err := a.ready(); err != nil {
		return session.Detail{}, err
	}
	return a.mgr.Open(a.ctx, id)
}

// EventPayload is the whole payload of a session's event seq, as stored
// (JSON), for an event OpenSession sent cut.
func (a *App) EventPayload(id string, seq int64) (string, error) {
	if err := a.ready(); err != nil {
		return "", err
	}
	return a.mgr.Payload(a.ctx, id, seq)
}

// Send starts a run with the user's message.
func (a *App) Send(id, text string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.mgr.Start(a.ctx, id, text, session.RunOptions{})
}

// Stop cancels a session's run.
func (a *App) Stop(id string) error {
	if err := a.ready(); err != nil {
		return err
	}
	a.mgr.Stop(id)
	return nil
}

// AnswerFor approves or denies a pending tool call and remembers the answer
// for the scope: "once", "session" or "workspace".
func (a *App) AnswerFor(approvalID string, allow bool, scope string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.broker.Reply(approvalID, allow, permission.Scope(scope))
}

// PickWorkspace opens the native folder picker; "" when cancelled.
func (a *App) PickWorkspace() (string, error) {
	return runtime.OpenDirectoryDialog(a.ctx, runtime.OpenDialogOptions{Title: "Choose the workspace folder"})
}

// PickFolder opens the native folder picker with the title given (say,
// for a folder commands may read); "" when cancelled.
func (a *App) PickFolder(title string) (string, error) {
	return runtime.OpenDirectoryDialog(a.ctx, runtime.OpenDialogOptions{Title: title})
}

// RawRequest is the exact body sent to Ollama for a model_request event.
func (a *App) RawRequest(id string, seq int64) (string, error) {
	if err := a.ready(); err != nil {
		return "", err
	}
	return a.mgr.RawRequest(a.ctx, id, seq)
}

// GetSettings returns the current settings.
func (a *App) GetSettings() (session.Settings, error) {
	if err := a.ready(); err != nil {
		return session.DefaultSettings(), err
	}
	return a.mgr.Settings(a.ctx)
}

// SaveSettings validates and saves settings.
func (a *App) SaveSettings(s session.Settings) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.mgr.SaveSettings(a.ctx, s)
}

// SetStepping turns step-through on or off for a session.
func (a *App) SetStepping(id string, on bool) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.mgr.SetStepping(a.ctx, id, on)
}

// SetBreakpoints sets where a session pauses when not stepping.
func (a *App) SetBreakpoints(id string, bp session.Breakpoints) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.mgr.SetBreakpoints(a.ctx, id, bp)
}

// Step resumes a paused run until the next checkpoint.
func (a *App) Step(id string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.mgr.Resume(id, trace.ActionStep)
}

// Continue resumes a paused run until a breakpoint or the end.
func (a *App) Continue(id string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.mgr.Resume(id, trace.ActionContinue)
}

// EditRequest changes the pending request of a run paused before_request.
func (a *App) EditRequest(id string, e session.RequestEdit) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.mgr.EditRequest(a.ctx, id, e)
}

// EditArgs changes the arguments of the call a run is paused before; they
// are checked against the tool's schema again.
func (a *App) EditArgs(id string, args string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.mgr.EditArgs(a.ctx, id, args)
}

// SkipCall answers the call a run is paused before with the user's own
// observation, without running it.
func (a *App) SkipCall(id string, observation string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.mgr.SkipCall(a.ctx, id, observation)
}

// EditResult changes the result a run is paused after, before the model
// sees it.
func (a *App) EditResult(id string, content string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.mgr.EditResult(a.ctx, id, content)
}

// RestoreFiles puts the files changed at or after event seq back as they
// were; with force false, files changed outside Loupe since are only
// reported.
func (a *App) RestoreFiles(id string, seq int64, force bool) (session.RestoreResult, error) {
	if err := a.ready(); err != nil {
		return session.RestoreResult{}, err
	}
	return a.mgr.RestoreFiles(a.ctx, id, seq, force)
}

// UndoRun puts the files back as they were before a run (a turn).
func (a *App) UndoRun(id string, run int, force bool) (session.RestoreResult, error) {
	if err := a.ready(); err != nil {
		return session.RestoreResult{}, err
	}
	return a.mgr.UndoRun(a.ctx, id, run, force)
}

// Workspace describes a workspace folder's trust, network and remembered
// answers.
func (a *App) Workspace(dir string) (workspace.Info, error) {
	if err := a.ready(); err != nil {
		return workspace.Info{}, err
	}
	return a.mgr.Workspaces().Info(a.ctx, dir)
}

// TrustWorkspace trusts (or not) the workspace's .loupe/settings.json as
// it is now.
func (a *App) TrustWorkspace(dir string, trust bool) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.mgr.Workspaces().Trust(a.ctx, dir, trust)
}

// SetWorkspaceNetwork lets a workspace's commands use the network.
func (a *App) SetWorkspaceNetwork(dir string, allow bool) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.mgr.Workspaces().SetNetwork(a.ctx, dir, allow)
}

// SetWorkspaceExpose sets the host paths a workspace's commands may read
// (read-only), beside the workspace and the system's directories. The
// backend refuses a relative path, one that does not exist, the home
// folder as a whole and anything holding Loupe's data folder.
func (a *App) SetWorkspaceExpose(dir string, paths []string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.mgr.Workspaces().SetExpose(a.ctx, dir, paths)
}

// ForgetGrants drops the answers remembered for a workspace.
func (a *App) ForgetGrants(dir string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.mgr.Workspaces().ForgetGrants(a.ctx, dir)
}

// Protections says which OS protections commands get on this machine.
func (a *App) Protections() sandbox.Protections { return workspace.Protections() }

// RuleLimits says what a rule cannot hold (a command deny rule cannot see
// inside inline interpreter code or scripts) and which path rules would
// hold it whatever runs, for the rule editor.
func (a *App) RuleLimits(r permission.Rule) permission.RuleLimits { return r.Limits() }
