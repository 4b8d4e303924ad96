package session

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// WorkspaceInfo is what Loupe keeps about a workspace folder: whether the
// user trusts its .loupe/settings.json, whether its commands may use the
// network, and the answers remembered "for this workspace".
type WorkspaceInfo struct {
	Dir string `json:"dir"`
	// Trusted is true when the user trusted the settings file as it is
	// now; a changed file needs trusting again.
	Trusted bool `json:"trusted"`
	// HasSettings tells whether .loupe/settings.json exists;
	// SettingsError says why it was ignored, if it was.
	HasSettings   bool                         `json:"has_settings"`
	SettingsError string                       `json:"settings_error,omitempty"`
	Settings      permission.WorkspaceSettings `json:"settings"`
	AllowNetwork  bool                         `json:"allow_network"`
	// Expose lists host paths the workspace's commands may read (a
	// toolchain under the home directory, say); nothing else outside the
	// workspace and the system's directories is visible to them.
	Expose []string           `json:"expose"`
	Grants []permission.Grant `json:"grants"`
}

// workspaceState is what is saved per workspace.
type workspaceState struct {
	TrustedDigest string             `json:"trusted_digest,omitempty"`
	AllowNetwork  bool               `json:"allow_network,omitempty"`
	Expose        []string           `json:"expose,omitempty"`
	Grants        []permission.Grant `json:"grants,omitempty"`
}

func workspaceKey(dir string) string { return "workspace/" + dir }

func (m *Manager) workspaceState(ctx context.Context, dir string) (workspaceState, error) {
	var st workspaceState
	_, err := m.store.GetSetting(ctx, workspaceKey(dir), &st)
	return st, err
}

func (m *Manager) updateWorkspace(ctx context.Context, dir string, f func(*workspaceState)) error {
	m.wsMu.Lock()
	defer m.wsMu.Unlock()
	st, err := m.workspaceState(ctx, dir)
	if err != nil {
		return err
	}
	f(&st)
	return m.store.PutSetting(ctx, workspaceKey(dir), st)
}

// Workspace describes a workspace folder's trust and permissions.
func (m *Manager) Workspace(ctx context.Context, dir string) (WorkspaceInfo, error) {
	abs, err := checkWorkspace(dir)
	if err != nil {
		return WorkspaceInfo{}, err
	}
	st, err := m.workspaceState(ctx, abs)
	if err != nil {
		return WorkspaceInfo{}, err
	}
	info := WorkspaceInfo{Dir: abs, AllowNetwork: st.AllowNetwork, Grants: st.Grants, Expose: st.Expose}
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
		info.HasSettings, info.Settings = true, ws
		info.Trusted = st.TrustedDigest != "" && st.TrustedDigest == ws.Digest
	}
	return info, nil
}

// TrustWorkspace trusts (or stops trusting) the workspace's settings file
// as it is now. Until then, it cannot grant permissions or add commands.
func (m *Manager) TrustWorkspace(ctx context.Context, dir string, trust bool) error {
	info, err := m.Workspace(ctx, dir)
	if err != nil {
		return err
	}
	if trust && info.SettingsError != "" {
		return fmt.Errorf("cannot trust it: %s", info.SettingsError)
	}
	return m.updateWorkspace(ctx, info.Dir, func(st *workspaceState) {
		st.TrustedDigest = ""
		if trust {
			st.TrustedDigest = info.Settings.Digest
		}
	})
}

// SetWorkspaceNetwork lets the workspace's commands use the network, or not.
func (m *Manager) SetWorkspaceNetwork(ctx context.Context, dir string, allow bool) error {
	abs, err := checkWorkspace(dir)
	if err != nil {
		return err
	}
	return m.updateWorkspace(ctx, abs, func(st *workspaceState) { st.AllowNetwork = allow })
}

// SetWorkspaceExpose sets the host paths the workspace's commands may read
// (read-only). Each must be an absolute path that exists, and none may be
// or hold Loupe's data folder or the home folder as a whole.
func (m *Manager) SetWorkspaceExpose(ctx context.Context, dir string, paths []string) error {
	abs, err := checkWorkspace(dir)
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
		if err := notTooWide(p); err != nil {
			return fmt.Errorf("%s cannot be shown to commands: it is or holds your home folder", p)
		}
		if err := holdsDataDir(p); err != nil {
			return fmt.Errorf("%s cannot be shown to commands: it holds Loupe's data folder", p)
		}
		clean = append(clean, p)
	}
	return m.updateWorkspace(ctx, abs, func(st *workspaceState) { st.Expose = clean })
}

// ForgetGrants drops the answers remembered for a workspace.
func (m *Manager) ForgetGrants(ctx context.Context, dir string) error {
	abs, err := checkWorkspace(dir)
	if err != nil {
		return err
	}
	return m.updateWorkspace(ctx, abs, func(st *workspaceState) { st.Grants = nil })
}

// Protections says which OS protections commands get on this machine.
func Protections() sandbox.Protections { return sandbox.Probe() }

// policyFor builds the permission policy and the command runner of a run,
// and notices for what the user should know before it starts.
func (m *Manager) policyFor(ctx context.Context, id, dir string, settings Settings, mode permission.Mode) (permission.Policy, sandbox.Runner, []trace.Notice, error) {
	st, err := m.workspaceState(ctx, dir)
	if err != nil {
		return permission.Policy{}, nil, nil, err
	}
	pol := permission.Policy{Mode: mode, Tools: settings.Tools, Rules: settings.Rules, Workspace: dir}
	pol.ProtectedFiles = []string{m.store.Path()}
	pol.Grants = append(append([]permission.Grant(nil), st.Grants...), m.sessionGrants(id)...)
	var notices []trace.Notice
	ws, err := permission.LoadWorkspaceSettings(dir)
	switch {
	case err != nil:
		notices = append(notices, trace.Notice{Code: "workspace_settings", Message: err.Error()})
	case ws.Path != "" && st.TrustedDigest != "" && st.TrustedDigest == ws.Digest:
		pol.WorkspaceSettings, pol.Trusted = ws, true
	case ws.Path != "":
		notices = append(notices, trace.Notice{Code: "workspace_untrusted",
			Message: "this workspace has .loupe/settings.json; its rules are ignored until you trust the workspace (Settings → Workspace)"})
	}
	if err := holdsDataDir(dir); err != nil {
		return pol, nil, nil, err
	}
	prot := sandbox.Probe()
	db := m.store.Path()
	runner := sandbox.Confined{
		Workspace:    dir,
		AllowNetwork: st.AllowNetwork || (pol.Trusted && ws.AllowNetwork),
		// The view has none of these unless they are in the workspace or
		// an exposed path; wherever they are, they are covered.
		Hide:       []string{db, db + "-wal", db + "-shm", db + "-journal", filepath.Dir(store.DefaultPath())},
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

func (m *Manager) sessionGrants(id string) []permission.Grant {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]permission.Grant(nil), m.grants[id]...)
}

// keepGrant stores an answer the user gave "for this session" or "for this
// workspace".
func (m *Manager) keepGrant(id, dir string, g permission.Grant) {
	switch g.Scope {
	case permission.ScopeSession:
		m.mu.Lock()
		m.grants[id] = append(m.grants[id], g)
		m.mu.Unlock()
	case permission.ScopeWorkspace:
		_ = m.updateWorkspace(context.Background(), dir, func(st *workspaceState) { st.Grants = append(st.Grants, g) })
	}
}
