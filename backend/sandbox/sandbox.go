// Package sandbox runs shell commands for the agent: each command runs in its
// own process group, with stdin from /dev/null, a scrubbed environment, a
// timeout, and a cap on the output it keeps. When the command ends, times out
// or is cancelled, everything it started is killed, so nothing it spawned
// outlives the call.
//
// Two runners: Local runs `sh -c` as a plain child process (no OS
// confinement; tests and trusted callers). Confined runs it through a helper
// process (this same binary re-executed, see MaybeRunHelper) that confines
// itself with Landlock, namespaces and resource limits before starting the
// shell. Probe says which of those protections this machine offers.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loupe-dev/loupe/backend/cmdshell"
)

// Defaults used when a Command leaves a field at zero.
const (
	DefaultTimeout   = 2 * time.Minute
	DefaultOutputCap = 64 << 10
	// DefaultOutputLimit is how much output a command may produce in total
	// before it is killed: far more than is ever kept, so only runaway
	// commands (`yes`, an endless log) hit it.
	DefaultOutputLimit = 32 << 20
	// DefaultWaitDelay is how long Run waits for the output pipe to close
	// after the shell has exited and its process group was killed. A process
	// that left the group (setsid) and holds the pipe open is abandoned
	// after this delay rather than hanging the call.
	DefaultWaitDelay = 500 * time.Millisecond
)

// Command is one shell script to run.
type Command struct {
	// Dir is the working directory. It must exist.
	Dir string
	// Script is run as `sh -c Script`.
	Script string
	// Timeout bounds the whole run; zero means DefaultTimeout.
	Timeout time.Duration
	// OutputCap is how many bytes of output are kept (head and tail);
	// zero means DefaultOutputCap.
	OutputCap int
	// OnOutput, when set, is given the output as it is read, while the
	// command runs, so it can be shown live: stderr says which stream p
	// came from. Calls are never concurrent, come in the order the bytes
	// are kept in Output.Text, and stop before Run returns; p is only
	// valid during the call. It must not block: the command's output
	// waits while it runs.
	//
	// With OnOutput, stdout and stderr are read from two pipes so they
	// can be told apart, and Output.Text interleaves them in the order
	// they were read: what two streams wrote within the same moment may
	// come in either order. Without it, one pipe keeps them in exactly
	// the order they were written.
	OnOutput func(stderr bool, p []byte)
	// Sweep, when set, takes the check of what the command left in its
	// workspace (a repository that would run a program on the user's
	// next git) instead of Run doing it when the command ends: the caller
	// runs the Sweep once every parallel command has ended. Nil: Run
	// checks at the end of this command and says so in Output.Text.
	Sweep *Sweep
	// Stdin, when set, is what the command reads on its standard input
	// (a hook's JSON); nil reads /dev/null.
	Stdin []byte
}

// Output is what a finished command produced.
type Output struct {
	// Text is stdout and stderr interleaved as they were written (with
	// OnOutput: as they were read, see Command.OnOutput). When
	// Truncated, the middle is replaced by a marker saying how many bytes
	// were left out.
	Text      string
	ExitCode  int
	TimedOut  bool
	Cancelled bool
	Truncated bool
	// OverLimit says the command was killed because it wrote more than the
	// runner's output limit.
	OverLimit bool
	// TotalBytes counts all output the command wrote (that was read).
	TotalBytes int
	Duration   time.Duration
	// Confined is true when the command ran with every protection a
	// Confined runner enforces (see Protections.Sandboxed). Always false
	// for Local.
	Confined bool
	// NotConfined says, in plain words, which protections were missing
	// when a Confined runner in BestEffort mode ran the command anyway.
	// Empty when Confined, and for Local.
	NotConfined string
}

// Runner runs shell commands. The error is only for commands that could not
// be started; a command that ran and failed reports it in Output.
type Runner interface {
	Run(ctx context.Context, c Command) (Output, error)
}

// Local runs commands as child processes of this process, with no OS
// confinement: a command can write wherever the user can, use the network,
// and a process that leaves the group (setsid) survives it. Use Confined for
// the agent's commands. The zero value is ready to use.
type Local struct {
	// Shell is the shell used as `Shell -c Script`. Empty means
	// cmdshell.Commands(), the shell whose language the permission
	// classifier reads; anything else is for tests.
	Shell string
	// OutputLimit is the total output after which the command is killed;
	// zero means DefaultOutputLimit.
	OutputLimit int
	// WaitDelay: see DefaultWaitDelay; zero means DefaultWaitDelay.
	WaitDelay time.Duration
}

var _ Runner = Local{}

