package sandbox

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/testkit/hostipc"
)

func init() { testModes["ipc"] = hostipc.Attack }

// TestConfinedSharesNoKernelObjects makes, as the user's other programs
// would, a System V shared memory segment, message queue and semaphore set
// and a POSIX message queue, each holding a secret; a command then lists
// them (ipcs, /proc/sysvipc, /dev/mqueue), attaches, reads, writes and
// removes them. Run unconfined (the control) it does all of it; confined
// it reaches none of them and they stay as they were. A host name it sets
// is its own, and its IPC, UTS and cgroup namespaces are not the host's.
func TestConfinedSharesNoKernelObjects(t *testing.T) {
	p := protections(t)
	needs(t, p.IPC)
	exe := testExe(t)
	attack := func(o *hostipc.Objects) string {
		return fmt.Sprintf("%q %s ipc %s\n%s", exe, testNetArg, strings.Join(o.Args(), " "), o.ListScript())
	}
	reached := func(out string) []string {
		var r []string
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "reached: ") {
				r = append(r, strings.TrimPrefix(line, "reached: "))
			}
		}
		return r
	}

	t.Run("control", func(t *testing.T) {
		o := hostipc.Create(t)
		out, err := Local{}.Run(context.Background(), Command{Dir: t.TempDir(), Script: attack(o), Timeout: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		// Everything: seen, read, written, removed.
		if got := reached(out.Text); len(got) < 14 || o.Check() == "" {
			t.Fatalf("unconfined, the attack did not reach the objects (reached %d things, saw %v, check %q): fix the attack\n%s", len(got), o.Seen(out.Text), o.Check(), out.Text)
		}
	})

	o := hostipc.Create(t)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	ns := func(kind string) string {
		l, err := os.Readlink("/proc/self/ns/" + kind)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	script := attack(o) + "\nhostname loupe-renamed-by-a-command 2>&1\nreadlink /proc/self/ns/ipc /proc/self/ns/uts /proc/self/ns/cgroup\nhostname\ncat /proc/self/cgroup"
	out := crun(t, Confined{}, script)
	t.Logf("confined:\n%s", out.Text)
	if got := reached(out.Text); len(got) > 0 {
		t.Errorf("the command reached the host's objects: %s", strings.Join(got, "; "))
	}
	if seen := o.Seen(out.Text); len(seen) > 0 {
		t.Errorf("the command listed the host's objects: %v", seen)
	}
	if bad := o.Check(); bad != "" {
		t.Errorf("the host's objects changed: %s", bad)
	}
	if now, _ := os.Hostname(); now != host {
		t.Errorf("the host name changed from %q to %q", host, now)
	}
	best := probeHelper(exe).best
	for _, k := range []struct {
		kind string
		on   bool
	}{{"ipc", best.IPCNS}, {"uts", best.UTSNS}, {"cgroup", best.CgroupNS}} {
		switch {
		case !k.on:
			t.Logf("no %s namespace on this machine: %s", k.kind, p.IPC.Detail)
		case strings.Contains(out.Text, ns(k.kind)):
			t.Errorf("the command is in the host's %s namespace (%s)", k.kind, ns(k.kind))
		}
	}
	if best.CgroupNS && !strings.Contains(out.Text, "\n0::/\n") {
		t.Errorf("the command sees its place in the host's cgroup tree, not the root of its own:\n%s", out.Text)
	}
}

// TestDescribeSaysWhatIsShared: without an IPC namespace commands are not
// sandboxed and Settings says why; without UTS or cgroup namespaces they
// are, and the IPC row names what is then shared with the machine.
func TestDescribeSaysWhatIsShared(t *testing.T) {
	full := setup{UserNS: true, PIDNS: true, MountNS: true, NetNS: true, PrivateProc: true, IPCNS: true, UTSNS: true, CgroupNS: true}
	why := map[string]string{"ipc": "test: no ipc", "uts": "test: no uts", "cgroup": "test: no cgroup"}
	p := describe(full, 6, "", why, false)
	if !p.IPC.Active || !p.Sandboxed() || !strings.Contains(p.IPC.Detail, "still shared with the machine: the clock") {
		t.Errorf("everything there: %+v", p.IPC)
	}
	if !slices.ContainsFunc(p.List(), func(x Protection) bool { return x.Name == "IPC" }) {
		t.Error("List leaves IPC out")
	}
	s := full
	s.IPCNS = false
	p = describe(s, 6, "", why, false)
	if p.IPC.Active || p.Sandboxed() || !strings.Contains(strings.Join(words(p.missing(false)), "\n"), "ipc: System V shared memory") || !strings.Contains(p.IPC.Detail, "test: no ipc") {
		t.Errorf("no IPC namespace: %+v, missing %q", p.IPC, words(p.missing(false)))
	}
	s = full
	s.UTSNS, s.CgroupNS = false, false
	p = describe(s, 6, "", why, false)
	if !p.IPC.Active || !strings.Contains(p.IPC.Detail, "host name is the machine's") || !strings.Contains(p.IPC.Detail, "test: no cgroup") {
		t.Errorf("no UTS or cgroup namespace: %+v", p.IPC)
	}
}
