// Package cli is Loupe without a window: `loupe run` runs one session to
// its end against the same engine and database as the window, and
// `loupe export` writes a session out.
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

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Exit codes.
const (
	ExitAnswered = 0 // the model answered
	ExitEnded    = 1 // the run ended another way (cap, error, cancel)
	ExitUsage    = 2 // bad command line
	ExitFailed   = 3 // could not start (database, Ollama, model, workspace)
)

// IsCommand tells main whether the arguments name a command-line mode, so
// that anything else opens the window.
func IsCommand(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "run", "export", "help", "-h", "--help", "-help":
		return true
	}
	return false
}

// Main runs a command and returns the process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return ExitUsage
	}
	switch args[0] {
	case "run":
		return runCmd(args[1:], stdout, stderr)
	case "export":
		return exportCmd(args[1:], stdout, stderr)
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
  loupe run --model NAME [--workspace DIR] [--host URL] [--db FILE] [--json] [--auto] [--max-rounds N] "prompt"
                             run one session to its end and print its timeline
  loupe export SESSION --format json|md|html [--db FILE] [--out FILE]
                             write a stored session out

run exits 0 only when the model answered. Without --auto, anything that would
ask for permission (writes, commands) is denied: there is no one to ask.
`)
}

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

func openStore(dbFlag string, stderr io.Writer) (*store.Store, bool) {
	st, err := store.Open(store.ResolvePath(dbFlag))
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
	model := fs.String("model", "", "Ollama model name (required)")
	host := fs.String("host", "", "Ollama URL (default $OLLAMA_HOST or "+ollama.DefaultHost+")")
	db := fs.String("db", "", "database file (default $LOUPE_DB or the user data dir)")
	asJSON := fs.Bool("json", false, "print one JSON event per line")
	auto := fs.Bool("auto", false, "run writes and commands without asking")
	maxRounds := fs.Int("max-rounds", 0, "save N (1-1000) as the round cap in the database's settings, as Settings in the window does")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return ExitUsage
	}
	prompt := strings.TrimSpace(strings.Join(pos, " "))
	if *model == "" || prompt == "" {
		fmt.Fprintln(stderr, "loupe run: --model and a prompt are required")
		usage(stderr)
		return ExitUsage
	}
	st, ok := openStore(*db, stderr)
	if !ok {
		return ExitFailed
	}
	defer st.Close()
	h := *host
	if h == "" {
		h = ollama.HostFromEnv()
	}
	out := &printer{w: stdout, json: *asJSON}
	m := session.NewManager(st, ollama.New(h, nil), nil, out)
	if *maxRounds != 0 {
		set, err := m.Settings(context.Background())
		if err == nil {
			set.MaxRounds = *maxRounds
			err = m.SaveSettings(context.Background(), set)
		}
		if err != nil {
			fmt.Fprintf(stderr, "loupe: --max-rounds: %v\n", err)
			return ExitUsage
		}
	}
	sandbox.RemoveLeftovers() // what commands of a killed Loupe left behind

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s, err := m.Create(ctx, *workspace, *model)
	if err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		return ExitFailed
	}
	opt := session.RunOptions{Approver: session.DenyAll{Why: "rule: no one to ask in a headless run (use --auto to allow)"}}
	if *auto {
		opt.Mode = permission.ModeAuto
	}
	// The run itself ignores ctx's cancel (a run outlives a UI call), so
	// Ctrl-C is turned into Stop.
	go func() {
		<-ctx.Done()
		m.Stop(s.ID)
	}()
	end, err := m.Run(ctx, s.ID, prompt, opt)
	if err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		if end.Reason == "" {
			// Nothing ran: do not leave an empty session behind.
			if evs, _ := st.Events(context.Background(), s.ID); len(evs) == 0 {
				_ = st.DeleteSession(context.Background(), s.ID)
			}
			return ExitFailed
		}
		return ExitEnded
	}
	if !*asJSON {
		fmt.Fprintf(stderr, "session %s\n", s.ID)
	}
	if end.Reason == trace.EndAnswered {
		return ExitAnswered
	}
	return ExitEnded
}

func exportCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "json", "json, md or html")
	db := fs.String("db", "", "database file (default $LOUPE_DB or the user data dir)")
	outFile := fs.String("out", "", "write to this file instead of standard output")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "loupe export: name exactly one session id")
		return ExitUsage
	}
	st, ok := openStore(*db, stderr)
	if !ok {
		return ExitFailed
	}
	defer st.Close()
	var w io.Writer = stdout
	if *outFile != "" {
		f, err := os.Create(*outFile)
		if err != nil {
			fmt.Fprintf(stderr, "loupe: %v\n", err)
			return ExitFailed
		}
		defer f.Close()
		w = f
	}
	if err := session.Export(context.Background(), st, pos[0], *format, w); err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		if errors.Is(err, store.ErrNotFound) {
			return ExitFailed
		}
		return ExitUsage
	}
	return 0
}

// printer writes the timeline as it is committed.
type printer struct {
	mu   sync.Mutex
	w    io.Writer
	json bool
}

func (p *printer) Event(e trace.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		b, _ := json.Marshal(e)
		fmt.Fprintf(p.w, "%s\n", b)
		return
	}
	fmt.Fprintf(p.w, "[%d.%d] %s\n", e.Run, e.Round, trace.Describe(e))
}

func (p *printer) Delta(agent.Delta)       {}
func (p *printer) Session(session.Summary) {}
