package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// viewConfig is the file system a command sees, built by the helper in its
// own mount namespace and entered with pivot_root. Nothing else of the
// machine is reachable by path: not the user's home, not /tmp, /run or
// /var with their sockets, not other projects.
type viewConfig struct {
	// Root is an empty host directory the new root is built in (a tmpfs is
	// mounted on it; the host directory stays empty).
	Root string `json:"root"`
	// Tmp is the host directory mounted at /tmp (and /var/tmp): the
	// command's own, removed after it.
	Tmp string `json:"tmp"`
	// Home is the home directory's path inside; HomeDir the host
	// directory mounted there (the command's own, removed after it).
	Home    string `json:"home,omitempty"`
	HomeDir string `json:"home_dir,omitempty"`
	// Cache is a host directory mounted at Home/.cache that lasts between
	// commands of one workspace. Empty: none.
	Cache string `json:"cache,omitempty"`
	// Workspace is the workspace, symlinks resolved, mounted read-write
	// at its own path.
	Workspace string `json:"workspace"`
	// WorkspaceDev and WorkspaceIno are the folder Loupe judged
	// (Confined.Checked): the mounted workspace must be it, or the
	// command does not run (a swap after the host's check). Zero: not
	// checked.
	WorkspaceDev uint64 `json:"workspace_dev,omitempty"`
	WorkspaceIno uint64 `json:"workspace_ino,omitempty"`
	// WorkspaceReadOnly mounts the workspace read-only but for Grants
	// (a long-lived process: an MCP server, see Confined.Start).
	WorkspaceReadOnly bool     `json:"workspace_read_only,omitempty"`
	Grants            []string `json:"grants,omitempty"`
	// Expose are host paths (files or directories) mounted read-only at
	// their own paths: a per-workspace setting, say a toolchain under the
	// home directory.
	Expose []string `json:"expose,omitempty"`
	// Git are folders outside the workspace that its git needs (a linked
	// worktree's repository), each read-only unless Writable, in order.
	Git []gitShare `json:"git,omitempty"`
	// Plan is what is read-only or hidden inside the workspace.
	Plan viewPlan `json:"plan"`
	// Hide are absolute paths covered wherever they are visible in the
	// view (Loupe's own files, secrets under /etc).
	Hide []string `json:"hide,omitempty"`
	// PrivateProc mounts a /proc of the command's PID namespace; false
	// binds the host's (where the kernel refuses a new one).
	PrivateProc bool `json:"private_proc,omitempty"`
	// TryProc falls back to the host's /proc when a private one is
	// refused (the probe, finding out).
	TryProc bool `json:"try_proc,omitempty"`
	// MQueue mounts a /dev/mqueue of the command's IPC namespace, so that
	// what it lists are its own POSIX message queues.
	MQueue bool `json:"mqueue,omitempty"`
	// Cgroup mounts a /sys/fs/cgroup of the command's cgroup namespace,
	// which shows only its own subtree, over the host's tree.
	Cgroup bool `json:"cgroup,omitempty"`
	// MaxPIDs, when set, caps the PID namespace's pid_max (kernels with a
	// pid_max per PID namespace): the process limit that holds as root.
	MaxPIDs int `json:"max_pids,omitempty"`
}

// systemDirs are mounted read-only at their own paths when they exist (a
// symlink, as /bin is on merged-/usr systems, is copied as a symlink).
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix", "/gnu", "/snap"}

// systemSecrets are hidden even though /etc is visible: where Loupe runs
// as root, they would be readable.
var systemSecrets = []string{
	"/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d",
	"/etc/ssl/private", "/etc/security/opasswd", "/etc/NetworkManager/system-connections",
	"/etc/wireguard", "/etc/krb5.keytab", "/etc/ipsec.secrets", "/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets",
}

// systemSecretGlobs are hidden likewise, each file the pattern matches.
var systemSecretGlobs = []string{"/etc/ssh/ssh_host_*_key"}

// devices are bound from the host's /dev into the view's.
var devices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// buildView builds v's root and enters it. It runs in the helper, in the new
// mount namespace (already a slave of the host's), before Landlock.
func buildView(v viewConfig) (built builtView, err error) {
	built.pidMax, built.privateProc, err = buildRoot(v)
	return built, err
}

