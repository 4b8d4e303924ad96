package localollama

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama"
)

// DefaultStartTimeout is how long Start waits for a started server to
// answer: Ollama answers in well under a second, but on its first start it
// makes its key and looks for GPUs, which on a slow machine takes seconds.
const DefaultStartTimeout = 30 * time.Second

// stopGrace is how long Stop lets Ollama stop its model runners before it
// kills them all.
const stopGrace = 5 * time.Second

// Launcher starts `ollama serve` for the user and stops, when asked, only
// the server it started. Its methods are safe to call at once.
type Launcher struct {
	// LogPath is the file the server's output is appended to.
	LogPath string
	// Finder finds the program (the zero Finder looks on PATH and in the
	// installers' places).
	Finder Finder
	// StartTimeout bounds the wait for a started server; 0 means
	// DefaultStartTimeout.
	StartTimeout time.Duration

	// starting serialises Start and Stop, which may wait for seconds; mu
	// guards the fields below only for a moment, so that Describe (the
	// status, every few seconds) never waits for a start.
	starting sync.Mutex
	mu       sync.Mutex
	run      *serving // the server this launcher started, nil when none
	last     error    // why the last start failed
}

// serving is one `ollama serve` this launcher started.
type serving struct {
	cmd  *exec.Cmd
	host string
	done chan struct{} // closed once it has exited
}

func (s *serving) alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// State is what Loupe knows of the Ollama on this machine, for a host.
type State struct {
	// OnThisMachine: the host is a loopback address, so the ollama here
	// is the one that serves it, and Loupe can start it.
	OnThisMachine bool `json:"on_this_machine"`
	// Installed: the ollama program was found (Binary), of BinaryVersion
	// ("" when it cannot tell).
	Installed     bool   `json:"installed"`
	Binary        string `json:"binary"`
	BinaryVersion string `json:"binary_version"`
	// StartedByLoupe: the server at the host is one Loupe started, and
	// stops when it exits.
	StartedByLoupe bool `json:"started_by_loupe"`
	// LogPath is where a server Loupe starts writes its output.
	LogPath string `json:"log_path"`
	// Install says how to get Ollama (set when it is not installed), and
	// InstallURL is its download page.
	Install    string `json:"install"`
	InstallURL string `json:"install_url"`
	// LastError is why Loupe's last start failed, "" once one works.
	LastError string `json:"last_error"`
}

