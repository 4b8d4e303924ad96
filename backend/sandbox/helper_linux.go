package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// helperConfig is what the parent tells the helper, as JSON in its second
// argument.
type helperConfig struct {
	// Probe: set everything up, report, and exit without running a shell.
	Probe  bool   `json:"probe,omitempty"`
	Shell  string `json:"shell,omitempty"`
	Script string `json:"script,omitempty"`
	Dir    string `json:"dir,omitempty"`
	// Writable are the directories the command may write in.
	Writable []string `json:"writable,omitempty"`
	// View is the file system the command sees, built in its mount
	// namespace (Setup.MountNS). Writable is then ignored: what the view
	// makes writable is.
	View         *viewConfig `json:"view,omitempty"`
	Setup        setup       `json:"setup"`
	MaxFileSize  int64       `json:"max_file_size,omitempty"`
	MaxMemory    int64       `json:"max_memory,omitempty"`
	MaxProcesses int         `json:"max_processes,omitempty"` // 0: not set
}

// helperReport is the helper's one message to the parent, on fd 3, sent
// after the shell started (or instead of starting it).
type helperReport struct {
	Error string `json:"error,omitempty"`
	// PrivateProc says /proc was mounted for the new PID namespace.
	PrivateProc bool `json:"private_proc,omitempty"`
	// PIDMax says the PID namespace's pid_max caps the process count.
	PIDMax bool `json:"pid_max,omitempty"`
}

// helperEnvVar carries, as a JSON list, the variables a started process
// (Confined.Start) adds to its shell's environment, which must not be the
// helper's own.
const helperEnvVar = "LOUPE_SANDBOX_ENV"

// helperExitSetup is the helper's exit code when it could not confine
// itself; the shell was not started.
const helperExitSetup = 125

// MaybeRunHelper turns this process into the confinement helper when it was
// started as one (first argument HelperArg), and then never returns. Call it
// first thing in main, before anything else runs: the helper confines itself
// and would confine whatever else the process was doing. Otherwise it
// returns at once.
func MaybeRunHelper() {
	if len(os.Args) < 2 || os.Args[1] != HelperArg {
		return
	}
	os.Exit(helperMain(os.Args[2:]))
}

func helperMain(args []string) int {
	// Landlock, no_new_privs and the capability bounding set are
	// per-thread: apply them on this thread and start the shell from it.
	// The thread is never unlocked, so no other goroutine runs on it.
	runtime.LockOSThread()

	status := os.NewFile(3, "status")
	if _, err := status.Stat(); err != nil {
		fmt.Fprintln(os.Stderr, "loupe: the sandbox helper is started by Loupe, not by hand")
		return 2
	}
	// The shell gets fds 0-2 only: not the report pipe, and not whatever
	// the app had open without close-on-exec (C libraries do that), which
	// Go's exec passes on and Landlock, checking only opens, would not stop.
	if err := closeOnExecFrom(3); err != nil {
		fmt.Fprintln(os.Stderr, "loupe: sandbox helper:", err)
		return helperExitSetup
	}
	report := func(r helperReport) {
		_ = json.NewEncoder(status).Encode(r)
		status.Close()
	}

	var cfg helperConfig
	if len(args) != 1 {
		report(helperReport{Error: "sandbox helper: want one argument"})
		return helperExitSetup
	}
	if err := json.Unmarshal([]byte(args[0]), &cfg); err != nil {
		report(helperReport{Error: "sandbox helper: " + err.Error()})
		return helperExitSetup
	}
	rep, err := confineSelf(&cfg)
	if err != nil {
		report(helperReport{Error: err.Error()})
		return helperExitSetup
	}
	if cfg.Probe {
		report(rep)
		return 0
	}

	// The started process's own env (Confined.Start), set for the shell
	// only.
	env := os.Environ()
	if enc, ok := os.LookupEnv(helperEnvVar); ok {
		var extra []string
		if err := json.Unmarshal([]byte(enc), &extra); err != nil {
			report(helperReport{Error: "sandbox helper: " + helperEnvVar + ": " + err.Error()})
			return helperExitSetup
		}
		env = append(slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, helperEnvVar+"=") }), extra...)
	}
	shell := cfg.Shell
	if shell == "" {
		report(helperReport{Error: "sandbox helper: no shell given"})
		return helperExitSetup
	}
	if os.Getpid() != 1 {
		// Without a PID namespace of its own, an orphan of the shell is
		// still the helper's (not init's), so the process tree under the
		// helper is everything it started (freezeTree).
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	}
	p, err := os.StartProcess(shell, []string{shell, "-c", cfg.Script}, &os.ProcAttr{
		Dir:   cfg.Dir,
		Env:   env, // already scrubbed by the parent
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
	})
	if err != nil {
		report(helperReport{Error: fmt.Sprintf("start %s: %v", shell, err)})
		return helperExitSetup
	}
	report(rep)
	return reap(p.Pid)
}