// builtView is what buildView managed beyond what it was asked.
type builtView struct {
	privateProc bool // /proc is the command's PID namespace's
	pidMax      bool // pid_max caps the number of processes
}

func buildRoot(v viewConfig) (pidMax, privateProc bool, err error) {
	root := v.Root
	if err := unix.Mount("loupe-root", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=16m"); err != nil {
		return false, false, fmt.Errorf("mount the new root: %w", err)
	}
	if err := unix.Mount("", root, "", unix.MS_PRIVATE, ""); err != nil {
		return false, false, fmt.Errorf("make the new root private: %w", err)
	}
	at := func(p string) string { return filepath.Join(root, p) }

	for _, d := range systemDirs {
		if err := copySystemDir(d, at(d)); err != nil {
			return false, false, err
		}
	}
	if _, err := os.Stat("/sys"); err == nil {
		if err := bindInto("/sys", at("/sys"), true, true); err != nil {
			return false, false, err
		}
		if v.Cgroup {
			// The host's tree names every service and application of the
			// machine; the namespace's own holds only the command's.
			if err := unix.Mount("cgroup2", at("/sys/fs/cgroup"), "cgroup2", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
				return false, false, fmt.Errorf("mount a /sys/fs/cgroup of the cgroup namespace: %w", err)
			}
		}
	}
	if err := os.Mkdir(at("/proc"), 0o555); err != nil {
		return false, false, err
	}
	if v.PrivateProc {
		err := unix.Mount("proc", at("/proc"), "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
		switch {
		case err == nil:
			privateProc = true
		case !v.TryProc:
			return false, false, fmt.Errorf("mount a private /proc: %w", err)
		}
	}
	if !privateProc {
		if err := bindInto("/proc", at("/proc"), true, false); err != nil {
			return false, false, err
		}
	}
	if v.MaxPIDs > 0 {
		// Linux 6.14+ keeps pid_max per PID namespace, and the helper, the
		// namespace's init, may set its own: the one process limit the
		// kernel applies to root too.
		pidMax = os.WriteFile(at("/proc/sys/kernel/pid_max"), []byte(fmt.Sprint(v.MaxPIDs)), 0) == nil
	}
	if err := buildDev(at("/dev"), v.MQueue); err != nil {
		return pidMax, privateProc, err
	}
	if err := buildRun(at("/run")); err != nil {
		return pidMax, privateProc, err
	}
	if err := bindInto(v.Tmp, at("/tmp"), false, false); err != nil {
		return pidMax, privateProc, err
	}
	if err := os.MkdirAll(at("/var"), 0o755); err != nil {
		return pidMax, privateProc, err
	}
	if err := os.Symlink("../tmp", at("/var/tmp")); err != nil {
		return pidMax, privateProc, err
	}
	if v.Home != "" && v.HomeDir != "" {
		if err := bindInto(v.HomeDir, at(v.Home), false, false); err != nil {
			return pidMax, privateProc, err
		}
		if v.Cache != "" {
			if err := bindInto(v.Cache, at(filepath.Join(v.Home, ".cache")), false, false); err != nil {
				return pidMax, privateProc, err
			}
		}
	}
	for _, p := range v.Expose {
		if err := bindInto(p, at(p), true, true); err != nil {
			return pidMax, privateProc, fmt.Errorf("expose %s: %w", p, err)
		}
	}
	for _, g := range v.Git {
		if err := bindInto(g.Path, at(g.Path), true, !g.Writable); err != nil {
			return pidMax, privateProc, fmt.Errorf("the workspace's repository %s: %w", g.Path, err)
		}
	}
	if v.Workspace != "" {
		if err := bindInto(v.Workspace, at(v.Workspace), true, v.WorkspaceReadOnly); err != nil {
			return pidMax, privateProc, fmt.Errorf("workspace: %w", err)
		}
		if v.WorkspaceDev != 0 || v.WorkspaceIno != 0 {
			var st unix.Stat_t
			if err := unix.Stat(at(v.Workspace), &st); err != nil || uint64(st.Dev) != v.WorkspaceDev || st.Ino != v.WorkspaceIno {
				return pidMax, privateProc, fmt.Errorf("the workspace %s was replaced while the command's view was made; the command did not run", v.Workspace)
			}
		}
		for _, g := range v.Grants {
			if err := bindInto(g, at(g), true, false); err != nil {
				return pidMax, privateProc, fmt.Errorf("granted path %s: %w", g, err)
			}
		}
	}
	for _, p := range v.Plan.Pins {
		// A mount point cannot be renamed or removed.
		if err := unix.Mount(at(p), at(p), "", unix.MS_BIND, ""); err != nil {
			return pidMax, privateProc, fmt.Errorf("pin %s: %w", p, err)
		}
	}
	for _, p := range v.Plan.ReadOnly {
		if err := bindInto(at(p), at(p), true, true); err != nil {
			return pidMax, privateProc, fmt.Errorf("make %s read-only: %w", p, err)
		}
	}
	for _, p := range v.Plan.Links {
		if err := holdLink(at(p)); err != nil {
			return pidMax, privateProc, err
		}
	}
	for _, p := range v.Plan.Hidden {
		if err := cover(root, p); err != nil {
			return pidMax, privateProc, err
		}
	}
	secrets := append(append([]string{}, v.Hide...), systemSecrets...)
	for _, g := range systemSecretGlobs {
		m, _ := filepath.Glob(g)
		secrets = append(secrets, m...)
	}
	for _, p := range secrets {
		if _, err := os.Lstat(at(p)); err != nil {
			continue // not in the view
		}
		if err := cover(root, p); err != nil {
			return pidMax, privateProc, err
		}
	}
	// Nothing may be created at the top of the new root.
	if err := unix.Mount("", root, "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return pidMax, privateProc, fmt.Errorf("make the new root read-only: %w", err)
	}
	// Enter it: pivot_root(".", ".") stacks the old root over the new one,
	// and detaching it leaves only the new.
	if err := unix.Chdir(root); err != nil {
		return pidMax, privateProc, err
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return pidMax, privateProc, fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return pidMax, privateProc, fmt.Errorf("detach the old root: %w", err)
	}
	if err := unix.Chdir("/"); err != nil {
		return pidMax, privateProc, err
	}
	return pidMax, privateProc, nil
}

// copySystemDir puts host directory d into the view at dst: a symlink as a
// symlink, a directory read-only.
func copySystemDir(d, dst string) error {
	fi, err := os.Lstat(d)
	if err != nil {
		return nil // not on this system
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(d)
		if err != nil {
			return err
		}
		return os.Symlink(target, dst)
	}
	if !fi.IsDir() {
		return nil
	}
	return bindInto(d, dst, true, true)
}

// buildDev makes a /dev with the few devices commands need, a private
// /dev/shm and /dev/pts, and nothing else: no sockets such as /dev/log.
// With mqueue, a /dev/mqueue of the command's IPC namespace too.
func buildDev(dev string, mqueue bool) error {
	if err := os.Mkdir(dev, 0o755); err != nil {
		return err
	}
	if err := unix.Mount("loupe-dev", dev, "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
		return fmt.Errorf("mount /dev: %w", err)
	}
	for _, name := range devices {
		if _, err := os.Stat("/dev/" + name); err != nil {
			continue
		}
		if err := bindInto("/dev/"+name, filepath.Join(dev, name), false, false); err != nil {
			return err
		}
	}
	for name, target := range map[string]string{
		"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1",
		"stderr": "/proc/self/fd/2", "ptmx": "pts/ptmx",
	} {
		if err := os.Symlink(target, filepath.Join(dev, name)); err != nil {
			return err
		}
	}
	if err := os.Mkdir(filepath.Join(dev, "pts"), 0o755); err != nil {
		return err
	}
	// A pseudo-terminal of its own, for the few tools that need one
	// (`script`, expect); some kernels refuse it in a user namespace.
	_ = unix.Mount("devpts", filepath.Join(dev, "pts"), "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620")
	if err := os.Mkdir(filepath.Join(dev, "shm"), 0o1777); err != nil {
		return err
	}
	// Python's multiprocessing needs a /dev/shm; the host's is shared with
	// the user's other programs.
	if err := unix.Mount("shm", filepath.Join(dev, "shm"), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777,size=256m"); err != nil {
		return fmt.Errorf("mount a private /dev/shm: %w", err)
	}
	if mqueue {
		if err := os.Mkdir(filepath.Join(dev, "mqueue"), 0o1777); err != nil {
			return err
		}
		if err := unix.Mount("mqueue", filepath.Join(dev, "mqueue"), "mqueue", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("mount a /dev/mqueue of the IPC namespace: %w", err)
		}
	}
	return nil
}

// buildRun makes an empty /run (the host's holds the sockets of the system's
// daemons), with the resolver's file when /etc/resolv.conf points into it.
func buildRun(run string) error {
	if err := os.Mkdir(run, 0o755); err != nil {
		return err
	}
	if err := unix.Mount("loupe-run", run, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
		return fmt.Errorf("mount /run: %w", err)
	}
	target, err := filepath.EvalSymlinks("/etc/resolv.conf")
	if err != nil || !strings.HasPrefix(target, "/run/") {
		return nil
	}
	return bindInto(target, filepath.Join(run, strings.TrimPrefix(target, "/run/")), false, true)
}

// bindInto bind-mounts src at dst, creating dst (and its parents inside the
// view) as a directory or an empty file like src. rec carries the mounts
// under src along; ro makes the result read-only, recursively.
func bindInto(src, dst string, rec, ro bool) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := mountPoint(dst, fi.IsDir()); err != nil {
		return fmt.Errorf("prepare %s: %w", dst, err)
	}
	flags := uintptr(unix.MS_BIND)
	if rec {
		flags |= unix.MS_REC
	}
	if err := unix.Mount(src, dst, "", flags, ""); err != nil {
		return fmt.Errorf("bind %s: %w", src, err)
	}
	if ro {
		return readOnly(dst, rec)
	}
	return nil
}

