// Package cli is Loupe without a window: `loupe run` runs one session to
// its end against the same engine and database as the window, `loupe pull`
// pulls a model into Ollama, `loupe export` writes a session out,
// `loupe search` finds text in every session's log, `loupe try` sends
// one recorded request again and compares the answers, and `loupe compare`
// puts two sessions side by side, round by round.
// Start decides, for main, between a command and the window.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/demo"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
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
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "run", "pull", "export", "search", "try", "compare", "fork", "help", "-h", "--help", "-help":
		return true
	}
	return false
}

// Main runs a command and returns the process exit code. Everything a
// command prints goes through package visible: the timeline, the export,
// the progress of a pull and every error quote text Loupe did not write
// (the model's, a command's, a server's), and none of it may steer the
// terminal (clear it, move the cursor, set its title, write the
// clipboard, overwrite a line). Only the pull's progress line on a
// terminal writes stdout itself, to rewrite its own line.
func Main(args []string, stdout, stderr io.Writer) int {
	term := stdout
	stdout, stderr = visible.Writer(stdout), visible.Writer(stderr)
	if len(args) == 0 {
		usage(stderr)
		return ExitUsage
	}
	switch args[0] {
	case "run":
		return runCmd(args[1:], stdout, stderr)
	case "export":
		return exportCmd(args[1:], stdout, stderr)
	case "pull":
		return pullCmd(args[1:], term, stdout, stderr)
	case "search":
		return searchCmd(args[1:], term, stdout, stderr)
	case "try":
		return tryCmd(args[1:], stdout, stderr)
	case "compare":
		return compareCmd(args[1:], stdout, stderr)
	case "fork":
		return forkCmd(args[1:], stdout, stderr)
	case "help", "-h", "--help", "-help":
		usage(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "loupe: unknown command %q\n", args[0])
	usage(stderr)
	return ExitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage:
  loupe                      open the window
  loupe run --model NAME [--workspace DIR] [--host NAME|URL] [--db FILE] [--json] [--auto] [--max-rounds N]
            [--tools LIST] [--first-token-timeout DURATION] [--stall-timeout DURATION] "prompt"
                             run one session to its end and print its timeline
  loupe pull NAME [--host URL] [--db FILE]
                             pull a model into Ollama, showing its progress
  loupe export SESSION --format json|md|html|otlp [--no-content] [--db FILE] [--out FILE]
                             write a stored session out
  loupe export SESSION --otlp-endpoint URL [--otlp-protocol http/protobuf|http/json] [--no-content] [--db FILE]
                             send a stored session's traces to an OTLP collector (Jaeger)
  loupe search QUERY [--json] [--model NAME] [--workspace DIR] [--outcome REASON]
            [--since DATE] [--until DATE] [--limit N] [--db FILE]
                             find text in every session's log
  loupe try SESSION --at SEQ [--model NAME] [--host NAME|URL] [--temperature T]
            [--num-ctx N] [--body FILE] [--json] [--db FILE]
                             send one recorded request again and compare the answers
  loupe compare SESSION SESSION [--json] [--db FILE]
                             two sessions side by side, round by round
  loupe fork SESSION --at SEQ [--model NAME] [--host NAME|URL] [--copy [--folder DIR]] [--json] [--db FILE]
                             make a session whose log is SESSION's up to event SEQ, waiting there
  loupe run --continue SESSION [--auto] [--json] [--model NAME] ["message"]
                             go on with a stored session (a fork) from where it waits, then the message

run exits 0 only when the model answered. Without --auto, anything that would
ask for permission (writes, commands) is denied: there is no one to ask.
See loupe run --help for its flags, exit codes and signals.
`)
}

// runNotes follow the flags in loupe run --help.
const runNotes = `
Where Ollama is: --host, else the Ollama host saved in Settings (in the
database --db names), else $OLLAMA_HOST, else http://127.0.0.1:11434. --host
takes the name of one of Settings' Ollama hosts (gpu-box) or an address,
written like localhost:11434, http://192.168.1.20:11434 or
https://gpu-box.lan. The session keeps that host when the window opens it.

Waiting for Ollama: --first-token-timeout bounds the wait for the first byte of
each answer, which includes loading the model, reading the prompt and, for an
answer that starts with a tool call, writing that call; --stall-timeout bounds
the wait between two pieces of an answer (Ollama sends nothing while the model
writes a tool call, so allow for the longest one).
Durations are written like 90s, 10m or 1h; 0 waits without a bound. When one
runs out, the partial answer is kept and marked, none of its tool calls run,
a notice says which bound ran out, and the run ends with reason "timeout".

Compaction (on unless Settings or --compact off say otherwise): when a prompt
reaches the share of num_ctx Settings give (80 % unless changed), the model
summarises the older turns and the next requests send the summary with the
latest rounds; a prompt Ollama refuses as longer than num_ctx is compacted
and sent again once. With compaction off, such a run stops with reason
"does_not_fit". Every compaction is an event of the timeline.

Stopping: SIGINT (Ctrl-C), SIGTERM and SIGHUP (and SIGPIPE, when the reader of
the output goes away, as with | head) end the run as Stop does in the
window: running commands are killed, every open tool call gets a "cancelled"
result, the run_end is recorded and the database is closed. loupe then exits
128 + the signal's number (130, 143, 129). A second signal exits at once with
the same code and leaves the run open; the next loupe run or window on the
database closes such a run as interrupted.

Recovery: loupe run owns its run while it works (a lease in the database).
When it opens the database it first closes the runs left open by a Loupe
that is gone (killed, crashed, or its machine restarted): their open tool
calls get an "interrupted (app exited)" result and each run its run_end. Runs
that a live process owns (the window, another loupe run) are never touched,
and a run paused in step mode stays paused for the window to reopen.
loupe export only reads: it recovers nothing.

Exit codes: 0 the model answered; 1 the run ended another way (round cap,
error, timeout); 2 bad command line; 3 could not start (database, Ollama,
model, workspace); 128+N stopped by signal N.
`

// parseInterspersed lets flags come before or after positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
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

func runCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	workspace := fs.String("workspace", ".", "folder the agent works in")
	cont := fs.String("continue", "", "go on with the stored `SESSION` instead of making one: a run waiting at a pause (a fork) goes on to its end, then the message, if given, starts the next run (the session's workspace, host and tools; --model changes its model)")
	model := fs.String("model", "", "Ollama model name (required); "+demo.Name+" is the built-in scripted demo, which needs no Ollama and, without --workspace, works in a fresh copy of its project")
	host := fs.String("host", "", "the Ollama host: a `NAME` from Settings' Ollama hosts, or a URL (default: Settings' Ollama host, else $OLLAMA_HOST, else "+ollama.DefaultHost+")")
	db := fs.String("db", "", "database file (default $LOUPE_DB or the user data dir)")
	asJSON := fs.Bool("json", false, "print one JSON event per line")
	auto := fs.Bool("auto", false, "run writes and commands without asking")
	toolList := fs.String("tools", "", "offer the model only these tools, a comma-separated `LIST` such as read_file,list_dir (\"none\": no tools; default: every tool)")
	maxRounds := fs.Int("max-rounds", 0, "save N (1-1000) as the round cap in the database's settings, as Settings in the window does")
	compact := fs.String("compact", "", "save `on or off` as compaction in the database's settings, as Settings in the window does")
	// The defaults are Settings' (read once the database is open): the
	// flags' own zero values are never used unless given.
	firstToken := fs.Duration("first-token-timeout", 0, fmt.Sprintf("give up on an answer whose first byte has not come after `DURATION` (includes loading the model; 0: no bound; when not given, Settings' wait, %v unless changed there)", ollama.DefaultFirstTokenTimeout))
	stall := fs.Duration("stall-timeout", 0, fmt.Sprintf("give up on an answer that sends nothing more for `DURATION` (0: no bound; when not given, Settings' wait, %v unless changed there)", ollama.DefaultStallTimeout))
	// The flag package prints what is wrong with a flag; the whole help
	// is for --help, on standard output.
	fs.Usage = func() {}
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, "Usage: loupe run --model NAME [flags] \"prompt\"\n\nRuns one session to its end and prints its timeline.\n\nFlags:\n")
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fmt.Fprint(stdout, runNotes)
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "See loupe run --help.")
		return ExitUsage
	}
	if *compact != "" && *compact != "on" && *compact != "off" {
		fmt.Fprintf(stderr, "loupe run: --compact takes on or off, not %q\n", *compact)
		return ExitUsage
	}
	if *firstToken < 0 || *stall < 0 {
		fmt.Fprintln(stderr, "loupe run: --first-token-timeout and --stall-timeout take a duration of 0 or more (0: no bound)")
		return ExitUsage
	}
	prompt := strings.TrimSpace(strings.Join(pos, " "))
	if demo.Is(*model) && prompt == "" && *cont == "" {
		prompt = demo.Task // the demo plays its one task whatever it is told
	}
	if *cont == "" && (*model == "" || prompt == "") {
		fmt.Fprintln(stderr, "loupe run: --model and a prompt are required")
		usage(stderr)
		return ExitUsage
	}
	// Which sandbox this machine gives commands is found by starting the
	// helper (tens of milliseconds, kept for the process): it starts now,
	// while the database opens and Ollama is asked about the model, not
	// after them, before the first request.
	go sandbox.Probe()
	st, ok := openStore(store.Open, *db, stderr)
	if !ok {
		return ExitFailed
	}
	defer st.Close()
	out := &printer{w: stdout, json: *asJSON}
	// The host and the waits Settings gives, unless a flag says otherwise
	// (the host: --host, else Settings' Ollama host, else OLLAMA_HOST, as
	// in the window).
	waits := ollama.DefaultTimeouts()
	set, err := settings.Load(context.Background(), st)
	if err == nil {
		waits = set.OllamaTimeouts()
	}
	// --host names the session's host: a Settings name or an address,
	// kept with the session. The local host is what the window would use.
	ref, err := set.HostRef(*host)
	if err != nil {
		fmt.Fprintf(stderr, "loupe run: --host: %v\n", err)
		return ExitUsage
	}
	oc := ollama.New(settings.ChooseHost("", set).Host, nil)
	workspaceGiven := false
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "first-token-timeout":
			waits.FirstToken = *firstToken
		case "stall-timeout":
			waits.Stall = *stall
		case "workspace":
			workspaceGiven = true
		}
	})
	if demo.Is(*model) && !workspaceGiven {
		// The demo given no folder works in a fresh copy of its project.
		*workspace = ""
	}
	oc.SetTimeouts(waits)
	m := session.NewManager(st, oc, nil, out)
	if *maxRounds != 0 {
		set, err := settings.Load(context.Background(), st)
		if err == nil {
			set.MaxRounds = *maxRounds
			err = settings.Save(context.Background(), st, set)
		}
		if err != nil {
			fmt.Fprintf(stderr, "loupe: --max-rounds: %v\n", err)
			return ExitUsage
		}
	}
	if *compact != "" {
		set, err := settings.Load(context.Background(), st)
		if err == nil {
			set.Compact = *compact == "on"
			err = settings.Save(context.Background(), st, set)
		}
		if err != nil {
			fmt.Fprintf(stderr, "loupe: --compact: %v\n", err)
			return ExitUsage
		}
	}
	// Runs left open by a Loupe that is gone (killed, crashed, its
	// machine restarted) are closed before this one starts; runs a live
	// process owns are not touched. A manager without a sink: those are
	// other sessions' events, not this run's timeline. This also removes
	// what commands of a killed Loupe left behind.
	if err := session.NewManager(st, oc, nil, nil).CloseCrashed(context.Background()); err != nil {
		fmt.Fprintf(stderr, "loupe: closing runs left open: %v\n", err)
	}

	sig := catchStops(stderr)
	defer sig.release()
	ctx := sig.ctx
	// The session is stored with the prompt and the run's lease in one
	// write: a kill at any moment leaves no empty session (after that
	// write it leaves the prompt, and a run the next recovery closes as
	// interrupted).
	var offered *[]string
	none := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "tools" {
			return
		}
		names := []string{}
		for _, n := range strings.Split(*toolList, ",") {
			switch n = strings.TrimSpace(n); n {
			case "":
			case "none":
				none = true
			default:
				names = append(names, n)
			}
		}
		offered = &names
	})
	if none && len(*offered) > 0 {
		fmt.Fprintf(stderr, "loupe run: --tools: \"none\" offers no tool, so it cannot come with tool names (%s)\n", *toolList)
		return sig.code(ExitUsage)
	}
	if *cont != "" {
		return sig.code(continueRun(ctx, m, *cont, *model, prompt, *auto, *asJSON, stderr, sig))
	}
	s, lease, err := m.CreateWith(ctx, *workspace, *model, session.Setup{Host: ref, Tools: offered}, prompt)
	if err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		return sig.code(ExitFailed)
	}
	defer func() { // once Run, which takes the lease over, is done
		if err := lease.Release(); err != nil {
			fmt.Fprintf(stderr, "loupe: %v (the next loupe run or window closes the run)\n", err)
		}
	}()
	if demo.Is(*model) {
		fmt.Fprintf(stderr, "loupe: %s works in %s\n", demo.Label, s.Workspace)
	}
	opt := session.RunOptions{Approver: session.DenyAll{Why: "rule: no one to ask in a headless run (use --auto to allow)"}}
	if *auto {
		opt.Mode = permission.ModeAuto
	}
	// The run itself ignores ctx's cancel (a run outlives a UI call), so a
	// stop signal is turned into Stop. Stop finds nothing to cancel until
	// the run has taken its slot, so it is tried until it does or the run
	// is over: a signal that comes while the run starts is not lost.
	ran := make(chan struct{})
	defer close(ran)
	go func() {
		select {
		case <-ctx.Done():
		case <-ran:
			return
		}
		for !m.StopBy(s.ID, sig.name()) {
			select {
			case <-ran:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	end, err := m.Run(ctx, s.ID, prompt, opt)
	if err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		if end.Reason == "" {
			// Nothing ran: do not leave the session behind.
			if evs, _ := st.Events(context.Background(), s.ID); len(evs) == 1 && agent.Begun(evs, prompt) {
				if err := st.DeleteSession(context.Background(), s.ID); err != nil {
					fmt.Fprintf(stderr, "loupe: the session that could not start is left in the database (%v); delete it in the window\n", err)
				}
			}
			return sig.code(ExitFailed)
		}
		return sig.code(ExitEnded)
	}
	if !*asJSON {
		fmt.Fprintf(stderr, "session %s\n", s.ID)
	}
	if end.Reason == trace.EndAnswered {
		return ExitAnswered
	}
	return sig.code(ExitEnded)
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
