package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/loupe-dev/loupe/backend/place"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/loupe-dev/loupe/backend/cmdshell"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// helperReportTimeout bounds how long the parent waits for the helper's
// report. A helper binary that does not call MaybeRunHelper never sends
// one.
const helperReportTimeout = 10 * time.Second

// Run runs c confined; see Confined.
func (c Confined) Run(ctx context.Context, cmd Command) (Output, error) {
	if c.ReadOnlyWorkspace {
		// The workspace's lasting cache is what later builds read: a
		// command that must leave the workspace as it is writes none of
		// it either (a server's view leaves it out likewise).
		c.CacheDir = ""
	}
	helper, err := c.helperPath()
	if err != nil {
		return Output{}, err
	}
	pr := probeHelper(helper)
	if c.adjust != nil {
		c.adjust(&pr)
	}
	missing := words(pr.prot.missing(c.AllowNetwork))
	if len(missing) > 0 && !c.BestEffort {
		return Output{}, fmt.Errorf("%w: %s", ErrNotConfined, strings.Join(missing, "; "))
	}

	s := pr.best
	if c.ReadOnlyWorkspace && !s.MountNS {
		// Only a view of its own leaves the workspace as it is: Landlock
		// alone governs what may be written, not a file's mode or times
		// (chmod, touch -d pass it).
		why := pr.prot.Writes.Detail
		if s.Landlock > 0 {
			why = "commands get no mount namespace here, and Landlock alone cannot stop a change of a file's mode or times"
		}
		return Output{}, fmt.Errorf("%w: the workspace cannot be made read-only on this machine: %s", ErrNotConfined, why)
	}
	if c.AllowNetwork {
		s.NetNS = false
	} else if !s.NetNS && s.Landlock >= 4 {
		s.LandlockNet = true
	}

	ws, err := c.workspaceNow(cmd.Dir)
	if err != nil {
		return Output{}, err
	}
	dir, err := dirInWorkspace(cmd.Dir, c.Workspace, ws)
	if err != nil {
		return Output{}, err
	}
	scratch, err := newCommandDir()
	if err != nil {
		return Output{}, err
	}
	defer removeAll(scratch.root)

	home, _ := os.UserHomeDir()
	maxFile := c.MaxFileSize
	if maxFile <= 0 {
		maxFile = DefaultMaxFileSize
	}
	hc := helperConfig{
		Shell:       cmdshell.Commands().Path, // the language the classifier reads
		Script:      cmd.Script,
		Dir:         dir,
		Setup:       s,
		MaxFileSize: maxFile,
		MaxMemory:   c.maxMemory(),
	}
	// Counted from before its view is made (which may make placeholders)
	// until it has ended: what FactsOf keeps is stale meanwhile, and what
	// it holds is removed only once no command of the workspace runs.
	// What it left is checked after (checkLeft), Quiet, which waits for
	// every command counted.
	if err := commandStarted(ctx, ws); err != nil {
		return Output{}, err
	}
	var handedOver []placeholder
	ended, handled := false, false
	end := func() {
		if !ended {
			ended = true
			commandEnded(ws)
		}
	}
	defer func() {
		end()
		if !handled {
			releasePlaceholders(ws, handedOver)
		}
	}()
	var env []string
	if s.MountNS {
		v, err := c.view(ws, home, scratch)
		if err != nil {
			return Output{}, err
		}
		if s.PIDNS && os.Getuid() == 0 && pr.pidMax {
			v.MaxPIDs = pidMaxFor(c.maxProcesses())
		}
		hc.View = &v
		handedOver = v.Plan.placeholders
		env = append(commandEnv(os.Environ(), ws, v.Home, "/tmp", filepath.Join(v.Home, ".cache")), gitIdentity()...)
	} else {
		// No view of its own: the command sees the host's files, and
		// Landlock alone keeps its writes in the workspace, its temp
		// directory and the cache (made here: Landlock can only let a
		// command write in a folder that is there).
		cache := c.CacheDir
		if cache == "" {
			cache = filepath.Join(scratch.tmp, ".cache")
		}
		if err := os.MkdirAll(cache, 0o700); err != nil {
			return Output{}, fmt.Errorf("sandbox: cache dir: %w", err)
		}
		hc.Writable = []string{scratch.tmp, cache, ws}
		env = commandEnv(os.Environ(), ws, home, scratch.tmp, cache)
	}
	if s.UserNS && os.Getuid() != 0 {
		// Only in its own user namespace does the kernel count just this
		// command's processes against the limit, and never for root.
		hc.MaxProcesses = c.maxProcesses()
	}

	var statusR, statusW *os.File
	defer func() {
		if statusR != nil {
			statusR.Close()
			statusW.Close()
		}
	}()
	out, err := execute(ctx, cmd, c.OutputLimit, c.WaitDelay, func(runCtx context.Context) (*exec.Cmd, error) {
		hcmd, r, w, err := helperCommand(runCtx, helper, hc, env)
		statusR, statusW = r, w
		return hcmd, err
	}, func(*exec.Cmd) error {
		statusW.Close()
		if _, err := readReport(statusR); err != nil {
			return fmt.Errorf("%w: %v", ErrNotConfined, err)
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	if hc.View != nil && cmd.Sweep != nil {
		// Checked once every command of the round has ended, and what
		// was made to hold paths removed then.
		cmd.Sweep.add(ws, hc.View.Plan)
		handled = true
	} else if hc.View != nil {
		// A repository the command made would run its settings' programs
		// the next time the user runs git there. Checked once it no
		// longer counts as running: checkLeft waits for every command
		// that does.
		end()
		handled = true
		for _, note := range checkLeft(ctx, ws, hc.View.Plan.folder, hc.View.Plan.repos, hc.View.Plan.absent, hc.View.Plan.unreadable, hc.View.Plan.folders, handedOver) {
			if !strings.HasSuffix(out.Text, "\n") && out.Text != "" {
				out.Text += "\n"
			}
			out.Text += "[loupe: " + note + "]\n"
		}
	}
	if len(missing) == 0 {
		out.Confined = true
	} else {
		out.NotConfined = strings.Join(missing, "; ")
		if !strings.HasSuffix(out.Text, "\n") && out.Text != "" {
			out.Text += "\n"
		}
		out.Text += "[loupe: this command was not sandboxed: " + out.NotConfined + "]\n"
	}
	return out, nil
}

func (c Confined) helperPath() (string, error) {
	if c.Helper != "" {
		return c.Helper, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("sandbox: find the helper executable: %w", err)
	}
	return exe, nil
}

// view assembles the file system the command sees (see viewConfig).
func (c Confined) view(ws, home string, scratch commandDir) (viewConfig, error) {
	v := viewConfig{Root: scratch.view, Tmp: scratch.tmp, Workspace: ws}
	if c.Checked != nil {
		v.WorkspaceDev, v.WorkspaceIno = fileID(c.Checked)
	}
	if home != "" && home != "/" {
		if place.Holds(ws, home) {
			return v, fmt.Errorf("sandbox: the workspace %s holds the home directory; choose a project folder", ws)
		}
		v.Home, v.HomeDir = home, scratch.home
	} else {
		v.Home, v.HomeDir = "/tmp/home", scratch.home
	}
	if c.CacheDir != "" {
		if err := os.MkdirAll(c.CacheDir, 0o700); err != nil {
			return v, fmt.Errorf("sandbox: cache dir: %w", err)
		}
		v.Cache = c.CacheDir
	}
	// Toolchains under the home folder that PATH names, then the paths
	// the user exposed.
	for _, p := range append(Toolchains(os.Getenv("PATH"), home, ws), c.Expose...) {
		abs, err := filepath.Abs(p)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			continue // gone: nothing to show
		}
		v.Expose = append(v.Expose, abs)
	}
	// A socket in a folder the user shows to commands (or grants a
	// server to read) would let them talk to the program outside that
	// listens on it: Landlock and the network namespace do not govern a
	// connect to a socket file. Each found is hidden, as in the
	// workspace.
	hide, err := socketsIn(c.Expose)
	if err != nil {
		return v, err
	}
	for _, h := range c.Hide {
		hide = append(hide, h)
		if real, err := filepath.EvalSymlinks(h); err == nil && real != h {
			hide = append(hide, real)
		}
	}
	v.Hide = hide
	// Where every Loupe process notes the placeholders it holds: a
	// command that could write there could have one process remove
	// what another's command has read-only.
	if d, err := holdsDir(); err == nil {
		if place.Holds(ws, d) {
			return v, fmt.Errorf("sandbox: the workspace %s holds Loupe's own state folder %s; choose a project folder that does not", ws, d)
		}
	}
	shares, made := worktreeShares(ws)
	v.Git = shares
	plan, err := planWorkspace(ws, c.Guard, hide)
	if err != nil {
		releasePlaceholders(ws, made)
		return v, err
	}
	plan.placeholders = append(made, plan.placeholders...)
	// What other commands (of this Loupe process or another) made to
	// hold paths this view covers: held for this one too, and none of it
	// counted as the repository's own.
	scopes := []string{ws}
	for _, g := range shares {
		if g.Writable {
			scopes = append(scopes, g.Path)
		}
	}
	adopted, err := adoptHolds(scopes, plan.placeholders)
	plan.placeholders = append(plan.placeholders, adopted...)
	if err != nil {
		releasePlaceholders(ws, plan.placeholders)
		return v, err
	}
	plan.withoutPlaceholders()
	if c.ReadOnlyWorkspace {
		// The workspace first: made read-only with every mount under it
		// (the pins too), then what is hidden covered as ever.
		plan.ReadOnly = append([]string{ws}, plan.ReadOnly...)
		for i := range v.Git {
			v.Git[i].Writable = false
		}
	}
	v.Plan = plan
	return v, nil
}

// maxExposedEntries bounds the look for sockets in the folders shown to
// commands.
const maxExposedEntries = maxScanEntries

// socketsIn lists the sockets under the paths (links not followed, as the
// view shows them: a link's target is looked at where it is shown).
func socketsIn(paths []string) ([]string, error) {
	var out []string
	n := 0
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			continue // gone: nothing shown
		}
		err = filepath.WalkDir(abs, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // what Loupe cannot list, a command cannot either
			}
			if n++; n > maxExposedEntries {
				return fmt.Errorf("sandbox: the paths shown to commands hold more than %d files and folders to look through for sockets; show a smaller folder", maxExposedEntries)
			}
			if d.Type()&fs.ModeSocket != 0 {
				out = append(out, q)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pidMaxFor is the pid_max that lets about n processes run at once: the
// kernel hands out PIDs below 300 only until it first wraps, and refuses a
// pid_max below 301.
func pidMaxFor(n int) int { return max(n, 1) + 301 }

// helperCommand prepares the helper process: the clone flags of s, a new
// session (no controlling terminal), SIGKILL if Loupe dies, and a pipe on
// fd 3 for its report. The caller closes w once the helper started (the
// helper has its own copy), so that the helper's exit ends reading r.
func helperCommand(ctx context.Context, helper string, hc helperConfig, env []string) (cmd *exec.Cmd, r, w *os.File, err error) {
	arg, err := json.Marshal(hc)
	if err != nil {
		return nil, nil, nil, err
	}
	r, w, err = os.Pipe()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("sandbox: status pipe: %w", err)
	}
	cmd = exec.CommandContext(ctx, helper, HelperArg, string(arg))
	cmd.Dir = hc.Dir
	cmd.Env = env
	cmd.ExtraFiles = []*os.File{w}
	attr := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	s := hc.Setup
	if s.UserNS {
		uid, gid := os.Getuid(), os.Getgid()
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		attr.GidMappingsEnableSetgroups = false
		// The helper keeps the user's uid inside (uid 0 would make tools
		// think they run as root). A non-root exec drops the capabilities
		// the new namespace gave; these few are carried over as ambient
		// capabilities, for the loopback, the mounts and dropping the
		// bounding set. The helper clears them before starting the shell.
		attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP}
		if s.PIDNS {
			attr.Cloneflags |= syscall.CLONE_NEWPID
		}
		if s.MountNS {
			attr.Cloneflags |= syscall.CLONE_NEWNS
		}
		if s.NetNS {
			attr.Cloneflags |= syscall.CLONE_NEWNET
		}
		// No kernel objects shared with the user's other programs: SysV
		// shared memory (X11's MIT-SHM images), message queues,
		// semaphores and POSIX queues; the host name; the cgroup tree.
		if s.IPCNS {
			attr.Cloneflags |= syscall.CLONE_NEWIPC
		}
		if s.UTSNS {
			attr.Cloneflags |= syscall.CLONE_NEWUTS
		}
		if s.CgroupNS {
			attr.Cloneflags |= syscall.CLONE_NEWCGROUP
		}
	}
	cmd.SysProcAttr = attr
	return cmd, r, w, nil
}

// readReport reads the helper's report: one JSON line, then EOF.
func readReport(r *os.File) (helperReport, error) {
	var rep helperReport
	_ = r.SetReadDeadline(time.Now().Add(helperReportTimeout))
	b, err := io.ReadAll(r)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return rep, fmt.Errorf("the sandbox helper did not report within %v (does main call sandbox.MaybeRunHelper?)", helperReportTimeout)
	case err != nil:
		return rep, fmt.Errorf("read the sandbox helper's report: %w", err)
	case len(b) == 0:
		return rep, errors.New("the sandbox helper exited without a report (does main call sandbox.MaybeRunHelper?)")
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return rep, fmt.Errorf("bad report from the sandbox helper: %v", err)
	}
	if rep.Error != "" {
		return rep, errors.New(rep.Error)
	}
	return rep, nil
}

