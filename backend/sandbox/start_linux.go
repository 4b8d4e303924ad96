package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/backend/cmdshell"
)

// Start prepares a long-lived confined process (an MCP server speaking on
// its stdin and stdout): argv run in dir with the command environment plus
// env, in the same view as a command of the workspace, with no network
// unless AllowNetwork. Unlike a command, the workspace is read-only to it
// but for grants (paths inside the workspace it may write; a git folder
// outside it is read-only too, and the workspace's lasting cache is not
// its), so it never counts as a running command once it runs: a server
// that runs for the whole session does not keep Quiet (an undo) waiting.
// Its setup counts as one (it waits for Quiet, and its placeholders are
// made under the same rules), until Confirm or Release. The placeholders
// its view holds are kept until Release.
//
// The caller sets the Process's stdio, starts Cmd, then calls Confirm,
// which reads the helper's report: an error there means argv never ran
// (the helper could not confine itself). Release, once the caller is done
// with it, kills the helper's process group, and with the helper its PID
// namespace, so nothing the process started outlives it.
func (c Confined) Start(ctx context.Context, argv []string, dir string, env []string, grants []string) (*Process, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("sandbox: nothing to start")
	}
	helper, err := c.helperPath()
	if err != nil {
		return nil, err
	}
	pr := probeHelper(helper)
	if c.adjust != nil {
		c.adjust(&pr)
	}
	missing := words(pr.prot.missing(c.AllowNetwork))
	if len(missing) > 0 && !c.BestEffort {
		return nil, fmt.Errorf("%w: %s", ErrNotConfined, strings.Join(missing, "; "))
	}
	s := pr.best
	if c.AllowNetwork {
		s.NetNS = false
	} else if !s.NetNS && s.Landlock >= 4 {
		s.LandlockNet = true
	}
	ws, err := c.workspaceNow(dir)
	if err != nil {
		return nil, err
	}
	wd, err := dirInWorkspace(dir, c.Workspace, ws)
	if err != nil {
		return nil, err
	}
	granted, err := grantedPaths(ws, grants)
	if err != nil {
		return nil, err
	}
	if filepath.IsAbs(argv[0]) {
		// The program itself is readable wherever it is (a server
		// installed in a folder of its own).
		c.Expose = append(slices.Clone(c.Expose), argv[0])
	}

	// Its view is made as a command's is: not while Loupe changes the
	// workspace, and counted meanwhile (what FactsOf keeps goes stale).
	if err := commandStarted(ctx, ws); err != nil {
		return nil, err
	}
	p := &Process{NotConfined: strings.Join(missing, "; ")}
	var setupOnce sync.Once
	endSetup := func() { setupOnce.Do(func() { commandEnded(ws) }) }
	scratch, err := newCommandDir()
	if err != nil {
		endSetup()
		return nil, err
	}
	var held []placeholder
	cleanup := func() {
		endSetup()
		releasePlaceholders(ws, held)
		removeAll(scratch.root)
	}

	home, _ := os.UserHomeDir()
	maxFile := c.MaxFileSize
	if maxFile <= 0 {
		maxFile = DefaultMaxFileSize
	}
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	hc := helperConfig{
		Shell: cmdshell.Commands().Path,
		// exec: the program is the shell's process, so its exit is the
		// helper's, and the helper reaps nothing else meanwhile.
		Script:      "exec " + strings.Join(q, " "),
		Dir:         wd,
		Setup:       s,
		MaxFileSize: maxFile,
		MaxMemory:   c.maxMemory(),
	}
	var cenv []string
	if s.MountNS {
		// The workspace's lasting cache is the commands': a server does
		// not write what later builds read.
		c.CacheDir = ""
		v, err := c.view(ws, home, scratch)
		if err != nil {
			cleanup()
			return nil, err
		}
		held = v.Plan.placeholders
		v.WorkspaceReadOnly, v.Grants = true, granted
		for i := range v.Git {
			v.Git[i].Writable = false
		}
		if s.PIDNS && os.Getuid() == 0 && pr.pidMax {
			v.MaxPIDs = pidMaxFor(c.maxProcesses())
		}
		hc.View = &v
		cenv = append(commandEnv(os.Environ(), ws, v.Home, "/tmp", filepath.Join(v.Home, ".cache")), gitIdentity()...)
	} else {
		// Landlock alone: the server writes only in its temp folder and
		// what it was granted.
		cache := filepath.Join(scratch.tmp, ".cache")
		// Made here: Landlock can only let it write a folder that is
		// there.
		if err := os.MkdirAll(cache, 0o700); err != nil {
			cleanup()
			return nil, fmt.Errorf("sandbox: cache dir: %w", err)
		}
		hc.Writable = append([]string{scratch.tmp, cache}, granted...)
		cenv = commandEnv(os.Environ(), ws, home, scratch.tmp, cache)
	}
	if s.UserNS && os.Getuid() != 0 {
		hc.MaxProcesses = c.maxProcesses()
	}
	// The server's own env is the shell's, not the helper's: the helper
	// is Loupe's executable, and LD_PRELOAD or LD_LIBRARY_PATH in its
	// environment would run code of the entry's choosing before it
	// confines itself. It gets env in one variable the loader ignores.
	if len(env) > 0 {
		enc, err := json.Marshal(env)
		if err != nil {
			cleanup()
			return nil, err
		}
		cenv = append(cenv, helperEnvVar+"="+string(enc))
	}
	// Not bound to ctx: the process outlives the call that starts it.
	hcmd, r, w, err := helperCommand(context.Background(), helper, hc, cenv)
	if err != nil {
		cleanup()
		return nil, err
	}
	p.Cmd = hcmd
	var calls *heldCalls
	if len(granted) > 0 {
		// It may write the workspace: it runs only for calls, and its
		// setup is the first (until the caller's first Leave).
		calls = &heldCalls{ws: ws, n: 1, dirty: true, cmd: hcmd, setupEnded: endSetup}
		if hc.View != nil {
			calls.base = &hc.View.Plan
			calls.replan = func() (viewPlan, error) { return c.basePlan(ws, home) }
		}
		p.enter = func(ctx context.Context) error { return calls.enter(ctx, p.who()) }
		p.leave = calls.leave
		p.check = func(ctx context.Context) []string { return calls.check(ctx, p.who()) }
	}
	p.confirm = func() error {
		if calls == nil {
			defer endSetup()
		}
		w.Close() // the helper has its own copy: its exit ends the read
		defer r.Close()
		if _, err := readReport(r); err != nil {
			return fmt.Errorf("%w: %v", ErrNotConfined, err)
		}
		return nil
	}
	p.release = func() {
		if calls != nil {
			calls.end()
		}
		if hcmd.Process != nil {
			_ = killGroup(hcmd.Process)
			// The placeholders go only once the view that needs them
			// is gone: the helper is the init of its PID namespace, and
			// it is a zombie only once everything there has exited.
			exited(hcmd.Process.Pid, 2*time.Second)
		}
		if calls != nil {
			// Its last run not checked yet (it stopped while nobody was
			// to call Check): checked now, and said in its log.
			for _, note := range calls.check(context.Background(), p.who()) {
				if hcmd.Stderr != nil {
					fmt.Fprintf(hcmd.Stderr, "--- Loupe: %s\n", note)
				}
			}
		}
		w.Close()
		r.Close()
		cleanup()
	}
	return p, nil
}