// mountPoint makes sure dst exists as a directory (or a file when !dir).
func mountPoint(dst string, dir bool) error {
	if fi, err := os.Lstat(dst); err == nil {
		if fi.IsDir() != dir {
			return fmt.Errorf("%s exists as another kind of file", dst)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if dir {
		return os.Mkdir(dst, 0o755)
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o444)
	if err != nil {
		return err
	}
	return f.Close()
}

// readOnly makes the mount at dst read-only (and, when rec, every mount
// under it).
func readOnly(dst string, rec bool) error {
	var flags uint = unix.AT_SYMLINK_NOFOLLOW
	if rec {
		flags |= unix.AT_RECURSIVE
	}
	err := unix.MountSetattr(-1, dst, flags, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.ENOSYS) {
		return fmt.Errorf("make %s read-only: %w", dst, err)
	}
	// Before Linux 5.12: a remount, which must keep the flags the mount
	// already has (the kernel refuses to clear locked ones) and covers only
	// the top mount.
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return err
	}
	keep := uintptr(0)
	for _, f := range []struct{ st, ms int64 }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if st.Flags&f.st != 0 {
			keep |= uintptr(f.ms)
		}
	}
	if err := unix.Mount("", dst, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|keep, ""); err != nil {
		return fmt.Errorf("make %s read-only: %w", dst, err)
	}
	return nil
}

