package sandbox

import (
	"context"
	"errors"
	"io/fs"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Default resource limits of a confined command (setrlimit, inherited by
// everything the command starts).
const (
	// DefaultMaxFileSize caps the size of any one file a command writes
	// (RLIMIT_FSIZE): a runaway `yes > f` stops there with SIGXFSZ (exit
	// code 153). It does not bound the total written.
	DefaultMaxFileSize = 1 << 30
	// DefaultMaxProcesses caps the processes and threads the command may
	// have at once, which stops fork bombs: RLIMIT_NPROC inside the
	// command's own user namespace, where the kernel counts just that
	// command's processes (outside one it would count all of the user's,
	// so it is not set there). The kernel never applies RLIMIT_NPROC to
	// root; for root, the command's PID namespace gets a pid_max instead
	// (Linux 6.14+), which caps it at about this many.
	DefaultMaxProcesses = 2048
	// DefaultMaxMemory caps the memory each process of a command may
	// allocate (RLIMIT_DATA: heap and private writable mappings), so a
	// runaway allocation fails in that process instead of pushing the
	// machine into swap. It is per process, not for the command as a
	// whole.
	DefaultMaxMemory = 8 << 30
)

// No CPU-time limit is set: the command's wall-clock timeout (at most ten
// minutes through run_command) already ends it. Core dumps are disabled
// (RLIMIT_CORE 0) so a crash writes nothing into the workspace.

// HelperArg is the first argument that turns the Loupe binary into the
// confinement helper. It is not a user-facing command.
const HelperArg = "__loupe-sandbox-helper"

// ErrNotConfined is returned by Confined.Run, wrapped with the reasons, when
// a command could not be given every protection and the runner is not in
// BestEffort mode. The command did not run.
var ErrNotConfined = errors.New("sandbox: the command cannot be confined")

// Confined runs each command in a helper process that confines itself
// before starting `SHELL -c Script` (Linux), SHELL being
// cmdshell.Commands() (bash where the system has it):
//
//   - Its own view of the files (mount namespace, pivot_root; see
//     viewConfig): the system's directories read-only, the workspace, and
//     a /tmp, /dev/shm and home of its own (removed afterwards), with
//     CacheDir as ~/.cache. Nothing of the user's home, /tmp, /run or
//     /var, so no Unix socket outside the sandbox is reachable by path.
//     Inside the workspace, what Guard says is read-only (.git/config,
//     hooks) is a read-only mount and what it hides is covered; Hide
//     covers Loupe's own files wherever they are.
//   - Writes only inside that workspace, /tmp, home and /dev/shm
//     (Landlock), also through paths the view might still show.
//   - No network unless AllowNetwork: a network namespace of its own with
//     only a loopback interface (so a test server on 127.0.0.1 works, but
//     nothing outside is reachable, host loopback included), or, without
//     user namespaces, Landlock's TCP bind/connect restriction (ABI 4+).
//   - Its own PID namespace, whose first process is the helper: killing
//     the helper on exit, timeout or cancellation makes the kernel kill
//     everything in the namespace, however it detached (setsid, double
//     fork, nohup). Processes outside the namespace cannot be signalled.
//   - Its own IPC, UTS and cgroup namespaces, where the kernel allows
//     each: the user's SysV shared memory, message queues and semaphores
//     and POSIX queues are out of reach (a /dev/mqueue of its own), the
//     host name is its own, /sys/fs/cgroup shows only its subtree. The
//     clock and the rest of /sys stay shared (see Protections.IPC).
//   - Resource limits: DefaultMaxFileSize, DefaultMaxMemory,
//     DefaultMaxProcesses, no core dumps. No capabilities and no_new_privs (setuid binaries do not gain
//     privileges). With Landlock ABI 6+, no connecting to abstract Unix
//     sockets or signalling outside the sandbox either.
//   - As for Local: scrubbed environment, stdin from /dev/null, no
//     controlling terminal (a new session), editors and pagers disabled,
//     output capped.
//
// Which of these this machine offers is what Probe reports. When a required
// one is missing (see Protections.Sandboxed; the network only when it is
// not allowed), Run refuses with ErrNotConfined, unless BestEffort, in which
// case it runs the command with what there is, and says what was missing in
// Output.NotConfined and at the end of Output.Text. Output.Confined is true
// only when nothing required was missing. A failure to apply a protection
// the probe found is always an ErrNotConfined error: the shell never starts
// less confined than planned.
//
// With Workspace empty, Command.Dir is the workspace.
type Confined struct {
	// Workspace is the directory the command may write in. Empty means
	// the Command's Dir.
	Workspace string
	// Checked is the workspace folder as it was when Loupe judged it
	// (workspace.Check, as a run is assembled). When set, a command
	// runs only in that very folder: one another command has since
	// swapped for a link (to ~/.ssh, to another project) is refused,
	// on the host as the command starts and again in its view once the
	// folder is mounted (the swap could come between the two).
	Checked fs.FileInfo
	// AllowNetwork lets the command use the network (a per-workspace
	// setting). False blocks it.
	AllowNetwork bool
	// Helper is the executable that calls MaybeRunHelper first thing in
	// main. Empty means this executable (os.Executable).
	Helper string
	// CacheDir, when set, is a directory the command may write that lasts
	// between commands (say, per workspace under the app's data
	// directory); XDG_CACHE_HOME and GOCACHE point into it. Empty means the
	// command's temporary directory, so `go build` starts cold every time.
	// The user's own caches are never writable: a command could poison
	// them for builds run outside Loupe.
	CacheDir string
	// Hide lists paths (files or directories) to hide from the command
	// wherever they would be visible: Loupe's database, its companions
	// and its data directory. (The rest of the user's home is not in the
	// command's view at all.)
	Hide []string
	// Guard says which paths of the workspace are read-only or hidden
	// for the command (the policy's protected paths and denied paths).
	// Nil: the whole workspace is writable.
	Guard PathGuard
	// Expose lists host paths the command may read (a per-workspace
	// setting: a toolchain under the home directory, a shared data set).
	Expose []string
	// ReadOnlyWorkspace lets the command write nothing in the workspace,
	// its root included (Guard alone judges only what is there), nor in
	// the git folders outside it that a linked worktree's commands may
	// write, nor in the workspace's lasting cache (CacheDir is ignored):
	// a hook tried on a recorded session, which must leave the
	// workspace as it is. Where that cannot be had, Run refuses, even in
	// BestEffort mode.
	ReadOnlyWorkspace bool
	// BestEffort runs a command even when a protection is missing (see
	// above). Use it only after the user agreed to run unsandboxed.
	BestEffort bool
	// OutputLimit, WaitDelay: as in Local.
	OutputLimit int
	WaitDelay   time.Duration
	// MaxFileSize, MaxProcesses and MaxMemory: zero means
	// DefaultMaxFileSize, DefaultMaxProcesses and DefaultMaxMemory.
	MaxFileSize  int64
	MaxProcesses int
	MaxMemory    int64

	// adjust, when set, edits the probe result before it is used (tests
	// simulate kernels without a feature with it).
	adjust func(*probeResult)
}

var _ Runner = Confined{}

func (c Confined) maxMemory() int64 {
	if c.MaxMemory > 0 {
		return c.MaxMemory
	}
	return DefaultMaxMemory
}

func (c Confined) maxProcesses() int {
	if c.MaxProcesses > 0 {
		return c.MaxProcesses
	}
	return DefaultMaxProcesses
}

// Protection is one protection and whether it is active on this machine.
type Protection struct {
	// Name is a short label for a settings page ("Writes").
	Name string
	// Active says whether commands get it.
	Active bool
	// Detail says, in plain words, what is enforced and how, or why not.
	Detail string
}

// Protections is what Probe found: which protections commands get here.
type Protections struct {
	// LandlockABI is the kernel's Landlock ABI version; 0 without Landlock.
	LandlockABI int
	// Writes: only the workspace (less its protected paths) and the
	// command's own temp and home are writable (Landlock, read-only
	// mounts).
	Writes Protection
	// Network: blocked unless allowed (network namespace or Landlock).
	Network Protection
	// Processes: nothing a command starts outlives it, and it cannot
	// signal processes outside (PID namespace).
	Processes Protection
	// Secrets: nothing of the user's home or other projects is visible,
	// Loupe's files hidden, /proc shows
	// only the command's processes (mount namespace), environment scrubbed.
	Secrets Protection
	// Sockets: no Unix socket outside the sandbox can be reached (the
	// view has no /tmp, /run or home of the host; abstract sockets are
	// per network namespace, or scoped by Landlock).
	Sockets Protection
	// IPC: the kernel's shared objects of the user's other programs
	// (SysV shared memory, message queues and semaphores, POSIX message
	// queues: an X11 server's shared-memory images among them) are out of
	// reach (IPC namespace). Its Detail also says what is still shared
	// with the host: the clock, /sys, the host name and cgroups where
	// their namespaces are missing.
	IPC Protection
	// Limits: file size, memory, process count, core dumps. Not
	// required for Sandboxed.
	Limits Protection
}

// List returns the protections in the order a settings page shows them.
func (p Protections) List() []Protection {
	return []Protection{p.Writes, p.Secrets, p.Network, p.Sockets, p.IPC, p.Processes, p.Limits}
}

// Sandboxed reports whether Writes, Secrets, Network, Sockets, IPC and Processes are all
// active, which is what Confined requires unless BestEffort. Limits are not
// required: without them a command can exhaust the machine, but not escape.
func (p Protections) Sandboxed() bool {
	return len(p.missing(false)) == 0
}

// Summary is one line for a settings page or a notice: "commands are
// sandboxed: …" or "commands are not sandboxed: …", then what is not
// limited, if anything.
func (p Protections) Summary() string {
	var s string
	if m := p.missing(false); len(m) > 0 {
		s = "commands are not sandboxed: " + strings.Join(words(m), "; ")
	} else {
		s = "commands are sandboxed: " + p.Writes.Detail + "; network " + p.Network.Detail + "; " + p.Processes.Detail
	}
	if !p.Limits.Active {
		s += " (limits: " + p.Limits.Detail + ")"
	}
	return s
}

// missing lists the required protections a command would lack. With
// allowNetwork the network is not expected to be blocked.
func (p Protections) missing(allowNetwork bool) []Protection {
	m := []Protection{}
	for _, x := range []Protection{p.Writes, p.Secrets, p.Network, p.Sockets, p.IPC, p.Processes} {
		if x.Active || (allowNetwork && x.Name == p.Network.Name) {
			continue
		}
		m = append(m, x)
	}
	return m
}

// words says each protection in plain words: "writes: Landlock is not
// available".
func words(ps []Protection) []string {
	out := make([]string, len(ps))
	for i, x := range ps {
		out[i] = strings.ToLower(x.Name) + ": " + x.Detail
	}
	return out
}

// Report is Protections as the window shows them: what the probe found,
// with the judgement made of it here (the order a settings page lists
// them in, whether commands count as sandboxed, what they lack), so that
// the window says what the policy decides and never works it out again.
type Report struct {
	Protections
	// List is the protections in the order of List.
	List []Protection `json:"list"`
	// Sandboxed is Sandboxed(): without it the policy asks before every
	// command and offers no answer to remember.
	Sandboxed bool `json:"sandboxed"`
	// Missing are the required protections commands lack, in List's
	// order; Why says them in plain words ("writes: …; network: …"), as
	// Summary does.
	Missing []Protection `json:"missing"`
	Why     string       `json:"why"`
	Summary string       `json:"summary"`
}

// Report is the window's view of p.
func (p Protections) Report() Report {
	m := p.missing(false)
	return Report{Protections: p, List: p.List(), Sandboxed: len(m) == 0, Missing: m, Why: strings.Join(words(m), "; "), Summary: p.Summary()}
}

// setup is what the helper is asked to do to itself, decided from the
// probe. Every step it is asked for is mandatory: if one fails, the helper
// reports the error and does not start the shell.
type setup struct {
	UserNS  bool `json:"userns,omitempty"`  // own user namespace (needed for all the others)
	PIDNS   bool `json:"pidns,omitempty"`   // own PID namespace, helper is its init
	MountNS bool `json:"mountns,omitempty"` // own mount namespace: fresh /proc, hidden paths
	NetNS   bool `json:"netns,omitempty"`   // own network namespace with loopback up
	// IPCNS: own IPC namespace (SysV objects, POSIX message queues; with
	// MountNS a /dev/mqueue of its own). UTSNS: own host name.
	// CgroupNS: own cgroup namespace (with MountNS, a /sys/fs/cgroup that
	// shows only the command's own subtree).
	IPCNS    bool `json:"ipcns,omitempty"`
	UTSNS    bool `json:"utsns,omitempty"`
	CgroupNS bool `json:"cgroupns,omitempty"`
	// PrivateProc mounts a /proc of the new PID namespace (needs MountNS
	// and PIDNS), which lists only the command's processes.
	PrivateProc bool `json:"private_proc,omitempty"`
	// Landlock is the ABI to require; 0 means no Landlock.
	Landlock int `json:"landlock,omitempty"`
	// LandlockNet blocks TCP (and UDP from ABI 10) with Landlock, for
	// when there is no network namespace.
	LandlockNet bool `json:"landlock_net,omitempty"`
}

// probeResult is what probing a helper found.
type probeResult struct {
	prot Protections
	// best is the most confinement the helper could set up.
	best setup
	// pidMax: the PID namespace's pid_max can cap the process count.
	pidMax bool
}

// unconfinedProtections is the answer when nothing can be confined.
func unconfinedProtections(why string) Protections {
	off := func(name string) Protection { return Protection{Name: name, Detail: why} }
	return Protections{
		Writes: off("Writes"), Network: off("Network"), Processes: off("Processes"),
		Secrets: off("Secrets"), Sockets: off("Sockets"), IPC: off("IPC"), Limits: off("Limits"),
	}
}

// Process is a long-lived program Confined.Start prepared.
type Process struct {
	// Cmd is what to start, its stdin, stdout and stderr the caller's to
	// set: on Linux the sandbox helper, which confines itself and then
	// runs the program.
	Cmd *exec.Cmd
	// NotConfined says which protections are missing (BestEffort); empty
	// when the program gets every one a command gets.
	NotConfined string
	// Who names it in what Check says ("MCP server files"); "a started
	// process" when empty.
	Who string

	confirm     func() error
	release     func()
	releaseOnce sync.Once
	// Set for a process granted paths of the workspace (see Enter).
	enter func(context.Context) error
	leave func()
	check func(context.Context) []string
}

// Enter lets the process run for a call: a process granted paths of the
// workspace runs only between Enter and Leave, and counts meanwhile as a
// command running in its workspace (so Quiet, an undo, waits for it, and
// Enter waits while Loupe changes the workspace). Start returns it entered,
// for its setup; Leave once it is ready. Calls may overlap: it stops at the
// last Leave. For a process granted no paths, Enter and Leave do nothing:
// it cannot change the workspace and runs throughout.
func (p *Process) Enter(ctx context.Context) error {
	if p.enter == nil {
		return nil
	}
	return p.enter(ctx)
}

// Held says whether the process runs only between Enter and Leave (it
// was granted paths): stopped between calls, it cannot end by itself.
func (p *Process) Held() bool { return p.enter != nil }

// Leave ends what Enter began: at the last one the process and everything
// it started are stopped (or killed, if they would not stop), before it
// stops counting as a running command.
func (p *Process) Leave() {
	if p.leave != nil {
		p.leave()
	}
}

func (p *Process) who() string {
	if p.Who == "" {
		return "a started process"
	}
	return p.Who
}

// Check looks, once no call runs (Quiet), for what the process left in
// the paths it was granted since the last check: a repository it made, a
// file added to a git folder that makes git run a program (the check of
// what commands left, disarmNewRepos), and returns one sentence per
// change Loupe made. Call it after the calls of a round, or after Leave.
func (p *Process) Check(ctx context.Context) []string {
	if p.check == nil {
		return nil
	}
	return p.check(ctx)
}

// Confirm waits, once Cmd has started, until the program runs confined:
// an error (ErrNotConfined, with the reason) says it never ran.
func (p *Process) Confirm() error {
	if p.confirm == nil {
		return nil
	}
	return p.confirm()
}

// Release kills the process and everything it started, and lets go of
// what its view held. It may be called more than once.
func (p *Process) Release() {
	p.releaseOnce.Do(func() {
		if p.release != nil {
			p.release()
		}
	})
}
