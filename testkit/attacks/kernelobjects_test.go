//go:build linux

package attacks_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/hostipc"
)

// TestKernelObjectsOfTheSessionAreUnreachable: the user's other programs
// keep a System V shared memory segment, message queue and semaphore set
// and a POSIX message queue (as an X11 server keeps its MIT-SHM images),
// each holding a secret. A command lists them (ipcs, /proc/sysvipc,
// /dev/mqueue), then a program of the workspace attaches, reads, writes
// and removes them, and ipcrm removes what is left. Unconfined it gets all
// of it; through loupe none of them may be seen in the transcript, and all
// stay as they were.
func TestKernelObjectsOfTheSessionAreUnreachable(t *testing.T) {
	l := newLab(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	workspace := func(t *testing.T) string {
		ws := l.fresh("ws")
		copyFile(t, exe, filepath.Join(ws, "ipc-probe"))
		return ws
	}
	command := func(o *hostipc.Objects) string {
		return fmt.Sprintf("./ipc-probe %s %s; %s", ipcProbeArg, strings.Join(o.Args(), " "), o.ListScript())
	}
	harm := func(o *hostipc.Objects, out string) string {
		var h []string
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "reached: ") {
				h = append(h, strings.TrimPrefix(line, "reached: "))
			}
		}
		if seen := o.Seen(out); len(seen) > 0 {
			h = append(h, fmt.Sprintf("listed %v", seen))
		}
		if strings.Contains(out, hostipc.Secret) {
			h = append(h, "the secret is in the output")
		}
		if bad := o.Check(); bad != "" {
			h = append(h, bad)
		}
		return strings.Join(h, "; ")
	}
	t.Run("control", func(t *testing.T) {
		o := hostipc.Create(t)
		out := l.shell(t, workspace(t), command(o))
		if harm(o, out) == "" {
			t.Fatalf("run with sh outside Loupe, the attack reached nothing: fix the attack\n%s", out)
		}
	})
	for _, md := range modes {
		t.Run(md.name, func(t *testing.T) {
			o := hostipc.Create(t)
			r := l.run(t, runOpts{workspace: workspace(t), auto: md.auto, calls: []gguf.Call{runCommand(command(o))}})
			t.Log(r.summary())
			if h := harm(o, strings.Join(r.results(), "\n")); h != "" {
				t.Error(h)
			}
		})
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
