package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// helperReportTimeout bounds how long the parent waits for the helper's
// report. A helper binary that does not call MaybeRunHelper never sends
// one.
const helperReportTimeout = 10 * time.Second

// Run runs c confined; see Confined.
func (c Confined) Run(ctx context.Context, cmd Command) (Output, error) {
	helper, err := c.helperPath()
	if err != nil {
		return Output{}, err
	}
	pr := probeHelper(helper)
	if c.adjust != nil {
		c.adjust(&pr)
	}
	missing := pr.prot.missing(c.AllowNetwork)
	if len(missing) > 0 && !c.BestEffort {
		return Output{}, fmt.Errorf("%w: %s", ErrNotConfined, strings.Join(missing, "; "))
	}

	s := pr.best
	if c.AllowNetwork {
		s.NetNS = false
	} else if !s.NetNS && s.Landlock >= 4 {
		s.LandlockNet = true
	}

	ws := c.Workspace
	if ws == "" {
		ws = cmd.Dir
	}
	ws, err = filepath.Abs(ws)
	if err != nil {
		return Output{}, fmt.Errorf("sandbox: workspace: %w", err)
	}
	tmp, err := os.MkdirTemp("", "loupe-cmd-")
	if err != nil {
		return Output{}, fmt.Errorf("sandbox: temp dir: %w", err)
	}
	defer removeAll(tmp)
	writable := []string{ws, tmp}
	cache := c.CacheDir
	if cache != "" {
		if err := os.MkdirAll(cache, 0o700); err != nil {
			return Output{}, fmt.Errorf("sandbox: cache dir: %w", err)
		}
		writable = append(writable, cache)
	} else {
		cache = filepath.Join(tmp, ".cache")
	}

	home, _ := os.UserHomeDir()
	maxFile := c.MaxFileSize
	if maxFile <= 0 {
		maxFile = DefaultMaxFileSize
	}
	hc := helperConfig{
		Shell:       "/bin/sh",
		Script:      cmd.Script,
		Dir:         cmd.Dir,
		Writable:    writable,
		Setup:       s,
		MaxFileSize: maxFile,
	}
	if s.MountNS {
		hc.Hide = append(DefaultHidden(home, os.Getuid()), c.Hide...)
	}
	if s.UserNS {
		// Only in its own user namespace does the kernel count just this
		// command's processes against the limit.
		hc.MaxProcesses = c.MaxProcesses
		if hc.MaxProcesses <= 0 {
			hc.MaxProcesses = DefaultMaxProcesses
		}
	}
	env := commandEnv(os.Environ(), tmp, cache)

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

// commandEnv is Environ plus the command's own temp dir and caches.
func commandEnv(base []string, tmp, cache string) []string {
	env := Environ(base)
	out := env[:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	return append(out,
		"TMPDIR="+tmp,
		"XDG_CACHE_HOME="+cache,
		"GOCACHE="+filepath.Join(cache, "go-build"),
	)
}

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

// removeAll removes the command's temp dir, making read-only directories
// it left writable first.
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
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
// it: namespaces from all to none, then Landlock at the best level.
func probe(helper string) probeResult {
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

	abi, abiErr := ll.LandlockGetABIVersion()
	var llWhy string
	switch {
	case errors.Is(abiErr, syscall.ENOSYS):
		abi, llWhy = 0, "this kernel has no Landlock (it needs Linux 5.13 or later, built with CONFIG_SECURITY_LANDLOCK)"
	case errors.Is(abiErr, syscall.EOPNOTSUPP):
		abi, llWhy = 0, "Landlock is not enabled at boot (add landlock to the kernel's lsm= parameter)"
	case abiErr != nil:
		abi, llWhy = 0, "Landlock is unavailable: "+abiErr.Error()
	case abi < 1:
		abi, llWhy = 0, "this kernel reports no Landlock ABI"
	}
	if abi > 0 {
		s := pr.best
		s.Landlock = abi
		if _, err := probeOnce(helper, s); err != nil {
			abi, llWhy = 0, "Landlock could not be applied: "+err.Error()
		}
	}
	pr.best.Landlock = abi
	pr.prot = describe(pr.best, abi, llWhy, why)
	return pr
}

func probeOnce(helper string, s setup) (helperReport, error) {
	ctx, cancel := context.WithTimeout(context.Background(), helperReportTimeout)
	defer cancel()
	hc := helperConfig{Probe: true, Dir: "/", Setup: s}
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

func describe(s setup, abi int, llWhy string, why map[string]string) Protections {
	p := Protections{LandlockABI: abi}

	p.Writes = Protection{Name: "Writes"}
	if abi > 0 {
		p.Writes.Active = true
		p.Writes.Detail = fmt.Sprintf("only the workspace and a temporary folder are writable (Landlock ABI %d)", abi)
		if abi < 3 {
			p.Writes.Detail += "; truncating a file elsewhere is not blocked before Landlock ABI 3"
		}
	} else {
		p.Writes.Detail = "writes anywhere your user can write are allowed: " + llWhy
	}

	p.Network = Protection{Name: "Network"}
	switch {
	case s.NetNS:
		p.Network.Active = true
		p.Network.Detail = "blocked: each command has its own network namespace with only a loopback interface"
	case abi >= 10:
		p.Network.Active = true
		p.Network.Detail = fmt.Sprintf("TCP and UDP blocked by Landlock (ABI %d); other protocols (raw, SCTP, MPTCP) are not, because no network namespace: %s", abi, why["net"])
	case abi >= 4:
		p.Network.Active = true
		p.Network.Detail = fmt.Sprintf("TCP blocked by Landlock (ABI %d); UDP (DNS) and MPTCP are not, because no network namespace: %s", abi, why["net"])
	default:
		p.Network.Detail = "not blocked: no network namespace (" + why["net"] + ")"
		if abi > 0 {
			p.Network.Detail += fmt.Sprintf(", and Landlock ABI %d cannot restrict the network (needs 4)", abi)
		} else {
			p.Network.Detail += ", and no Landlock"
		}
	}

	p.Processes = Protection{Name: "Processes"}
	if s.PIDNS {
		p.Processes.Active = true
		p.Processes.Detail = "everything a command starts is killed with it, however it detaches, and it cannot signal other processes (PID namespace)"
	} else {
		p.Processes.Detail = "a process that leaves the command's process group (setsid) can outlive it, and other processes of yours can be signalled: no PID namespace (" + why["pid"] + ")"
	}

	p.Secrets = Protection{Name: "Secrets"}
	switch {
	case s.MountNS && s.PrivateProc:
		p.Secrets.Active = true
		p.Secrets.Detail = "environment scrubbed; credential stores (~/.ssh, ~/.aws, …) and desktop sockets hidden; /proc shows only the command's processes"
	case s.MountNS:
		p.Secrets.Active = true
		p.Secrets.Detail = "environment scrubbed; credential stores (~/.ssh, ~/.aws, …) and desktop sockets hidden; /proc lists all processes (the kernel refused a private /proc), but Landlock keeps their memory and environment out of reach"
	default:
		p.Secrets.Detail = "environment scrubbed, but credential files (~/.ssh, ~/.aws, …) and desktop sockets (D-Bus, agents) are reachable: no mount namespace (" + why["mount"] + ")"
	}

	p.Limits = Protection{Name: "Limits"}
	files := fmt.Sprintf("files up to %d MiB, no core dumps", DefaultMaxFileSize>>20)
	switch {
	case os.Getuid() == 0:
		p.Limits.Detail = files + ", but no process limit: the kernel does not apply it to root"
	case s.UserNS:
		p.Limits.Active = true
		p.Limits.Detail = fmt.Sprintf("%s, at most %d processes", files, DefaultMaxProcesses)
	default:
		p.Limits.Detail = files + ", but no process limit: outside a user namespace it would count all your processes"
	}
	return p
}
