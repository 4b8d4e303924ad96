package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"
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
)

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

// runCommand is `loupe run`: one session run to its end, its timeline
// printed as it is committed (see Main), or a stored session gone on with
// (--continue, see continueRun).
var runCommand = &command{
	name:     "run",
	synopsis: `run --model NAME [flags] "prompt"`,
	short:    "run one session to its end and print its timeline",
	about: `Runs one session to its end against the same engine and database as the window,
and prints its timeline.

loupe run --continue SESSION [flags] ["message"] goes on with a stored session
instead: a run waiting at a pause (a fork) goes on to its end, then the message,
if given, starts the next run.`,
	notes:     runNotes,
	minArgs:   0,
	maxArgs:   -1,
	wrongArgs: "",
	flags:     runFlags,
}

// runOptions are loupe run's flags.
type runOptions struct {
	workspace, cont, model, host, db, toolList, compact string
	asJSON, auto                                        bool
	maxRounds                                           int
	firstToken, stall                                   time.Duration
}

// runFlags declares loupe run's flags; the words after them are the
// prompt.
func runFlags(fs *flag.FlagSet) func(*call) int {
	o := &runOptions{}
	fs.StringVar(&o.workspace, "workspace", ".", "the folder `DIR` the agent works in")
	fs.StringVar(&o.cont, "continue", "", "go on with the stored `SESSION` instead of making one: a run waiting at a pause (a fork) goes on to its end, then the message, if given, starts the next run (the session's workspace, host and tools; --model changes its model)")
	fs.StringVar(&o.model, "model", "", "the Ollama model `NAME` (required); "+demo.Name+" is the built-in scripted demo, which needs no Ollama and, without --workspace, works in a fresh copy of its project")
	fs.StringVar(&o.host, "host", "", "the Ollama host: a `NAME` from Settings' Ollama hosts, or a URL (default: Settings' Ollama host, else $OLLAMA_HOST, else "+ollama.DefaultHost+")")
	fs.StringVar(&o.db, "db", "", "the database `FILE` (default $LOUPE_DB or the user data dir)")
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON event per line")
	fs.BoolVar(&o.auto, "auto", false, "run writes and commands without asking")
	fs.StringVar(&o.toolList, "tools", "", "offer the model only these tools, a comma-separated `LIST` such as read_file,list_dir (\"none\": no tools; default: every tool)")
	fs.IntVar(&o.maxRounds, "max-rounds", 0, "save `N` (1-1000) as the round cap in the database's settings, as Settings in the window does")
	fs.StringVar(&o.compact, "compact", "", "save `on|off` as compaction in the database's settings, as Settings in the window does")
	// The defaults are Settings' (read once the database is open): the
	// flags' own zero values are never used unless given.
	fs.DurationVar(&o.firstToken, "first-token-timeout", 0, fmt.Sprintf("give up on an answer whose first byte has not come after `DURATION` (includes loading the model; 0: no bound; when not given, Settings' wait, %v unless changed there)", ollama.DefaultFirstTokenTimeout))
	fs.DurationVar(&o.stall, "stall-timeout", 0, fmt.Sprintf("give up on an answer that sends nothing more for `DURATION` (0: no bound; when not given, Settings' wait, %v unless changed there)", ollama.DefaultStallTimeout))
	return o.run
}

