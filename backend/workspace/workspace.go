// Package workspace keeps what Loupe knows about one workspace folder: its
// trust, the answers remembered for it, its network and exposed paths, its
// .loupe/settings.json, and the permission policy and command sandbox
// assembled for a run in it.
package workspace

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"github.com/loupe-dev/loupe/backend/place"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/loupe-dev/loupe/backend/hands"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Settings is where the workspaces' states are saved (the store's
// settings table).
type Settings interface {
	GetSetting(ctx context.Context, key string, dst any) (bool, error)
	PutSetting(ctx context.Context, key string, v any) error
}

// Workspaces is safe for concurrent use.
type Workspaces struct {
	settings Settings
	// db is the database file: protected from tools, hidden from commands.
	db string
	// dataDir is Loupe's data folder: no workspace may hold it.
	dataDir string
	// mu serialises read-modify-write of saved workspace states.
	mu sync.Mutex
}

// New keeps the workspaces' states in settings. db is the database file
// and dataDir Loupe's default data folder.
func New(settings Settings, db, dataDir string) *Workspaces {
	// What a crashed Loupe left to hold paths goes as Loupe starts.
	sweepPlaceholders()
	return &Workspaces{settings: settings, db: db, dataDir: dataDir}
}

// Info is what Loupe keeps about a workspace folder: whether the
// user trusts its .loupe/settings.json, whether its commands may use the
// network, and the answers remembered "for this workspace".
type Info struct {
	Dir string `json:"dir"`
	// Trusted is true when the user trusted the settings file as it is
	// now; a changed file needs trusting again.
	Trusted bool `json:"trusted"`
	// HasSettings tells whether .loupe/settings.json exists;
	// SettingsError says why it was ignored, if it was.
	HasSettings   bool                         `json:"has_settings"`
	SettingsError string                       `json:"settings_error,omitempty"`
	Settings      permission.WorkspaceSettings `json:"settings"`
	// Digest is the SHA-256 of the settings file as it was read for
	// this Info: what the window sends back with Trust (Change.Seen).
	Digest       string `json:"digest,omitempty"`
	AllowNetwork bool   `json:"allow_network"`
	// Expose lists host paths the workspace's commands may read (a
	// toolchain under the home directory, say); nothing else outside the
	// workspace and the system's directories is visible to them.
	Expose []string           `json:"expose"`
	Grants []permission.Grant `json:"grants"`
}

// state is what is saved per workspace.
type state struct {
	TrustedDigest string             `json:"trusted_digest,omitempty"`
	AllowNetwork  bool               `json:"allow_network,omitempty"`
	Expose        []string           `json:"expose,omitempty"`
	Grants        []permission.Grant `json:"grants,omitempty"`
}

func key(dir string) string { return "workspace/" + dir }

func (w *Workspaces) state(ctx context.Context, dir string) (state, error) {
	var st state
	_, err := w.settings.GetSetting(ctx, key(dir), &st)
	return st, err
}

func (w *Workspaces) update(ctx context.Context, dir string, f func(*state)) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	st, err := w.state(ctx, dir)
	if err != nil {
		return err
	}
	f(&st)
	return w.settings.PutSetting(ctx, key(dir), st)
}

// CheckNew is Check for a folder a session is about to be made on: it also
// refuses one that holds Loupe's data folder.
func (w *Workspaces) CheckNew(dir string) (string, error) {
	abs, err := Check(dir)
	if err == nil {
		err = holdsDataDir(abs, w.dataDir)
	}
	return abs, err
}

// Info describes a workspace folder's trust and permissions.
func (w *Workspaces) Info(ctx context.Context, dir string) (Info, error) {
	abs, err := Check(dir)
	if err != nil {
		return Info{}, err
	}
	st, err := w.state(ctx, abs)
	if err != nil {
		return Info{}, err
	}
	info := Info{Dir: abs, AllowNetwork: st.AllowNetwork, Grants: st.Grants, Expose: st.Expose}
	if info.Grants == nil {
		info.Grants = []permission.Grant{}
	}
	if info.Expose == nil {
		info.Expose = []string{}
	}
	ws, err := permission.LoadWorkspaceSettings(abs)
	switch {
	case err != nil:
		info.HasSettings, info.SettingsError = true, err.Error()
	case ws.Path != "":
		info.HasSettings, info.Settings, info.Digest = true, ws, ws.Digest
		info.Trusted = st.TrustedDigest != "" && st.TrustedDigest == ws.Digest
	}
	return info, nil
}

// Trust trusts (or stops trusting) the workspace's settings file
// as it is now. Until then, it cannot grant permissions or add commands.
func (w *Workspaces) Trust(ctx context.Context, dir string, trust bool) error {
	return w.trust(ctx, dir, trust, "")
}

