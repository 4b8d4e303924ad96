package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
)

// forkCommand is `loupe fork SESSION --at SEQ`: a new session whose log
// is SESSION's up to event SEQ, linked to it, waiting there to go on (with
// `loupe run --continue`, or in the window).
var forkCommand = &command{
	name:     "fork",
	synopsis: "fork SESSION --at SEQ [--model NAME] [--host NAME|URL] [--copy [--folder DIR]] [--json] [--db FILE]",
	short:    "make a session whose log is SESSION's up to event SEQ, waiting there",
	about: `Makes a new session whose log is SESSION's up to event SEQ, linked to it and
waiting there to go on (loupe run --continue, or in the window). It prints the
new session's id on standard output, and where it works and what its files
are on standard error.`,
	notes:     "Exit codes: 0 made; 2 bad command line; 3 could not open the database, or the\nfork could not be made (no such session or event, an event inside an\nunfinished step, a workspace that is gone, a --folder that exists).",
	minArgs:   1,
	maxArgs:   1,
	wrongArgs: forkArgs,
	flags: func(fs *flag.FlagSet) func(*call) int {
		o := &forkOptions{}
		fs.Int64Var(&o.at, "at", 0, "the event `SEQ` the fork holds the log up to (required; loupe export shows each event's seq)")
		fs.StringVar(&o.model, "model", "", "the model `NAME` the fork goes on with (default: the session's)")
		fs.StringVar(&o.host, "host", "", "the Ollama host the fork goes on with: a `NAME` from Settings' hosts or a URL (default: the session's)")
		fs.BoolVar(&o.copyTo, "copy", false, "work in a new folder holding the workspace as it was at SEQ (restored from the snapshots) instead of the folder as it is now")
		fs.StringVar(&o.folder, "folder", "", "with --copy: the new folder `DIR` (must not exist; default: next to the workspace, named after it)")
		fs.StringVar(&o.db, "db", "", "the database `FILE` (default $LOUPE_DB or the user data dir)")
		fs.BoolVar(&o.asJSON, "json", false, "print what was made as one JSON object")
		return o.run
	},
}

// forkArgs is what loupe fork says of a command line without one session
// and the event to fork at.
const forkArgs = "name one session and the event to fork at: loupe fork SESSION --at SEQ"

// forkOptions are loupe fork's flags.
type forkOptions struct {
	at                      int64
	model, host, folder, db string
	copyTo, asJSON          bool
}

// run carries loupe fork out.
func (o *forkOptions) run(c *call) int {
	stdout, stderr := c.stdout, c.stderr
	if o.at < 1 {
		return c.usage("%s", forkArgs)
	}
	if o.folder != "" && !o.copyTo {
		return c.usage("--folder is where --copy makes its folder; give --copy too")
	}
	st, ok := openStore(store.Open, o.db, stderr)
	if !ok {
		return ExitFailed
	}
	defer st.Close()
	set, _ := settings.Load(context.Background(), st)
	m := session.NewManager(st, ollama.New(settings.ChooseHost("", set).Host, nil), nil, nil)
	defer m.StopMCP()
	f := session.Fork{Session: c.args[0], At: o.at, Model: o.model, Host: o.host, Files: session.FilesHere}
	if o.copyTo {
		f.Files, f.Folder = session.FilesCopy, o.folder
	}
	res, err := m.Fork(context.Background(), f)
	if err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		return ExitFailed
	}
	if o.asJSON {
		b, _ := json.Marshal(res)
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	fmt.Fprintln(stdout, res.Summary.ID)
	describeFork(stderr, res)
	return 0
}

// describeFork says, in lines for a person, where a fork works and what
// its files are against the fork point.
func describeFork(w io.Writer, res session.Forked) {
	s, f := res.Summary, res.Files
	fmt.Fprintf(w, "forked %s at event %d as %s (%s), working in %s\n", s.ForkedFrom, s.ForkSeq, s.ID, s.Model, f.Workspace)
	if s.Standing != "" {
		fmt.Fprintf(w, "it waits there: loupe run --continue %s goes on\n", s.ID)
	} else {
		fmt.Fprintf(w, "its run has ended there: loupe run --continue %s \"message\" goes on\n", s.ID)
	}
	if !f.Copy {
		if len(f.Changed) > 0 {
			fmt.Fprintf(w, "changed since event %d, found as they are now: %s\n", s.ForkSeq, strings.Join(f.Changed, ", "))
		}
	} else {
		for _, n := range f.Restored {
			fmt.Fprintf(w, "restored %s: %s\n", n.Path, n.Note)
		}
		for _, n := range f.NotRestored {
			fmt.Fprintf(w, "NOT restored %s: %s\n", n.Path, n.Note)
		}
		for _, n := range f.NotCopied {
			fmt.Fprintf(w, "not copied %s: %s\n", n.Path, n.Note)
		}
	}
	if len(f.Commands) > 0 {
		fmt.Fprintf(w, "%d command(s) ran after event %d (results at %v): what they changed is in no snapshot\n", len(f.Commands), s.ForkSeq, f.Commands)
	}
}

// continueRun is `loupe run --continue SESSION ["message"]`: a run of the
// session waiting at a pause (a fork at its fork point) goes on to its
// end, no one stepping it; then the message, if any, starts the next run.
// It returns the exit code of the last run.
func continueRun(ctx context.Context, m *session.Manager, id, model, prompt string, auto, asJSON bool, stderr io.Writer, sig *stops) int {
	sum, err := m.Summary(ctx, id)
	if err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		return ExitFailed
	}
	if model != "" && model != sum.Model {
		if _, err := m.Do(ctx, session.SetModel{Session: id, Model: model}); err != nil {
			fmt.Fprintf(stderr, "loupe: %v\n", err)
			return ExitFailed
		}
	}
	if sum.Standing == "" && sum.OpenRun == 0 && prompt == "" {
		fmt.Fprintf(stderr, "loupe run: session %s waits for a message (its last run has ended): give one\n", id)
		return ExitUsage
	}
	opt := session.RunOptions{Approver: session.DenyAll{Why: "rule: no one to ask in a headless run (use --auto to allow)"}}
	if auto {
		opt.Mode = permission.ModeAuto
	}
	// As for a new run: a stop signal is turned into Stop, tried until
	// the run has taken its slot or is over.
	ran := make(chan struct{})
	defer close(ran)
	go func() {
		select {
		case <-ctx.Done():
		case <-ran:
			return
		}
		for !m.StopBy(id, sig.name()) {
			select {
			case <-ran:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	code := ExitAnswered
	if sum.OpenRun != 0 {
		end, err := m.GoOn(ctx, id, opt)
		if err != nil {
			fmt.Fprintf(stderr, "loupe: %v\n", err)
			if end.Reason == "" {
				return ExitFailed
			}
			return ExitEnded
		}
		if end.Reason != trace.EndAnswered {
			code = ExitEnded
		}
		if ctx.Err() != nil {
			return code
		}
	}
	if prompt != "" {
		end, err := m.Run(ctx, id, prompt, opt)
		if err != nil {
			fmt.Fprintf(stderr, "loupe: %v\n", err)
			if end.Reason == "" {
				return ExitFailed
			}
			return ExitEnded
		}
		code = ExitAnswered
		if end.Reason != trace.EndAnswered {
			code = ExitEnded
		}
	}
	if !asJSON {
		fmt.Fprintf(stderr, "session %s\n", id)
	}
	return code
}
