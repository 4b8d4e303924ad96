//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

const notLinux = "Loupe confines commands only on Linux (Landlock and namespaces)"

// MaybeRunHelper returns at once unless this process was started as the
// confinement helper, which exists only on Linux: then it exits with an
// error.
func MaybeRunHelper() {
	if len(os.Args) < 2 || os.Args[1] != HelperArg {
		return
	}
	fmt.Fprintf(os.Stderr, "loupe: %s, not on %s\n", notLinux, runtime.GOOS)
	os.Exit(2)
}

// Probe reports that nothing is confined here.
func Probe() Protections { return unconfinedProtections(notLinux) }

// Run refuses with ErrNotConfined, or in BestEffort mode runs the command
// as Local does and says that it was not sandboxed (never when the
// workspace must stay read-only).
func (c Confined) Run(ctx context.Context, cmd Command) (Output, error) {
	pr := probeResult{prot: Probe()}
	if c.adjust != nil {
		c.adjust(&pr)
	}
	missing := strings.Join(words(pr.prot.missing(c.AllowNetwork)), "; ")
	if !c.BestEffort || c.ReadOnlyWorkspace {
		return Output{}, fmt.Errorf("%w: %s", ErrNotConfined, missing)
	}
	out, err := Local{OutputLimit: c.OutputLimit, WaitDelay: c.WaitDelay}.Run(ctx, cmd)
	if err != nil {
		return out, err
	}
	out.NotConfined = missing
	out.Text += "\n[loupe: this command was not sandboxed: " + missing + "]\n"
	return out, nil
}

// Start refuses with ErrNotConfined, or in BestEffort mode prepares argv
// as an unconfined process of its own group in dir, with the command
// environment plus env (grants are moot: it may write what the user may).
func (c Confined) Start(_ context.Context, argv []string, dir string, env []string, _ []string) (*Process, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("sandbox: nothing to start")
	}
	pr := probeResult{prot: Probe()}
	if c.adjust != nil {
		c.adjust(&pr)
	}
	missing := strings.Join(words(pr.prot.missing(c.AllowNetwork)), "; ")
	if !c.BestEffort {
		return nil, fmt.Errorf("%w: %s", ErrNotConfined, missing)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(Environ(os.Environ()), env...)
	setProcessGroup(cmd)
	p := &Process{Cmd: cmd, NotConfined: missing}
	p.release = func() { _ = killGroup(cmd.Process) }
	return p, nil
}
