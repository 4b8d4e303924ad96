package sandbox

import (
	"fmt"
	"os"
)

// describe says, in plain words, which protections the best setup s gives
// commands on this machine, and why any is missing (why: namespace kind ->
// reason; llWhy: why there is no Landlock).
func describe(s setup, abi int, llWhy string, why map[string]string, pidMax bool) Protections {
	p := Protections{LandlockABI: abi}
	view := s.MountNS // the command gets its own view of the files

	p.Writes = Protection{Name: "Writes"}
	switch {
	case abi > 0 && view:
		p.Writes.Active = true
		p.Writes.Detail = fmt.Sprintf("only the workspace and the command's own temp folder and home are writable (Landlock ABI %d); .git/config, hooks, .loupe/ and other protected paths are read-only mounts, for every repository in the workspace", abi)
		if abi < 3 {
			p.Writes.Detail += "; truncating a file elsewhere is not blocked before Landlock ABI 3"
		}
	case abi > 0:
		p.Writes.Detail = fmt.Sprintf("writes stay in the workspace (Landlock ABI %d), but .git/config, hooks and other protected paths in it are writable: no mount namespace (%s)", abi, why["mount"])
	default:
		p.Writes.Detail = "writes anywhere your user can write are allowed: " + llWhy
	}

	p.Secrets = Protection{Name: "Secrets"}
	switch {
	case view && s.PrivateProc:
		p.Secrets.Active = true
		p.Secrets.Detail = "a command sees the workspace, the system's directories, the toolchains on your PATH and a private home: nothing else of your home, other projects or Loupe's database; environment scrubbed; /proc shows only the command's processes"
	case view:
		p.Secrets.Active = true
		p.Secrets.Detail = "a command sees the workspace, the system's directories, the toolchains on your PATH and a private home: nothing else of your home, other projects or Loupe's database; environment scrubbed; /proc lists all processes (the kernel refused a private /proc), but Landlock keeps their memory and environment out of reach"
	default:
		p.Secrets.Detail = "environment scrubbed, but your home (credentials, shell history, other projects) is readable: no mount namespace (" + why["mount"] + ")"
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

	p.Sockets = Protection{Name: "Sockets"}
	switch {
	case view && (s.NetNS || abi >= 6):
		p.Sockets.Active = true
		p.Sockets.Detail = "no Unix socket outside the sandbox is reachable: the command's view has no /tmp, /run, /var or home of yours (tmux, ssh-agent, D-Bus, Docker), and abstract sockets are "
		if s.NetNS {
			p.Sockets.Detail += "per network namespace"
		} else {
			p.Sockets.Detail += fmt.Sprintf("scoped by Landlock (ABI %d)", abi)
		}
		if abi >= 6 {
			p.Sockets.Detail += "; when the network is allowed, abstract sockets are still scoped by Landlock"
		} else {
			p.Sockets.Detail += fmt.Sprintf("; when the network is allowed, abstract sockets outside are reachable (Landlock ABI %d cannot scope them; needs 6)", abi)
		}
	case view:
		p.Sockets.Detail = "path-named sockets outside are out of the view, but abstract Unix sockets outside are reachable: no network namespace (" + why["net"] + ") and Landlock cannot scope them here (needs ABI 6)"
	default:
		p.Sockets.Detail = "Unix sockets outside the sandbox (tmux, ssh-agent, D-Bus, Docker) are reachable: no mount namespace (" + why["mount"] + ")"
	}

	p.IPC = Protection{Name: "IPC"}
	if s.IPCNS {
		p.IPC.Active = true
		p.IPC.Detail = "a command has System V shared memory, message queues and semaphores and POSIX message queues of its own (IPC namespace): those of your other programs, an X11 server's shared images among them, are out of its reach"
	} else {
		p.IPC.Detail = "System V shared memory, message queues and semaphores and POSIX message queues of your other programs (an X11 server's shared images among them) can be listed, read, changed and removed: no IPC namespace (" + why["ipc"] + ")"
	}
	if s.UTSNS {
		p.IPC.Detail += "; a host name of its own (UTS namespace)"
	} else {
		p.IPC.Detail += "; the host name is the machine's: no UTS namespace (" + why["uts"] + ")"
	}
	switch {
	case s.CgroupNS && view:
		p.IPC.Detail += "; a cgroup tree of its own (cgroup namespace): /sys/fs/cgroup shows only the command's processes"
	case s.CgroupNS:
		p.IPC.Detail += "; its own place in the cgroup tree (cgroup namespace)"
	default:
		p.IPC.Detail += "; the machine's cgroup tree (which names its services and applications) is readable: no cgroup namespace (" + why["cgroup"] + ")"
	}
	p.IPC.Detail += "; still shared with the machine: the clock (no time namespace), the rest of /sys read-only (devices, kernel settings), and the CPU, memory and disk the command competes for"

	p.Processes = Protection{Name: "Processes"}
	if s.PIDNS {
		p.Processes.Active = true
		p.Processes.Detail = "everything a command starts is killed with it, however it detaches, and it cannot signal other processes (PID namespace)"
	} else {
		p.Processes.Detail = "a process that leaves the command's process group (setsid) can outlive it, and other processes of yours can be signalled: no PID namespace (" + why["pid"] + ")"
	}

	p.Limits = Protection{Name: "Limits"}
	base := fmt.Sprintf("files up to %d MiB, %d GiB of memory per process, no core dumps", DefaultMaxFileSize>>20, DefaultMaxMemory>>30)
	switch {
	case os.Getuid() == 0 && s.PIDNS && pidMax:
		p.Limits.Active = true
		p.Limits.Detail = fmt.Sprintf("%s, about %d processes (the PID namespace's pid_max: the kernel does not apply the usual process limit to root)", base, DefaultMaxProcesses)
	case os.Getuid() == 0:
		p.Limits.Detail = base + ", but no process limit: the kernel does not apply it to root, and this kernel has no pid_max per PID namespace (Linux 6.14+)"
	case s.UserNS:
		p.Limits.Active = true
		p.Limits.Detail = fmt.Sprintf("%s, at most %d processes", base, DefaultMaxProcesses)
	default:
		p.Limits.Detail = base + ", but no process limit: outside a user namespace it would count all your processes"
	}
	p.Limits.Detail += "; the command's total memory is not capped (no cgroup is delegated to Loupe)"
	return p
}