var (
	probeMu    sync.Mutex
	probeCache = map[string]*probeResult{}
)

// Probe reports which protections Confined gives commands on this machine,
// using this executable as the helper. The first call starts the helper a
// few times (tens of milliseconds); the result is kept.
func Probe() Protections {
	exe, err := os.Executable()
	if err != nil {
		return unconfinedProtections("cannot find Loupe's own executable to start the sandbox helper: " + err.Error())
	}
	return probeHelper(exe).prot
}

func probeHelper(helper string) probeResult {
	probeMu.Lock()
	defer probeMu.Unlock()
	if pr, ok := probeCache[helper]; ok {
		return *pr
	}
	pr := probe(helper)
	probeCache[helper] = &pr
	return pr
}

// probe finds the most confinement the helper can set up here, by trying
// it: first everything at once (every namespace and Landlock at the
// kernel's level), which is what a machine that allows it all gives, in
// one start of the helper; else namespaces from all to none, then Landlock
// at the best level, one start each.
func probe(helper string) probeResult {
	abi, llWhy := landlockABI()
	all := setup{UserNS: true, PIDNS: true, MountNS: true, NetNS: true, IPCNS: true, UTSNS: true, CgroupNS: true, Landlock: abi}
	if rep, err := probeOnce(helper, all); err == nil {
		all.PrivateProc = rep.PrivateProc
		return probeResult{best: all, pidMax: rep.PIDMax, prot: describe(all, abi, llWhy, map[string]string{}, rep.PIDMax)}
	}

	var pr probeResult
	ladder := []setup{
		{UserNS: true, PIDNS: true, MountNS: true, NetNS: true},
		{UserNS: true, PIDNS: true, MountNS: true},
		{UserNS: true, PIDNS: true},
		{},
	}
	why := map[string]string{} // namespace kind -> why it is missing
	var rep helperReport
	for i, s := range ladder {
		r, err := probeOnce(helper, s)
		if err == nil {
			pr.best, rep = s, r
			break
		}
		reason := namespaceReason(err)
		switch i {
		case 0:
			why["net"] = reason
		case 1:
			why["mount"] = reason
		case 2:
			why["pid"], why["user"] = reason, reason
		case 3:
			// Even the plain helper fails: nothing can be confined.
			return probeResult{prot: unconfinedProtections("the sandbox helper does not start: " + err.Error())}
		}
	}
	// Each level drops one namespace, so the failure of the level that
	// last had it says why it is missing.
	pr.best.PrivateProc = rep.PrivateProc
	pr.pidMax = rep.PIDMax
	probeShared(helper, &pr.best, why)

	if abi > 0 {
		s := pr.best
		s.Landlock = abi
		if _, err := probeOnce(helper, s); err != nil {
			abi, llWhy = 0, "Landlock could not be applied: "+err.Error()
		}
	}
	pr.best.Landlock = abi
	pr.prot = describe(pr.best, abi, llWhy, why, pr.pidMax)
	return pr
}

