package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/loupe-dev/loupe/backend/cmdshell"
)

// Start prepares a long-lived confined process (an MCP server speaking on
// its stdin and stdout): argv run in dir with the command environment plus
// env, in the same view as a command of the workspace, with no network
// unless AllowNetwork. Unlike a command, the workspace is read-only to it
// but for grants (paths inside the workspace it may write), so it never
// counts as a running command: a server that runs for the whole session
// does not keep Quiet (an undo) waiting. The placeholders its view holds
// are kept until release. The caller starts cmd (the helper's report is
// not awaited: a failure to confine ends the helper before argv runs, with
// the reason on stderr) and calls release once it has exited; release
// kills the helper's PID namespace, so nothing the process started
// outlives it.
func (c Confined) Start(argv []string, dir string, env []string, grants []string) (cmd *exec.Cmd, release func(), err error) {
	if len(argv) == 0 {
		return nil, nil, fmt.Errorf("sandbox: nothing to start")
	}
	helper, err := c.helperPath()
	if err != nil {
		return nil, nil, err
	}
	pr := probeHelper(helper)
	if c.adjust != nil {
		c.adjust(&pr)
	}
	missing := words(pr.prot.missing(c.AllowNetwork))
	if len(missing) > 0 && !c.BestEffort {
		return nil, nil, fmt.Errorf("%w: %s", ErrNotConfined, strings.Join(missing, "; "))
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
		return nil, nil, fmt.Errorf("sandbox: workspace: %w", err)
	}
	wd, err := dirInWorkspace(dir, c.Workspace, ws)
	if err != nil {
		return nil, nil, err
	}
	var granted []string
	for _, g := range grants {
		p := g
		if !filepath.IsAbs(p) {
			p = filepath.Join(ws, p)
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		} else {
			return nil, nil, fmt.Errorf("sandbox: granted path %s: %w", g, err)
		}
		if _, ok := within(ws, p); !ok {
			return nil, nil, fmt.Errorf("sandbox: granted path %s is outside the workspace %s; a server may write only inside it", g, ws)
		}
		granted = append(granted, p)
	}
	scratch, err := newCommandDir()
	if err != nil {
		return nil, nil, err
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
		Shell:       cmdshell.Commands().Path,
		Script:      "exec " + strings.Join(q, " "),
		Dir:         wd,
		Setup:       s,
		MaxFileSize: maxFile,
		MaxMemory:   c.maxMemory(),
	}
	var held []placeholder
	cleanup := func() {
		releasePlaceholders(ws, held)
		removeAll(scratch.root)
	}
	var cenv []string
	if s.MountNS {
		v, err := c.view(ws, home, scratch)
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		v.WorkspaceReadOnly, v.Grants = true, granted
		hc.View = &v
		held = v.Plan.placeholders
		cenv = append(commandEnv(os.Environ(), ws, v.Home, "/tmp", filepath.Join(v.Home, ".cache")), gitIdentity()...)
	} else {
		// Landlock alone: the server writes only in its temp folder and
		// what it was granted.
		cache := filepath.Join(scratch.tmp, ".cache")
		hc.Writable = append([]string{scratch.tmp, cache}, granted...)
		cenv = commandEnv(os.Environ(), ws, home, scratch.tmp, cache)
	}
	if s.UserNS && os.Getuid() != 0 {
		hc.MaxProcesses = c.maxProcesses()
	}
	hcmd, r, w, err := helperCommand(context.Background(), helper, hc, append(cenv, env...))
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	// The report pipe is not read: closed here, the helper's report write
	// fails harmlessly (SIGPIPE is ignored in Go programs).
	r.Close()
	hcmd.ExtraFiles = []*os.File{w}
	release = func() {
		if hcmd.Process != nil {
			_ = killGroup(hcmd.Process)
		}
		w.Close()
		cleanup()
	}
	return hcmd, release, nil
}
