package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
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
	ws := c.Workspace
	if ws == "" {
		ws = dir
	}
	ws, err = filepath.Abs(ws)
	if err == nil {
		ws, err = filepath.EvalSymlinks(ws)
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox: workspace: %w", err)
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
	p.confirm = func() error {
		defer endSetup()
		w.Close() // the helper has its own copy: its exit ends the read
		defer r.Close()
		if _, err := readReport(r); err != nil {
			return fmt.Errorf("%w: %v", ErrNotConfined, err)
		}
		return nil
	}
	p.release = func() {
		if hcmd.Process != nil {
			_ = killGroup(hcmd.Process)
			// The placeholders go only once the view that needs them
			// is gone: the helper is the init of its PID namespace, and
			// it is a zombie only once everything there has exited.
			exited(hcmd.Process.Pid, 2*time.Second)
		}
		w.Close()
		r.Close()
		cleanup()
	}
	return p, nil
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