// landlockABI is the Landlock ABI this kernel offers, or 0 and why none.
func landlockABI() (int, string) {
	abi, err := ll.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		return 0, "this kernel has no Landlock (it needs Linux 5.13 or later, built with CONFIG_SECURITY_LANDLOCK)"
	case errors.Is(err, syscall.EOPNOTSUPP):
		return 0, "Landlock is not enabled at boot (add landlock to the kernel's lsm= parameter)"
	case err != nil:
		return 0, "Landlock is unavailable: " + err.Error()
	case abi < 1:
		return 0, "this kernel reports no Landlock ABI"
	}
	return abi, ""
}

// probeShared adds to best the namespaces that keep kernel objects apart
// from the host's (IPC, UTS, cgroup), each where this kernel allows it,
// and says in why what is missing. They need a user namespace.
func probeShared(helper string, best *setup, why map[string]string) {
	if !best.UserNS {
		for _, k := range []string{"ipc", "uts", "cgroup"} {
			why[k] = why["user"]
		}
		return
	}
	all := *best
	all.IPCNS, all.UTSNS, all.CgroupNS = true, true, true
	if _, err := probeOnce(helper, all); err == nil {
		*best = all
		return
	}
	// Which one the kernel refuses: each on its own.
	for _, k := range []struct {
		name string
		set  func(*setup)
	}{
		{"ipc", func(s *setup) { s.IPCNS = true }},
		{"uts", func(s *setup) { s.UTSNS = true }},
		{"cgroup", func(s *setup) { s.CgroupNS = true }},
	} {
		try := *best
		k.set(&try)
		if _, err := probeOnce(helper, try); err != nil {
			why[k.name] = namespaceReason(err)
			continue
		}
		*best = try
	}
}