// closeOnExecFrom marks every descriptor from lowest up close-on-exec.
func closeOnExecFrom(lowest int) error {
	if err := unix.CloseRange(uint(lowest), ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return nil
	}
	// Before Linux 5.11: one by one.
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("list open descriptors: %w", err)
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd >= lowest {
			syscall.CloseOnExec(fd)
		}
	}
	return nil
}

// reap waits for the shell, reaping any other process along the way (as
// the init of a PID namespace, orphans are reparented to the helper), and
// returns the shell's status as a shell would: 128+N for signal N. When the
// helper then exits, the kernel kills everything left in its namespace.
func reap(pid int) int {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return helperExitSetup
		}
		if got != pid {
			continue
		}
		if ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ws.ExitStatus()
	}
}

// confineSelf applies cfg.Setup to this process (namespaces were created by
// the parent's clone) and this thread. The order matters: mounts and the
// loopback need the capabilities the user namespace gave us, and Landlock
// forbids mounting once applied.
func confineSelf(cfg *helperConfig) (helperReport, error) {
	var rep helperReport
	s := cfg.Setup
	if s.PIDNS && os.Getpid() != 1 {
		return rep, fmt.Errorf("not the first process of a new PID namespace (pid %d)", os.Getpid())
	}
	if s.NetNS {
		if err := loopbackUp(); err != nil {
			return rep, fmt.Errorf("network namespace: bring up loopback: %w", err)
		}
	}
	if s.MountNS {
		// Our mounts must not propagate back to the host's namespace.
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
			return rep, fmt.Errorf("mount namespace: make / a slave: %w", err)
		}
		if cfg.View == nil {
			return rep, errors.New("mount namespace without a view to build")
		}
		v := *cfg.View
		// A /proc for the new PID namespace lists only the command's
		// processes. The kernel refuses it where /proc has masked parts
		// (inside some containers); the probe finds out.
		v.PrivateProc = s.PIDNS && (s.PrivateProc || cfg.Probe)
		v.TryProc = cfg.Probe
		v.MQueue, v.Cgroup = s.IPCNS, s.CgroupNS
		built, err := buildView(v)
		if err != nil {
			return rep, fmt.Errorf("build the command's view of the files: %w", err)
		}
		rep.PrivateProc, rep.PIDMax = built.privateProc, built.pidMax
		// From here on, paths are the view's.
		cfg.Writable = viewWritable(v)
	}
	// A session keyring of its own: the one inherited from Loupe may hold
	// the user's keys (Kerberos, network shares).
	if _, _, errno := unix.Syscall(unix.SYS_KEYCTL, unix.KEYCTL_JOIN_SESSION_KEYRING, 0, 0); errno != 0 && errno != unix.ENOSYS {
		return rep, fmt.Errorf("a session keyring of its own: %w", errno)
	}
	if err := setLimits(cfg); err != nil {
		return rep, err
	}
	if err := dropPrivileges(s.UserNS); err != nil {
		return rep, err
	}
	if s.Landlock > 0 {
		if err := applyLandlock(s, cfg.Writable); err != nil {
			return rep, fmt.Errorf("landlock: %w", err)
		}
	}
	return rep, nil
}

// loopbackUp sets the IFF_UP flag on "lo", the only interface of a new
// network namespace, so that servers a command starts on 127.0.0.1 work.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

