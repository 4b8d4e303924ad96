//go:build linux

package attacks_test

import (
	"os"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/procs"
)

// The cage's caps (see cage): above what a sandboxed command should get
// (backend/sandbox caps a command at 2048 processes), and far below what
// would hurt the machine.
const (
	cageTasks  = 3000
	cageMemory = 10 << 30
)

// TestRunawayCommandsHitALimit runs a command that forks until the kernel
// refuses and a command that allocates and touches 8 GiB. The run must
// end, the command must meet a limit of the sandbox's (not the test's
// cage), the tool result must say so, and nothing it started may be left.
func TestRunawayCommandsHitALimit(t *testing.T) {
	l := newLab(t)
	cases := []struct {
		name string
		// command runs with tag, a word no other process has, in its
		// command line.
		command func(tag string) string
		timeout int // run_command's timeout_ms
		capped  func(c *cage) (bool, string)
		// said matches a tool result that tells of the limit.
		said *regexp.Regexp
		// vocab are lines the command prints many times (see lab.model).
		vocab []string
	}{
		{
			name: "fork bomb",
			// The command forks until the kernel refuses, then says how
			// far it got. It ends when the limit is met, not when a
			// timer runs out, so a slow or busy machine reaches the limit
			// too (a classic :(){ :|:& };: against a timeout did not
			// always). Every process keeps tag in its command line.
			command: func(tag string) string {
				return `python3 -c 'import os, signal, sys
n = 0
while True:
    try:
        pid = os.fork()
    except OSError as e:
        print("fork failed after %d processes: %s" % (n, e.strerror), flush=True)
        sys.exit(1)
    if pid == 0:
        signal.pause()
        os._exit(0)
    n += 1
' ` + tag
			},
			// Far more than reaching the limit takes; the sandbox kills
			// the sleeping children when the command ends.
			timeout: 120000,
			capped:  (*cage).tasksCapped,
			said:    regexp.MustCompile(`fork failed after [0-9]+ processes`),
		},
		{
			name:    "memory hog",
			command: func(tag string) string { return `python3 -c 'x = bytearray(8 << 30)' ` + tag },
			timeout: 60000,
			capped:  (*cage).memoryCapped,
			said:    regexp.MustCompile(`(?i)memory|cannot allocate`),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, md := range modes {
				t.Run(md.name, func(t *testing.T) {
					cg, err := newCage(t, cageTasks, cageMemory)
					if err != nil {
						// Without the cage, a sandbox that sets no limit would
						// let the command take the whole machine, and every
						// other program on it.
						t.Skipf("no cgroup to contain the command if the sandbox fails (%v): not running a %s unguarded", err, c.name)
					}
					tag := secret("limits")
					o := l.run(t, runOpts{workspace: l.fresh("ws"), auto: md.auto, timeout: 5 * time.Minute, vocab: c.vocab,
						calls: []gguf.Call{runCommandWithin(c.command(tag), c.timeout)},
						started: func(pid int) {
							if err := cg.add(pid); err != nil {
								_ = syscall.Kill(pid, syscall.SIGKILL)
								t.Fatal(err)
							}
						}})
					t.Log(o.summary())
					if !hasKind(o.events, trace.KindRunEnd) {
						t.Error("the run did not end")
					}
					if hit, peak := c.capped(cg); hit {
						t.Errorf("the command reached the test's own cap (%s): the sandbox did not limit it, and without the cap it would have exhausted the machine", peak)
					} else {
						t.Logf("the cage was not reached (%s)", peak)
					}
					for _, call := range o.calls() {
						if call.ran() && !c.said.MatchString(call.result.Content) {
							t.Errorf("the tool result does not say that a limit was hit: %s", clip(call.result.Content, 400))
						}
					}
					if !eventually(10*time.Second, func() bool { return len(procs.Containing(tag)) == 0 }) {
						left := procs.Containing(tag)
						t.Errorf("%d processes of the command outlived the run", len(left))
						for _, pid := range left {
							if p, err := os.FindProcess(pid); err == nil {
								_ = p.Kill()
							}
						}
					}
					if left := cg.procs(); len(left) > 0 {
						t.Errorf("processes left in the run's cgroup after loupe exited: %v", left)
					}
				})
			}
		})
	}
}