// Run runs c and returns when the shell has exited (or was killed for a
// timeout or cancellation) and its whole process group is dead.
func (l Local) Run(ctx context.Context, c Command) (Output, error) {
	shell := l.Shell
	if shell == "" {
		shell = cmdshell.Commands().Path
	}
	// Its workspace is not known here: it counts for every one.
	if err := commandStarted(ctx, ""); err != nil {
		return Output{}, err
	}
	defer commandEnded("")
	return execute(ctx, c, l.OutputLimit, l.WaitDelay, func(runCtx context.Context) (*exec.Cmd, error) {
		cmd := exec.CommandContext(runCtx, shell, "-c", c.Script)
		cmd.Dir = c.Dir
		cmd.Env = Environ(os.Environ())
		setProcessGroup(cmd)
		return cmd, nil
	}, nil)
}

// execute is what Local and Confined share. prepare builds the process
// (Path, Args, Dir, Env, SysProcAttr); execute connects stdin to /dev/null
// and stdout and stderr to one pipe, starts it, and kills its process group
// on timeout, cancellation, output overflow and exit. started, when not
// nil, runs after the start; an error from it kills the process and is
// returned as is.
func execute(ctx context.Context, c Command, limit int, waitDelay time.Duration,
	prepare func(runCtx context.Context) (*exec.Cmd, error), started func(*exec.Cmd) error) (Output, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	capBytes := c.OutputCap
	if capBytes <= 0 {
		capBytes = DefaultOutputCap
	}
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	if waitDelay <= 0 {
		waitDelay = DefaultWaitDelay
	}
	if err := ctx.Err(); err != nil {
		return Output{Cancelled: true, ExitCode: -1}, nil
	}

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd, err := prepare(runCtx)
	if err != nil {
		return Output{}, err
	}

	// One pipe for stdout and stderr keeps them interleaved in the order
	// they were written; a live view needs to tell them apart, so with
	// OnOutput stderr gets a pipe of its own. They are *os.File, so exec
	// starts no copying goroutine and Wait returns as soon as the shell
	// exits, even while a background job still holds a pipe.
	pr, pw, err := os.Pipe()
	if err != nil {
		return Output{}, fmt.Errorf("sandbox: create pipe: %w", err)
	}
	defer pr.Close()
	readers := []*os.File{pr}
	cmd.Stdin = nil // exec opens os.DevNull
	var stdinW *os.File
	if c.Stdin != nil {
		// A pipe of our own (not an io.Reader, for which exec would start
		// a copying goroutine that Wait waits for): the command gets the
		// read end, and what it does not read is dropped when it exits.
		sr, sw, err := os.Pipe()
		if err != nil {
			return Output{}, fmt.Errorf("sandbox: create pipe: %w", err)
		}
		defer sr.Close()
		cmd.Stdin, stdinW = sr, sw
	}
	cmd.Stdout = pw
	cmd.Stderr = pw
	var ew *os.File
	if c.OnOutput != nil {
		er, w, err := os.Pipe()
		if err != nil {
			pw.Close()
			return Output{}, fmt.Errorf("sandbox: create pipe: %w", err)
		}
		defer er.Close()
		readers, ew = append(readers, er), w
		cmd.Stderr = ew
	}
	closeWriters := func() {
		pw.Close() // the children hold their own copies
		if ew != nil {
			ew.Close()
		}
	}
	var killed atomic.Bool // set when the timeout or ctx ended the command
	cmd.Cancel = func() error {
		killed.Store(true)
		return killGroup(cmd.Process)
	}
	// If the group kill above somehow does not end the process, exec
	// kills it itself after this delay.
	cmd.WaitDelay = waitDelay

	start := time.Now()
	if err := cmd.Start(); err != nil {
		closeWriters()
		if stdinW != nil {
			stdinW.Close()
		}
		return Output{}, fmt.Errorf("sandbox: start %s: %w", cmd.Path, err)
	}
	closeWriters()
	if stdinW != nil {
		if sr, ok := cmd.Stdin.(*os.File); ok {
			sr.Close() // the command holds its own copy
		}
		go func() {
			// Ends when all is written, or when the command exits without
			// reading it all (a broken pipe).
			_, _ = stdinW.Write(c.Stdin)
			stdinW.Close()
		}()
		// One that left the group and holds the pipe without reading
		// does not keep the writer waiting once Run returns.
		defer func() { _ = stdinW.SetWriteDeadline(time.Now()) }()
	}

	buf := newCapBuffer(capBytes)
	overLimit := make(chan struct{})
	// mu orders the two readers' writes into buf and their calls of
	// OnOutput, so that what is shown live is what is kept.
	var mu sync.Mutex
	signalled := false
	var reading sync.WaitGroup
	for i, r := range readers {
		stderr := i == 1
		reading.Go(func() {
			p := make([]byte, 32<<10)
			for {
				n, err := r.Read(p)
				if n > 0 {
					mu.Lock()
					buf.Write(p[:n])
					if c.OnOutput != nil {
						c.OnOutput(stderr, p[:n])
					}
					if !signalled && buf.total > limit {
						signalled = true
						close(overLimit)
					}
					mu.Unlock()
				}
				if err != nil {
					return
				}
			}
		})
	}
	readDone := make(chan struct{})
	go func() {
		reading.Wait()
		close(readDone)
	}()
	stopReading := func() {
		for _, r := range readers {
			_ = r.SetReadDeadline(time.Now())
		}
		<-readDone
	}

	waitDone := make(chan error, 1)
	if started != nil {
		if err := started(cmd); err != nil {
			_ = killGroup(cmd.Process)
			_ = cmd.Wait()
			stopReading()
			if ctx.Err() != nil {
				// Cancelled while starting: not a failure to confine.
				return Output{Cancelled: true, ExitCode: -1, Duration: time.Since(start)}, nil
			}
			if errors.Is(runCtx.Err(), context.DeadlineExceeded) {
				return Output{TimedOut: true, ExitCode: -1, Duration: time.Since(start)}, nil
			}
			return Output{}, err
		}
	}
	go func() { waitDone <- cmd.Wait() }()

	var waitErr error
	over := false
	select {
	case waitErr = <-waitDone:
	case <-overLimit:
		over = true
		_ = killGroup(cmd.Process)
		waitErr = <-waitDone
	}
	// The shell is gone; kill whatever it left behind in its group, so
	// `sleep 100 &` dies and releases the pipe.
	_ = killGroup(cmd.Process)
	select {
	case <-readDone:
	case <-time.After(waitDelay):
		// Someone outside the group still holds a pipe: stop reading.
		stopReading()
	}
	dur := time.Since(start)

	out := Output{
		ExitCode:   exitCode(cmd.ProcessState),
		TotalBytes: buf.total,
		Duration:   dur,
		OverLimit:  over,
	}
	out.Text, out.Truncated = buf.String()
	if over {
		out.Text += fmt.Sprintf("\n[output exceeded %d bytes; command killed]\n", limit)
	}
	if killed.Load() {
		if ctx.Err() != nil {
			out.Cancelled = true
		} else if errors.Is(runCtx.Err(), context.DeadlineExceeded) {
			out.TimedOut = true
		}
	}
	if cmd.ProcessState == nil {
		// Wait failed without the process having been waited for: not
		// something a command can cause.
		return out, fmt.Errorf("sandbox: wait: %w", waitErr)
	}
	return out, nil
}

