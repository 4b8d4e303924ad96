// Package cli is Loupe without a window: `loupe run` runs one session to
// its end against the same engine and database as the window, `loupe pull`
// pulls a model into Ollama, `loupe export` writes a session out,
// `loupe import` stores an exported one again, `loupe search` finds text
// in every session's log, `loupe try` sends one recorded request again
// and compares the answers, `loupe compare` puts two sessions side by
// side, round by round, and `loupe fork` makes a session from another's
// log up to an event.
// Each command is an entry of one table (command.go), which gives every
// command the same parsing, --help and usage errors, and loupe help its
// list. Start decides, for main, between a command and the window.
package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/visible"
)

// Exit codes. A run stopped by a signal exits 128 + the signal's number
// (ExitSignal), as a shell reports a command killed by it, whether the run
// was closed cleanly or a second signal cut that short.
const (
	ExitAnswered = 0 // the model answered
	ExitEnded    = 1 // the run ended another way (cap, error, cancel)
	ExitUsage    = 2 // bad command line
	ExitFailed   = 3 // could not start (database, Ollama, model, workspace)
)

// stopSignals end a run as Stop does: Ctrl-C, what timeout, systemd and CI
// send (SIGTERM), a closed terminal (SIGHUP), and a reader of the output
// that went away (SIGPIPE, `loupe run --json | head -1`), which would
// otherwise kill the process and leave its run open.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE}

// ExitSignal is the exit code of a run stopped by sig: 130 for SIGINT, 143
// for SIGTERM, 129 for SIGHUP.
func ExitSignal(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return ExitEnded
}

// IsCommand tells whether the arguments start with a command Loupe knows
// (see Start for what main does with the rest).
func IsCommand(args []string) bool {
	return len(args) > 0 && (isHelp(args[0]) || lookup(args[0]) != nil)
}

// Main runs a command and returns the process exit code. Everything a
// command prints goes through package visible: the timeline, the export,
// the progress of a pull and every error quote text Loupe did not write
// (the model's, a command's, a server's), and none of it may steer the
// terminal (clear it, move the cursor, set its title, write the
// clipboard, overwrite a line). Only the pull's progress line and the
// search's bold matches on a terminal write stdout itself.
func Main(args []string, stdout, stderr io.Writer) int {
	term := stdout
	stdout, stderr = visible.Writer(stdout), visible.Writer(stderr)
	if len(args) == 0 {
		listCommands(stderr)
		return ExitUsage
	}
	name := args[0]
	if isHelp(name) {
		// loupe help COMMAND is loupe COMMAND --help.
		if len(args) == 1 {
			listCommands(stdout)
			return 0
		}
		name, args = args[1], []string{args[1], "--help"}
	}
	cmd := lookup(name)
	if cmd == nil {
		fmt.Fprintf(stderr, "loupe: unknown command %q\n", name)
		listCommands(stderr)
		return ExitUsage
	}
	return cmd.run(args[1:], term, stdout, stderr)
}

// openStore opens the database --db names (or the default one) with open:
// store.Open, or store.OpenReadOnly for a command that only reads.
func openStore(open func(string) (*store.Store, error), dbFlag string, stderr io.Writer) (*store.Store, bool) {
	st, err := open(store.ResolvePath(dbFlag))
	if err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		return nil, false
	}
	return st, true
}

// stops is how loupe run takes stop signals: the first cancels ctx (and so
// the run, cleanly), a second exits the process at once.
type stops struct {
	ctx    context.Context
	cancel context.CancelFunc
	ch     chan os.Signal
	done   chan struct{}
	once   sync.Once

	mu  sync.Mutex
	got os.Signal // the first stop signal, nil before one came
}

func catchStops(stderr io.Writer) *stops {
	ctx, cancel := context.WithCancel(context.Background())
	s := &stops{ctx: ctx, cancel: cancel, ch: make(chan os.Signal, 2), done: make(chan struct{})}
	signal.Notify(s.ch, stopSignals...)
	go func() {
		var first os.Signal
		select {
		case first = <-s.ch:
		case <-s.done:
			return
		}
		s.mu.Lock()
		s.got = first
		s.mu.Unlock()
		fmt.Fprintf(stderr, "loupe: %s: stopping the run (send it again to quit at once)\n", signalName(first))
		cancel()
		for {
			select {
			case again := <-s.ch:
				if again == syscall.SIGPIPE {
					// Another write to a reader that is gone, not
					// someone asking twice.
					continue
				}
				// Whatever the stop was doing (killing a command, writing
				// the run's end) is cut short: the run stays open, and is
				// closed as interrupted when the window next recovers the
				// database.
				fmt.Fprintf(stderr, "loupe: a second signal (%s): quitting now; the run is left open\n", signalName(again))
				os.Exit(ExitSignal(first))
			case <-s.done:
				return
			}
		}
	}()
	return s
}

// release stops catching signals: from then on they have their usual
// effect.
func (s *stops) release() {
	s.once.Do(func() {
		signal.Stop(s.ch)
		close(s.done)
		s.cancel()
	})
}

// name says which signal stopped the run, for its log.
func (s *stops) name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.got == nil {
		return ""
	}
	return signalName(s.got)
}

// code is the exit code of a run that would otherwise exit with code:
// ExitSignal if a stop signal came, since the run did not finish as asked.
func (s *stops) code(code int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.got == nil {
		return code
	}
	return ExitSignal(s.got)
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGPIPE:
		return "SIGPIPE (the output's reader went away)"
	}
	return sig.String()
}

// printer writes the timeline as it is committed.
type printer struct {
	mu   sync.Mutex
	w    io.Writer
	json bool
	gone bool
}

func (p *printer) Event(e trace.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone {
		return
	}
	var err error
	if p.json {
		// JSON escapes the C0 controls; visible escapes the rest (DEL, C1,
		// bidi) as \uXXXX, so the line is the same JSON value.
		b, _ := json.Marshal(e)
		_, err = fmt.Fprintf(p.w, "%s\n", visible.Text(string(b)))
	} else {
		_, err = fmt.Fprintf(p.w, "[%d.%d] %s\n", e.Run, e.Round, trace.Describe(e))
	}
	// A reader that went away (a closed pipe) is not written to again;
	// its SIGPIPE stops the run.
	p.gone = err != nil
}

func (p *printer) Delta(agent.Delta) {}

// NoDeltas: loupe run prints the log's events only, so its runs stream
// nothing (see session.Sink).
func (p *printer) NoDeltas() {}