// Describe says what is known of Ollama on this machine for host (the
// host Loupe talks to). It runs no server; it may run `ollama --version`
// once per program.
func (l *Launcher) Describe(host string) State {
	st := State{OnThisMachine: IsLocal(host), LogPath: l.LogPath}
	if bin := l.Finder.Find(); bin != "" {
		st.Installed, st.Binary, st.BinaryVersion = true, bin, Version(bin)
	} else {
		st.Install, st.InstallURL = InstallHint()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.run != nil && l.run.alive() && sameHost(l.run.host, host) {
		st.StartedByLoupe = true
	}
	if l.last != nil {
		st.LastError = l.last.Error()
	}
	return st
}

// IsLocal reports whether host (a base URL as the ollama client writes
// it) is served on this machine over plain HTTP at its root: only then is
// `ollama serve` here the server Loupe would talk to.
func IsLocal(host string) bool {
	u, err := url.Parse(ollama.NormalizeHost(host))
	if err != nil || u.Scheme != "http" || strings.Trim(u.Path, "/") != "" {
		return false
	}
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func sameHost(a, b string) bool { return ollama.NormalizeHost(a) == ollama.NormalizeHost(b) }

// NotLocalError: the host is on another machine, where Loupe cannot start
// Ollama.
type NotLocalError struct{ Host string }

func (e *NotLocalError) Error() string {
	return fmt.Sprintf("Ollama at %s is not on this machine, so Loupe cannot start it: start it there, or set the host in Settings → Ollama to this machine (localhost:11434)", e.Host)
}

// NotInstalledError: no ollama program was found.
type NotInstalledError struct{ Hint string }

func (e *NotInstalledError) Error() string { return e.Hint }

// StartError: `ollama serve` was started but did not come up: it exited
// (Exited, with its exit status) or did not answer within After. Tail is
// the end of its log.
type StartError struct {
	Host    string
	Exited  bool
	Status  string
	After   time.Duration
	Tail    string
	LogPath string
}

func (e *StartError) Error() string {
	var s string
	if e.Exited {
		s = fmt.Sprintf("Ollama did not start at %s: `ollama serve` exited (%s)", e.Host, e.Status)
	} else {
		s = fmt.Sprintf("Ollama did not start at %s: `ollama serve` did not answer within %s, so Loupe stopped it", e.Host, e.After)
	}
	if last := lastLine(e.Tail); last != "" {
		s += ": " + last
	}
	return s + " — see its log, " + e.LogPath
}

// lastLine is the last non-empty line of s, which for Ollama is its error
// ("Error: listen tcp 127.0.0.1:11434: bind: address already in use").
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// Started says how Start went when it returned no error.
type Started struct {
	// AlreadyRunning: a server already answered at the host; Loupe
	// started nothing and will stop nothing.
	AlreadyRunning bool
	Version        string
	PID            int
}

// Start makes sure Ollama answers at host, starting `ollama serve` there
// when nothing does, with OLLAMA_HOST set to the host and the rest of
// Loupe's environment (so OLLAMA_MODELS and the like are the user's). Its
// output is appended to LogPath. It returns once the server answers, or
// with a *StartError, having stopped what it started.
func (l *Launcher) Start(ctx context.Context, host string) (Started, error) {
	host = ollama.NormalizeHost(host)
	if !IsLocal(host) {
		return Started{}, &NotLocalError{Host: host}
	}
	l.starting.Lock()
	defer l.starting.Unlock()
	client := ollama.New(host, nil)
	if v, err := quickVersion(ctx, client); err == nil {
		s := Started{AlreadyRunning: true, Version: v}
		if run := l.current(); run != nil && sameHost(run.host, host) {
			s.AlreadyRunning, s.PID = false, run.cmd.Process.Pid
		}
		return s, nil
	}
	bin := l.Finder.Find()
	if bin == "" {
		hint, _ := InstallHint()
		return Started{}, &NotInstalledError{Hint: hint}
	}
	// Loupe's server serves another host (the host was changed): it is
	// stopped before one starts for the new host.
	l.stopLocked()
	s, err := l.launch(ctx, bin, host, client)
	l.mu.Lock()
	l.last, l.run = err, s
	l.mu.Unlock()
	if err != nil {
		return Started{}, err
	}
	v, _ := quickVersion(ctx, client)
	return Started{Version: v, PID: s.cmd.Process.Pid}, nil
}

func quickVersion(ctx context.Context, c *ollama.Client) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return c.Version(ctx)
}

func (l *Launcher) launch(ctx context.Context, bin, host string, client *ollama.Client) (*serving, error) {
	u, _ := url.Parse(host)
	if err := os.MkdirAll(filepath.Dir(l.LogPath), 0o755); err != nil {
		return nil, fmt.Errorf("cannot write Ollama's log at %s: %w", l.LogPath, err)
	}
	rotateLog(l.LogPath)
	logf, err := os.OpenFile(l.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot write Ollama's log at %s: %w", l.LogPath, err)
	}
	defer logf.Close() // the server has its own copy
	info, _ := logf.Stat()
	from := int64(0)
	if info != nil {
		from = info.Size()
	}
	fmt.Fprintf(logf, "\n--- Loupe started %s serve for %s at %s ---\n", bin, host, time.Now().Format(time.RFC3339))

	// Not CommandContext: the server outlives the click that started it.
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(withoutOllamaHost(os.Environ()), "OLLAMA_HOST="+u.Host)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Not in whatever folder Loupe was started from, which the server
	// would hold for as long as it runs.
	if home, err := os.UserHomeDir(); err == nil {
		if fi, err := os.Stat(home); err == nil && fi.IsDir() {
			cmd.Dir = home
		}
	}
	ownProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("could not run %s: %w", bin, err)
	}
	s := &serving{cmd: cmd, host: host, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(s.done)
	}()

	timeout := l.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := quickVersion(ctx, client); err == nil {
			return s, nil
		}
		select {
		case <-s.done:
			return nil, &StartError{Host: host, Exited: true, Status: cmd.ProcessState.String(), Tail: l.logSince(from), LogPath: l.LogPath}
		case <-deadline.C:
			killGroup(cmd)
			<-s.done
			return nil, &StartError{Host: host, After: timeout, Tail: l.logSince(from), LogPath: l.LogPath}
		case <-ctx.Done():
			killGroup(cmd)
			<-s.done
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// maxLogBytes is the size past which the server's log is started afresh
// (the previous one is kept as LogPath + ".1"), so that a server started
// every day for years does not fill the disk.
const maxLogBytes = 4 << 20

// rotateLog moves a log that has grown past maxLogBytes aside, replacing
// the one moved aside before. Failing to is no reason not to start the
// server: the log then grows on.
func rotateLog(path string) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLogBytes {
		if err := os.Rename(path, path+".1"); err != nil {
			log.Printf("loupe: Ollama's log %s could not be started afresh, so it grows on: %v", path, err)
		}
	}
}

// logTail bounds what logSince reads of the log.
const logTail = 8 << 10

// logSince is the log from byte from on, at most its last 8 KB. It reads
// only those bytes, however long the log is.
func (l *Launcher) logSince(from int64) string {
	f, err := os.Open(l.LogPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() < from {
		return ""
	}
	start := max(from, fi.Size()-logTail)
	b, err := io.ReadAll(io.NewSectionReader(f, start, fi.Size()-start))
	if err != nil {
		return ""
	}
	return string(b)
}

// Stop stops the server this launcher started, if it still runs: it asks
// it to stop as Ctrl-C would, and kills it and its model runners if they
// are not gone within a few seconds. A server Loupe did not start is never
// touched. It reports whether there was one to stop.
func (l *Launcher) Stop() bool {
	l.starting.Lock()
	defer l.starting.Unlock()
	return l.stopLocked()
}

// current is the server this launcher started, if it still runs.
func (l *Launcher) current() *serving {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.run == nil || !l.run.alive() {
		return nil
	}
	return l.run
}

// stopLocked is Stop with l.starting held.
func (l *Launcher) stopLocked() bool {
	l.mu.Lock()
	s := l.run
	l.run = nil
	l.mu.Unlock()
	if s == nil || !s.alive() {
		return false
	}
	terminate(s.cmd)
	select {
	case <-s.done:
		// Ollama stops its runners before it exits. Its process group is
		// not signalled once it is gone: the id could be another's by then.
	case <-time.After(stopGrace):
		killGroup(s.cmd)
		<-s.done
	}
	return true
}

// PID is the process id of the server this launcher started and that
// still runs, else 0.
func (l *Launcher) PID() int {
	if run := l.current(); run != nil {
		return run.cmd.Process.Pid
	}
	return 0
}

// ErrNotInstalled matches a *NotInstalledError with errors.Is.
var ErrNotInstalled = errors.New("ollama is not installed")

func (e *NotInstalledError) Is(target error) bool { return target == ErrNotInstalled }