func setLimits(cfg *helperConfig) error {
	set := func(name string, res int, v uint64) error {
		if err := unix.Setrlimit(res, &unix.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("setrlimit %s: %w", name, err)
		}
		return nil
	}
	if cfg.MaxFileSize > 0 {
		if err := set("RLIMIT_FSIZE", unix.RLIMIT_FSIZE, uint64(cfg.MaxFileSize)); err != nil {
			return err
		}
	}
	if cfg.MaxMemory > 0 {
		if err := set("RLIMIT_DATA", unix.RLIMIT_DATA, uint64(cfg.MaxMemory)); err != nil {
			return err
		}
	}
	if cfg.MaxProcesses > 0 {
		if err := set("RLIMIT_NPROC", unix.RLIMIT_NPROC, uint64(cfg.MaxProcesses)); err != nil {
			return err
		}
	}
	return set("RLIMIT_CORE", unix.RLIMIT_CORE, 0)
}

// dropPrivileges makes sure the shell runs with no capabilities, even as
// uid 0 of its user namespace, and cannot gain any (setuid binaries):
// empty bounding and ambient sets, and no_new_privs (which Landlock needs
// anyway). All of it is per-thread and inherited by the shell.
func dropPrivileges(inUserNS bool) error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Inheritable|data[1].Inheritable != 0 {
		data[0].Inheritable, data[1].Inheritable = 0, 0
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			return fmt.Errorf("clear inheritable capabilities: %w", err)
		}
	}
	for c := 0; c <= lastCap(); c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if err == nil || errors.Is(err, unix.EINVAL) {
			continue
		}
		if errors.Is(err, unix.EPERM) && !inUserNS {
			// No CAP_SETPCAP: an unprivileged user outside a user
			// namespace, whose shell gets no capabilities anyway.
			break
		}
		return fmt.Errorf("drop capability %d: %w", c, err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	return nil
}

func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		var n int
		if _, err := fmt.Sscan(string(b), &n); err == nil {
			return n
		}
	}
	return 63
}

// writableDevices may be opened for writing from anywhere.
var writableDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx"}

// viewWritable is what a command may write in its view: the workspace,
// its own /tmp and home, /dev/shm and its pseudo-terminals.
func viewWritable(v viewConfig) []string {
	w := []string{"/tmp", "/dev/shm"}
	if v.Workspace != "" && !v.WorkspaceReadOnly {
		w = append(w, v.Workspace)
	}
	if v.WorkspaceReadOnly {
		w = append(w, v.Grants...)
	}
	if v.Home != "" {
		w = append(w, v.Home)
	}
	for _, g := range v.Git {
		if g.Writable {
			w = append(w, g.Path)
		}
	}
	if _, err := os.Stat("/dev/pts/ptmx"); err == nil {
		w = append(w, "/dev/pts")
	}
	return w
}

// applyLandlock restricts this thread: read and execute anywhere, write
// only in the writable directories and /dev/null; no abstract Unix sockets
// or signals out of the sandbox (ABI 6+); TCP bind and connect refused when
// s.LandlockNet (ABI 4+). The ruleset uses every filesystem right the kernel
// knows, so anything not granted here is denied.
func applyLandlock(s setup, writable []string) error {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return fmt.Errorf("not available (%v)", err)
	}
	if abi < s.Landlock {
		return fmt.Errorf("kernel ABI %d, need %d", abi, s.Landlock)
	}
	if s.LandlockNet && abi < 4 {
		return fmt.Errorf("kernel ABI %d cannot restrict the network (needs 4)", abi)
	}
	cfg := landlock.Config{
		HandledAccessFS: landlock.V11.HandledAccessFS,
		Scoped:          landlock.V11.Scoped,
	}
	if s.LandlockNet {
		cfg.HandledAccessNet = landlock.V11.HandledAccessNet
	}
	// BestEffort trims the sets to what this kernel supports; the checks
	// above make sure what is required survives the trim.
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles(writableDevices...).IgnoreIfMissing(),
	}
	// A file granted to a server is writable as a file: Landlock refuses
	// directory rights on one.
	var dirs, files []string
	for _, p := range writable {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			files = append(files, p)
		} else {
			dirs = append(dirs, p)
		}
	}
	if len(dirs) > 0 {
		rules = append(rules, landlock.RWDirs(dirs...).WithRefer())
	}
	if len(files) > 0 {
		rules = append(rules, landlock.RWFiles(files...))
	}
	fd, flags, err := cfg.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return err
	}
	if fd < 0 {
		return errors.New("nothing to enforce")
	}
	defer unix.Close(fd)
	return ll.LandlockRestrictSelf(fd, flags)
}