// heldCalls is a started process granted paths of the workspace, which
// runs only while a call is under way (Process.Enter).
type heldCalls struct {
	ws  string
	cmd *exec.Cmd
	// setupEnded ends the count of the setup as a running command (the
	// first call).
	setupEnded func()

	mu sync.Mutex
	// n is how many calls are under way; the process is stopped at 0.
	n int
	// dirty: it ran since the last check.
	dirty, ended bool
	// pending are the notes of checks made before an Enter.
	pending []string
	// base is what the workspace held when the process last started to
	// run (Start, or an Enter that woke it): a repository or git file not
	// in it is what the process made. nil
	// without a view of its own (Landlock alone), where, as for a
	// command, nothing is checked.
	base   *viewPlan
	replan func() (viewPlan, error)
}

// freezeWithin bounds the wait for a stopped process's threads to stop;
// past it the process is killed.
const freezeWithin = 5 * time.Second

func (h *heldCalls) enter(ctx context.Context, who string) error {
	// What it left when it last ran is checked before it runs again (the
	// base is then made anew): the notes wait for the next Check.
	h.mu.Lock()
	unchecked := h.n == 0 && h.dirty && h.base != nil
	h.mu.Unlock()
	if unchecked {
		notes := h.checkLeft(ctx, who)
		h.mu.Lock()
		h.pending = append(h.pending, notes...)
		h.mu.Unlock()
	}
	// Counted as a running command, and not while Loupe changes the
	// workspace.
	if err := commandStarted(ctx, h.ws); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ended {
		commandEnded(h.ws)
		return errors.New("sandbox: the process has been stopped for good")
	}
	if h.n == 0 && h.replan != nil {
		// What the workspace holds as it starts to run again is what
		// the next check compares with: what changed while it was
		// stopped (a repository the user made) is not its doing.
		if nb, err := h.replan(); err == nil {
			h.base = &nb
		}
	}
	h.n++
	h.dirty = true
	if h.n == 1 && h.cmd.Process != nil {
		thawTree(h.cmd.Process.Pid)
	}
	return nil
}