// trust is Trust of the file the user was shown (seen, its digest; ""
// for whatever it holds now): a command of another session may rewrite
// the file between the showing and the click, and the user trusts what
// they read, not what is there by then.
func (w *Workspaces) trust(ctx context.Context, dir string, trust bool, seen string) error {
	info, err := w.Info(ctx, dir)
	if err != nil {
		return err
	}
	if trust && info.SettingsError != "" {
		return fmt.Errorf("cannot trust it: %s", info.SettingsError)
	}
	if trust && seen != "" && info.Settings.Digest != seen {
		return fmt.Errorf("not trusted: %s changed since it was shown to you; read it again before you trust it", workspaceSettingsName(info))
	}
	return w.update(ctx, info.Dir, func(st *state) {
		st.TrustedDigest = ""
		if trust {
			st.TrustedDigest = info.Settings.Digest
		}
	})
}

// SetNetwork lets the workspace's commands use the network, or not.
func (w *Workspaces) SetNetwork(ctx context.Context, dir string, allow bool) error {
	abs, err := Check(dir)
	if err != nil {
		return err
	}
	return w.update(ctx, abs, func(st *state) { st.AllowNetwork = allow })
}

// SetExpose sets the host paths the workspace's commands may read
// (read-only). Each must be an absolute path that exists, and none may be
// or hold Loupe's data folder or the home folder as a whole.
// CheckShown refuses a host path that may not be shown, read-only, to
// what runs in the sandbox (whom: commands, an MCP server): one that is
// or holds the home folder, or holds Loupe's data folder.
func (w *Workspaces) CheckShown(p, whom string) error {
	if err := notTooWide(p); err != nil {
		return fmt.Errorf("%s cannot be shown to %s: it is or holds your home folder", p, whom)
	}
	if err := holdsDataDir(p, w.dataDir); err != nil {
		return fmt.Errorf("%s cannot be shown to %s: it holds Loupe's data folder", p, whom)
	}
	return nil
}

func (w *Workspaces) SetExpose(ctx context.Context, dir string, paths []string) error {
	abs, err := Check(dir)
	if err != nil {
		return err
	}
	clean := []string{}
	for _, p := range paths {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			return fmt.Errorf("%q: give an absolute path", p)
		}
		p = filepath.Clean(p)
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%s cannot be shown to commands: %w", p, err)
		}
		if err := w.CheckShown(p, "commands"); err != nil {
			return err
		}
		clean = append(clean, p)
	}
	return w.update(ctx, abs, func(st *state) { st.Expose = clean })
}

// ForgetGrants drops the answers remembered for a workspace.
func (w *Workspaces) ForgetGrants(ctx context.Context, dir string) error {
	abs, err := Check(dir)
	if err != nil {
		return err
	}
	return w.update(ctx, abs, func(st *state) { st.Grants = nil })
}

// Change is one change to a workspace folder's settings, as the window
// sends it: exactly one field is set.
type Change struct {
	// Trust trusts (true) or stops trusting its .loupe/settings.json as
	// it is now.
	Trust *bool `json:"trust,omitempty"`
	// Seen is, with Trust, the digest of the settings file the user was
	// shown (Info.Settings.Digest): if the file reads otherwise now, it
	// is not trusted.
	Seen string `json:"seen,omitempty"`
	// Network lets its commands use the network, or not.
	Network *bool `json:"network,omitempty"`
	// Expose replaces the host paths its commands may also read.
	Expose *[]string `json:"expose,omitempty"`
	// ForgetGrants drops the answers remembered for it.
	ForgetGrants bool `json:"forget_grants,omitempty"`
}

// Apply makes one change and describes the workspace as it is then.
func (w *Workspaces) Apply(ctx context.Context, dir string, c Change) (Info, error) {
	set := 0
	for _, on := range []bool{c.Trust != nil, c.Network != nil, c.Expose != nil, c.ForgetGrants} {
		if on {
			set++
		}
	}
	if set != 1 {
		return Info{}, errors.New("change one thing of a workspace at a time: trust, network, expose or forget_grants")
	}
	var err error
	switch {
	case c.Trust != nil:
		err = w.trust(ctx, dir, *c.Trust, c.Seen)
	case c.Network != nil:
		err = w.SetNetwork(ctx, dir, *c.Network)
	case c.Expose != nil:
		err = w.SetExpose(ctx, dir, *c.Expose)
	default:
		err = w.ForgetGrants(ctx, dir)
	}
	if err != nil {
		return Info{}, err
	}
	return w.Info(ctx, dir)
}

// Remember keeps an answer given "for this workspace".
func (w *Workspaces) Remember(ctx context.Context, dir string, g permission.Grant) error {
	return w.update(ctx, dir, func(st *state) { st.Grants = append(st.Grants, g) })
}