// holdLink mounts the symlink dst over itself (the link, not what it
// points at: open_tree and move_mount do not follow it), so that a command
// can neither remove, rename nor replace it; it still resolves as before.
func holdLink(dst string) error {
	if fi, err := os.Lstat(dst); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return nil // gone or no longer a link: what it is now is judged where it is
	}
	fd, err := unix.OpenTree(unix.AT_FDCWD, dst, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_SYMLINK_NOFOLLOW)
	if err != nil {
		return fmt.Errorf("hold the link %s: %w", dst, err)
	}
	defer unix.Close(fd)
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, dst, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("hold the link %s: %w", dst, err)
	}
	return nil
}

// cover hides the path p of the view rooted at root: an empty read-only
// directory over a directory, the null device over anything else.
func cover(root, p string) error {
	dst := filepath.Join(root, p)
	fi, err := os.Lstat(dst)
	if err != nil {
		return nil
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		// A link resolves inside the view; what it points to is covered
		// where it is, if it must be.
		return nil
	}
	if fi.IsDir() {
		err = unix.Mount("loupe-hidden", dst, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555")
	} else if err = unix.Mount(filepath.Join(root, "dev/null"), dst, "", unix.MS_BIND, ""); err == nil {
		err = readOnly(dst, false) // reads find it empty, writes fail
	}
	if err != nil {
		return fmt.Errorf("hide %s: %w", p, err)
	}
	return nil
}