// run carries loupe run out.
func (o *runOptions) run(c *call) int {
	stdout, stderr := c.stdout, c.stderr
	if o.compact != "" && o.compact != "on" && o.compact != "off" {
		return c.usage("--compact takes on or off, not %q", o.compact)
	}
	if o.firstToken < 0 || o.stall < 0 {
		return c.usage("--first-token-timeout and --stall-timeout take a duration of 0 or more (0: no bound)")
	}
	prompt := strings.TrimSpace(strings.Join(c.args, " "))
	if demo.Is(o.model) && prompt == "" && o.cont == "" {
		prompt = demo.Task // the demo plays its one task whatever it is told
	}
	if o.cont == "" && (o.model == "" || prompt == "") {
		return c.usage("--model and a prompt are required")
	}
	// The tools the session offers: nil (not given) is every tool.
	var offered *[]string
	if c.given("tools") {
		names := []string{}
		none := false
		for _, n := range strings.Split(o.toolList, ",") {
			switch n = strings.TrimSpace(n); n {
			case "":
			case "none":
				none = true
			default:
				names = append(names, n)
			}
		}
		if none && len(names) > 0 {
			return c.usage("--tools: \"none\" offers no tool, so it cannot come with tool names (%s)", o.toolList)
		}
		offered = &names
	}
	// Which sandbox this machine gives commands is found by starting the
	// helper (tens of milliseconds, kept for the process): it starts now,
	// while the database opens and Ollama is asked about the model, not
	// after them, before the first request.
	go sandbox.Probe()
	st, ok := openStore(store.Open, o.db, stderr)
	if !ok {
		return ExitFailed
	}
	defer st.Close()
	out := &printer{w: stdout, json: o.asJSON}
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
	ref, err := set.HostRef(o.host)
	if err != nil {
		return c.usage("--host: %v", err)
	}
	oc := ollama.New(settings.ChooseHost("", set).Host, nil)
	if c.given("first-token-timeout") {
		waits.FirstToken = o.firstToken
	}
	if c.given("stall-timeout") {
		waits.Stall = o.stall
	}
	if demo.Is(o.model) && !c.given("workspace") {
		// The demo given no folder works in a fresh copy of its project.
		o.workspace = ""
	}
	oc.SetTimeouts(waits)
	m := session.NewManager(st, oc, nil, out)
	// The trace of the run, when Settings sends finished runs to an OTLP
	// collector, is given its short while before loupe run exits.
	defer m.WaitExports()
	// Its MCP servers stop before it exits.
	defer m.StopMCP()
	if o.maxRounds != 0 {
		set, err := settings.Load(context.Background(), st)
		if err == nil {
			set.MaxRounds = o.maxRounds
			err = settings.Save(context.Background(), st, set)
		}
		if err != nil {
			return c.usage("--max-rounds: %v", err)
		}
	}
	if o.compact != "" {
		set, err := settings.Load(context.Background(), st)
		if err == nil {
			set.Compact = o.compact == "on"
			err = settings.Save(context.Background(), st, set)
		}
		if err != nil {
			return c.usage("--compact: %v", err)
		}
	}
	// Runs left open by a Loupe that is gone (killed, crashed, its
	// machine restarted) are closed before this one starts; runs a live
	// process owns are not touched. A manager without a sink: those are
	// other sessions' events, not this run's timeline. This also removes
	// what commands of a killed Loupe left behind. The runs it closes are
	// sent where Settings sends finished runs, waited for like this one's.
	closer := session.NewManager(st, oc, nil, nil)
	defer closer.WaitExports()
	if err := closer.CloseCrashed(context.Background()); err != nil {
		fmt.Fprintf(stderr, "loupe: closing runs left open: %v\n", err)
	}

	sig := catchStops(stderr)
	defer sig.release()
	ctx := sig.ctx
	if o.cont != "" {
		return sig.code(continueRun(ctx, m, o.cont, o.model, prompt, o.auto, o.asJSON, stderr, sig))
	}
	// The session is stored with the prompt and the run's lease in one
	// write: a kill at any moment leaves no empty session (after that
	// write it leaves the prompt, and a run the next recovery closes as
	// interrupted).
	s, lease, err := m.CreateWith(ctx, o.workspace, o.model, session.Setup{Host: ref, Tools: offered}, prompt)
	if err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		return sig.code(ExitFailed)
	}
	defer func() { // once Run, which takes the lease over, is done
		if err := lease.Release(); err != nil {
			fmt.Fprintf(stderr, "loupe: %v (the next loupe run or window closes the run)\n", err)
		}
	}()
	if demo.Is(o.model) {
		fmt.Fprintf(stderr, "loupe: %s works in %s\n", demo.Label, s.Workspace)
	}
	opt := session.RunOptions{Approver: session.DenyAll{Why: "rule: no one to ask in a headless run (use --auto to allow)"}}
	if o.auto {
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
	if !o.asJSON {
		fmt.Fprintf(stderr, "session %s\n", s.ID)
	}
	if end.Reason == trace.EndAnswered {
		return ExitAnswered
	}
	return sig.code(ExitEnded)
}