func probeOnce(helper string, s setup) (helperReport, error) {
	ctx, cancel := context.WithTimeout(context.Background(), helperReportTimeout)
	defer cancel()
	hc := helperConfig{Probe: true, Dir: "/", Setup: s}
	if s.MountNS {
		// The probe builds a whole view (without a workspace), so that a
		// kernel refusing any part of it is found here, not at a command.
		scratch, err := newCommandDir()
		if err != nil {
			return helperReport{}, err
		}
		defer removeAll(scratch.root)
		hc.View = &viewConfig{Root: scratch.view, Tmp: scratch.tmp, Home: "/tmp/home", HomeDir: scratch.home, MaxPIDs: pidMaxFor(DefaultMaxProcesses)}
	}
	cmd, r, w, err := helperCommand(ctx, helper, hc, Environ(os.Environ()))
	if err != nil {
		return helperReport{}, err
	}
	defer r.Close()
	err = cmd.Start()
	w.Close()
	if err != nil {
		return helperReport{}, err
	}
	rep, err := readReport(r)
	werr := cmd.Wait()
	if err != nil {
		return rep, err
	}
	if werr != nil {
		return rep, fmt.Errorf("sandbox helper: %w", werr)
	}
	return rep, nil
}

// namespaceReason turns a failure to create namespaces into plain words.
func namespaceReason(err error) string {
	switch {
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EACCES):
		return "the system does not let unprivileged users create user namespaces (kernel.unprivileged_userns_clone, or an AppArmor or SELinux policy): " + err.Error()
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EUSERS):
		return "the user namespace limit is reached or zero (user.max_user_namespaces): " + err.Error()
	case errors.Is(err, syscall.EINVAL):
		return "this kernel lacks namespace support: " + err.Error()
	}
	return err.Error()
}