// ErrStoppedWaiting is Hands' error when the wait for the commands of the
// folder ended (the user chose Stop waiting): nothing was changed, and
// nothing went wrong.
var ErrStoppedWaiting = errors.New("stopped waiting")

// Hands opens dir for what Loupe's own process changes in it (undo and
// restore, a fork's copy of it, the clean-up of a crashed write): links
// are never followed, and the paths the tools' policy protects (the
// built-in list and Loupe's database with its -wal, -shm and -journal
// when they lie in dir) are refused. It first waits until no command
// runs in a workspace that overlaps dir, whichever session's it is
// (sandbox.Quiet), and none starts until the root is closed: what is
// judged of a path (a repository's file, a link) stays true while it is
// acted on. ctx ends the wait.
func (w *Workspaces) Hands(ctx context.Context, dir string) (*hands.Root, error) {
	// Quiet first: while it holds, no command of a workspace that holds
	// dir, lies in it or is it runs, so what is judged next stays what
	// is opened (a command of a session in the folder above could
	// otherwise swap dir for a link to ~/.ssh while Loupe waited for it).
	release, err := sandbox.Quiet(ctx, dir)
	if errors.Is(err, context.Canceled) {
		return nil, fmt.Errorf("%w for the commands that run in %s to end; nothing was changed", ErrStoppedWaiting, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("waiting for the commands that run in %s to end: %w", dir, err)
	}
	// Held open, then judged by its own path and opened as that folder
	// (as Assemble does, held.go).
	held, err := holdFolder(dir)
	if err != nil {
		release()
		return nil, err
	}
	defer held.Close()
	// Checked at every use, not only when a session is made here: an
	// imported session names a folder no one chose on this machine.
	abs, err := w.CheckNew(held.real)
	if err != nil {
		release()
		return nil, err
	}
	pol := permission.Policy{Workspace: abs, ProtectedFiles: []string{w.db}}
	root, err := hands.Open(abs, pol.ProtectedCheck())
	if err != nil {
		release()
		return nil, err
	}
	if !root.Is(held.info) {
		root.Close()
		release()
		return nil, fmt.Errorf("workspace %s changed while Loupe opened it; nothing was changed", dir)
	}
	root.AtClose(release)
	return root, nil
}

// Protections says which OS protections commands get on this machine.
func Protections() sandbox.Protections { return sandbox.Probe() }

// Run is what a run brings to the assembly of its policy.
type Run struct {
	Mode  permission.Mode
	Tools map[string]permission.ToolSetting
	Rules []permission.Rule
	// Grants are the answers given for the run's session.
	Grants []permission.Grant
}

// Assemble builds the permission policy and the command runner of a run
// in dir, and notices for what the user should know before it starts.
func (w *Workspaces) Assemble(ctx context.Context, dir string, run Run) (permission.Policy, sandbox.Runner, []trace.Notice, error) {
	// As Hands: a run of an imported session starts in a folder no one
	// chose here.
	// Judged, read and given to the commands as one folder, held open
	// (a command of a session in the folder above could otherwise swap
	// it for a link between two of these).
	held, err := holdFolder(dir)
	if err != nil {
		return permission.Policy{}, nil, nil, err
	}
	defer held.Close()
	if _, err := Check(held.real); err != nil {
		return permission.Policy{}, nil, nil, err
	}
	// And as a session's workspace is opened: a Loupe that crashed since
	// this one started left its placeholders there.
	sweepPlaceholders()
	st, err := w.state(ctx, dir)
	if err != nil {
		return permission.Policy{}, nil, nil, err
	}
	pol := permission.Policy{Mode: run.Mode, Tools: run.Tools, Rules: run.Rules, Workspace: dir}
	pol.ProtectedFiles = []string{w.db}
	pol.Grants = append(append([]permission.Grant(nil), st.Grants...), run.Grants...)
	var notices []trace.Notice
	ws, err := permission.LoadWorkspaceSettings(held.via())
	switch {
	case err != nil:
		notices = append(notices, trace.Notice{Code: "workspace_settings", Message: err.Error()})
	case ws.Path != "" && st.TrustedDigest != "" && st.TrustedDigest == ws.Digest:
		pol.WorkspaceSettings, pol.Trusted = ws, true
	case ws.Path != "":
		// Its deny and ask rules count all the same.
		pol.WorkspaceSettings = ws
		notices = append(notices, trace.Notice{Code: "workspace_untrusted",
			Message: "this workspace has .loupe/settings.json; its deny and ask rules apply, and its allow rules, commands and network are ignored until you trust the workspace (Settings → Workspace)"})
	}
	if err := holdsDataDir(held.real, w.dataDir); err != nil {
		return pol, nil, nil, err
	}
	// What was judged by its path is the folder held, or nothing runs.
	if !held.still() {
		return pol, nil, nil, fmt.Errorf("workspace %s changed while the run began (another command replaced it, or made it a link); look at what is there, then send again", dir)
	}
	// The folder judged: each command runs in it or not at all.
	judged := held.info
	prot := sandbox.Probe()
	runner := sandbox.Confined{
		Workspace:    dir,
		Checked:      judged,
		AllowNetwork: st.AllowNetwork || (pol.Trusted && ws.AllowNetwork),
		// The view has none of these unless they are in the workspace or
		// an exposed path; wherever they are, they are covered.
		Hide:       w.Hidden(),
		Guard:      pol.CommandGuard(),
		Expose:     st.Expose,
		CacheDir:   cacheDir(dir),
		BestEffort: !prot.Sandboxed(),
	}
	if !prot.Sandboxed() {
		pol.Unconfined = prot.Summary()
		notices = append(notices, trace.Notice{Code: "not_sandboxed", Message: prot.Summary() + "; Loupe asks before every command"})
	}
	if err := pol.Validate(); err != nil {
		return pol, nil, nil, fmt.Errorf("permission settings: %w", err)
	}
	return pol, runner, notices, nil
}

// sweepPlaceholders removes what a Loupe process that is gone left to hold
// paths, and logs why when it cannot: nothing is lost (the next command
// whose view covers a placeholder takes it up), but the user's tree keeps
// empty files and folders meanwhile.
func sweepPlaceholders() {
	if err := sandbox.SweepPlaceholders(); err != nil {
		log.Printf("loupe: %v", err)
	}
}

// cacheDir is a per-workspace folder that confined commands may write and
// that lasts between commands (build caches).
func cacheDir(workspace string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	// Keyed by a hash of the whole path: two workspaces never share one.
	sum := fmt.Sprintf("%x", sha256.Sum256([]byte(filepath.Clean(workspace))))
	dir := filepath.Join(base, "loupe", "workspaces", sum)
	if os.MkdirAll(dir, 0o700) != nil {
		return ""
	}
	return dir
}

// Check makes dir absolute and says what is wrong with it as a workspace:
// missing, not a folder, too wide (the whole file system, the home folder
// or a folder holding it), in a folder of the home folder that starts
// programs or holds credentials (Refused), or the hooks folder of the
// repository it lies in (sandbox.HooksFolderOf).
func Check(dir string) (string, error) {
	if strings.TrimSpace(dir) == "" {
		return "", errors.New("choose a workspace folder first")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace %q: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("workspace %s cannot be opened: %w", abs, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a folder", abs)
	}
	if err := notTooWide(abs); err != nil {
		return "", err
	}
	if err := Refused(abs); err != nil {
		return "", err
	}
	if repo, ok := sandbox.HooksFolderOf(abs); ok {
		// Nothing in it could be held for a command (every file would
		// be held), and every file the model writes there is one.
		return "", fmt.Errorf("workspace %s is the hooks folder the settings of the repository %s name: every file in it is a program your git runs; choose the project folder instead", abs, repo)
	}
	return abs, nil
}

// notTooWide refuses a workspace that is the whole file system or holds
// the home directory: everything in a workspace is the model's to read
// and, through commands, to change.
func notTooWide(abs string) error {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs
	}
	if real == string(filepath.Separator) {
		return fmt.Errorf("workspace %s is the whole file system; choose a project folder", abs)
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if place.Same(home, real) {
			return fmt.Errorf("workspace %s is your home folder, which holds your keys, settings and other projects; choose a project folder inside it", abs)
		}
		if place.Holds(real, home) {
			return fmt.Errorf("workspace %s holds your home folder (%s); choose a project folder", abs, home)
		}
	}
	return nil
}

// holdsDataDir refuses a workspace that contains Loupe's data directory
// (where the database and settings are kept unless --db says otherwise).
// A database chosen elsewhere is not refused this way: its file and
// companions are hidden from commands wherever they are.
func holdsDataDir(ws, dataDir string) error {
	if dataDir == "" {
		return nil
	}
	if place.Holds(ws, dataDir) {
		return fmt.Errorf("workspace %s holds Loupe's data folder (%s), where sessions and settings are kept; choose a project folder that does not", ws, dataDir)
	}
	if place.Holds(dataDir, ws) {
		return fmt.Errorf("workspace %s is in Loupe's data folder (%s), where sessions and settings are kept; choose a project folder outside it", ws, dataDir)
	}
	return nil
}

// workspaceSettingsName names the settings file of info, for messages.
func workspaceSettingsName(info Info) string {
	if info.Settings.Path != "" {
		return info.Settings.Path
	}
	return ".loupe/settings.json"
}