// capBuffer keeps the first and last bytes of a stream and counts the rest.
type capBuffer struct {
	headCap, tailCap int
	head             []byte
	tail             []byte // the last tailCap bytes after head filled up, possibly with slack
	total            int
}

func newCapBuffer(capBytes int) *capBuffer {
	h := capBytes / 2
	return &capBuffer{headCap: h, tailCap: capBytes - h}
}

func (b *capBuffer) Write(p []byte) {
	b.total += len(p)
	if room := b.headCap - len(b.head); room > 0 {
		n := min(room, len(p))
		b.head = append(b.head, p[:n]...)
		p = p[n:]
	}
	if len(p) == 0 {
		return
	}
	if len(p) >= b.tailCap {
		b.tail = append(b.tail[:0], p[len(p)-b.tailCap:]...)
		return
	}
	b.tail = append(b.tail, p...)
	if len(b.tail) > 2*b.tailCap {
		n := copy(b.tail, b.tail[len(b.tail)-b.tailCap:])
		b.tail = b.tail[:n]
	}
}

// String returns the kept text and whether anything was left out.
func (b *capBuffer) String() (string, bool) {
	tail := b.tail
	if len(tail) > b.tailCap {
		tail = tail[len(tail)-b.tailCap:]
	}
	if len(b.head)+len(tail) == b.total {
		return string(b.head) + string(tail), false
	}
	head := trimRuneEnd(b.head)
	tail = trimRuneStart(tail)
	omitted := b.total - len(head) - len(tail)
	return fmt.Sprintf("%s\n… [%d bytes omitted] …\n%s", head, omitted, tail), true
}

// trimRuneEnd drops an incomplete UTF-8 sequence at the end of p.
func trimRuneEnd(p []byte) []byte {
	for i := 1; i <= 3 && i <= len(p); i++ {
		c := p[len(p)-i]
		if c < 0x80 {
			return p
		}
		if c >= 0xC0 { // a start byte: is its sequence complete?
			need := 2
			switch {
			case c >= 0xF0:
				need = 4
			case c >= 0xE0:
				need = 3
			}
			if i < need {
				return p[:len(p)-i]
			}
			return p
		}
	}
	return p
}

// trimRuneStart drops UTF-8 continuation bytes at the start of p.
func trimRuneStart(p []byte) []byte {
	for i := 0; i < 3 && len(p) > 0 && p[0]&0xC0 == 0x80; i++ {
		p = p[1:]
	}
	return p
}