func (h *heldCalls) leave() {
	h.mu.Lock()
	if h.n > 0 {
		h.n--
		if h.n == 0 && h.cmd.Process != nil {
			if err := freezeTree(h.cmd.Process.Pid, freezeWithin); err != nil {
				// What does not stop cannot be trusted to wait.
				_ = killGroup(h.cmd.Process)
			}
		}
		h.mu.Unlock()
		h.countEnded()
		return
	}
	h.mu.Unlock()
}

// countEnded ends one call's count as a running command: the first is
// the setup's, counted since Start.
func (h *heldCalls) countEnded() {
	h.mu.Lock()
	first := h.setupEnded
	h.setupEnded = nil
	h.mu.Unlock()
	if first != nil {
		first()
		return
	}
	commandEnded(h.ws)
}

// end is Release's: no call runs after it, and what is still counted
// stops counting (the process is being killed, stopped or not).
func (h *heldCalls) end() {
	h.mu.Lock()
	h.ended = true
	n := h.n
	h.n = 0
	h.mu.Unlock()
	for range n {
		h.countEnded()
	}
}

// check is Process.Check: what the checks before an Enter found, and
// what a check now finds.
func (h *heldCalls) check(ctx context.Context, who string) []string {
	notes := h.checkLeft(ctx, who)
	h.mu.Lock()
	defer h.mu.Unlock()
	notes = append(h.pending, notes...)
	h.pending = nil
	return notes
}

func (h *heldCalls) checkLeft(ctx context.Context, who string) []string {
	h.mu.Lock()
	if !h.dirty || h.base == nil {
		h.mu.Unlock()
		return nil
	}
	h.mu.Unlock()
	// Quiet: no call of it runs (each counts as a command), so it is
	// stopped, and no command of the workspace runs either.
	release, err := Quiet(ctx, h.ws)
	if err != nil {
		return []string{fmt.Sprintf("Loupe did not check %s for repositories or git settings %s made, because it was stopped while waiting for commands that still ran there; before you run git there, look for .git folders and files you did not make (git would run the programs their settings name) and remove them", h.ws, who)}
	}
	defer release()
	h.mu.Lock()
	defer h.mu.Unlock()
	b := h.base
	notes := disarmLeftBy(who, h.ws, b.folder, b.repos, b.absent, b.unreadable, b.folders)
	h.dirty = false
	return notes
}

// basePlan is what a check compares with: the plan of a view of ws made
// now, what was made to hold paths for it let go at once (no view is
// mounted with it).
func (c Confined) basePlan(ws, home string) (viewPlan, error) {
	scratch, err := newCommandDir()
	if err != nil {
		return viewPlan{}, err
	}
	defer removeAll(scratch.root)
	c.CacheDir = ""
	v, err := c.view(ws, home, scratch)
	if err != nil {
		return viewPlan{}, err
	}
	releasePlaceholders(ws, v.Plan.placeholders)
	v.Plan.placeholders = nil
	return v.Plan, nil
}

// grantedPaths resolves the paths a server was granted: relative ones
// under the workspace ws, each of them existing and inside it.
func grantedPaths(ws string, grants []string) ([]string, error) {
	var out []string
	for _, g := range grants {
		p := g
		if !filepath.IsAbs(p) {
			p = filepath.Join(ws, p)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, fmt.Errorf("sandbox: the granted path %s cannot be found (%v); make it first, or grant a folder that exists", g, err)
		}
		if _, ok := within(ws, real); !ok {
			return nil, fmt.Errorf("sandbox: the granted path %s is outside the workspace %s; a server may be granted only paths inside it", g, ws)
		}
		out = append(out, real)
	}
	return out, nil
}

// exited waits until the process pid has exited (a zombie, or gone), at
// most d.
func exited(pid int, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		// The state follows the command's name, in parentheses.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && len(b) > i+2 && (b[i+2] == 'Z' || b[i+2] == 'X') {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
