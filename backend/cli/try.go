package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/visible"
)

// tryNotes follow the flags in loupe try --help.
const tryNotes = `
SEQ is the seq of a model_request event of the session (loupe export SESSION
--format json lists them). The request is rebuilt from the log byte for byte
as it was sent, then --model, --temperature and --num-ctx are set in it, or
--body sends an edited copy instead (a file holding the JSON body; - reads
standard input). --host takes a name of Settings' Ollama hosts or an address;
without it the request goes where the session runs.

The answer is not run (its tool calls are only compared) and not stored: the
session is left exactly as it was. With --adopt it is kept instead: a fork of
the session (printed as with loupe fork) whose log holds the request as it was
sent and this answer, waiting there; loupe run --continue FORK goes on with
the try's model and host. The session itself is still left as it was.

Exit codes: 0 the model answered; 2 bad command line; 3 the request could not
be sent (no such session or request, a host that does not answer, a model
that is not installed or cannot use the request's tools) or the answer failed.
`

// tryCommand is `loupe try SESSION --at SEQ`: one recorded request sent
// again, its answer compared with the recorded one.
var tryCommand = &command{
	name:      "try",
	synopsis:  "try SESSION --at SEQ [--model NAME] [--host NAME|URL] [--temperature T] [--num-ctx N] [--body FILE] [--adopt] [--json] [--db FILE]",
	short:     "send one recorded request again and compare the answers",
	about:     "Sends one recorded request of a session again, as it was or changed, and prints\nthe new answer beside the recorded one.",
	notes:     tryNotes,
	minArgs:   1,
	maxArgs:   1,
	wrongArgs: "name exactly one session id, and the request with --at SEQ",
	flags: func(fs *flag.FlagSet) func(*call) int {
		o := &tryOptions{}
		fs.Int64Var(&o.at, "at", 0, "the `SEQ` of the model_request to send again (required)")
		fs.StringVar(&o.model, "model", "", "the model `NAME` to send it to (default: the request's)")
		fs.StringVar(&o.host, "host", "", "the Ollama host: a Settings `NAME` or a URL (default: the session's)")
		fs.StringVar(&o.temp, "temperature", "", "the temperature `T`, 0 to 2 (default: the request's)")
		fs.IntVar(&o.numCtx, "num-ctx", 0, "the context size, num_ctx, `N` tokens (default: the request's)")
		fs.StringVar(&o.bodyFile, "body", "", "send this `FILE`'s JSON body instead of the recorded one (- for standard input)")
		fs.BoolVar(&o.jsonOut, "json", false, "print the result as one JSON object (with --adopt, the fork as a second)")
		fs.BoolVar(&o.adopt, "adopt", false, "keep the answer: fork the session with the request as sent and this answer (the fork's id is printed)")
		fs.StringVar(&o.db, "db", "", "the database `FILE` (default $LOUPE_DB or the user data dir)")
		return o.run
	},
}

// tryOptions are loupe try's flags.
type tryOptions struct {
	at                              int64
	model, host, temp, bodyFile, db string
	numCtx                          int
	jsonOut, adopt                  bool
}

// run carries loupe try out.
func (o *tryOptions) run(c *call) int {
	stdout, stderr := c.stdout, c.stderr
	if o.at <= 0 {
		return c.usage("--at SEQ names the model_request to send again (loupe export SESSION --format json lists the events)")
	}
	t := session.Try{Session: c.args[0], At: o.at, Host: o.host, Model: o.model, NumCtx: o.numCtx}
	if o.numCtx < 0 {
		return c.usage("--num-ctx must be above 0, not %d", o.numCtx)
	}
	if o.temp != "" {
		v, err := strconv.ParseFloat(o.temp, 64)
		if err != nil {
			return c.usage("--temperature %q is not a number (write it like 0.7)", o.temp)
		}
		t.Temperature = &v
	}
	if o.bodyFile != "" {
		var b []byte
		var err error
		if o.bodyFile == "-" {
			b, err = io.ReadAll(os.Stdin)
		} else {
			b, err = os.ReadFile(o.bodyFile)
		}
		if err != nil {
			return c.usage("--body: %v", err)
		}
		if _, err := ollama.ReadChatBody(b); err != nil {
			return c.usage("--body %s: %v", o.bodyFile, err)
		}
		t.Body = string(b)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// Only reads unless the answer is adopted: the session is left as it
	// is (see store.OpenReadOnly), and a fork is a session of its own.
	open := store.OpenReadOnly
	if o.adopt {
		open = store.Open
	}
	st, ok := openStore(open, o.db, stderr)
	if !ok {
		return ExitFailed
	}
	defer st.Close()
	waits := ollama.DefaultTimeouts()
	set, err := settings.Load(ctx, st)
	if err == nil {
		waits = set.OllamaTimeouts()
	}
	oc := ollama.New(settings.ChooseHost("", set).Host, nil)
	oc.SetTimeouts(waits)
	m := session.NewManager(st, oc, nil, nil)
	defer m.StopMCP()
	if !o.jsonOut {
		fmt.Fprintf(stderr, "loupe: sending request %d of %s again…\n", o.at, visible.Line(c.args[0]))
	}
	res, err := m.Try(ctx, t, nil)
	if err != nil {
		fmt.Fprintf(stderr, "loupe try: %v\n", err)
		return ExitFailed
	}
	if o.jsonOut {
		b, _ := json.Marshal(res)
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		printTry(stdout, res)
	}
	if !o.adopt {
		return 0
	}
	f, err := m.Adopt(ctx, session.Adopt{Try: res})
	if err != nil {
		fmt.Fprintf(stderr, "loupe try: --adopt: %v\n", err)
		return ExitFailed
	}
	if o.jsonOut {
		b, _ := json.Marshal(f)
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	fmt.Fprintf(stdout, "\nAdopted as %s\n", f.Summary.ID)
	describeFork(stderr, f)
	return 0
}

// printTry writes a try for a person: what was sent, the text diffed, the
// calls compared, then the meters and timings side by side.
func printTry(w io.Writer, r session.TryResult) {
	alt := r.Alternative
	where := alt.Host
	if alt.HostName != "" {
		where = alt.HostName + " (" + alt.Host + ")"
	}
	fmt.Fprintf(w, "Request %d sent again to %s on %s, num_ctx %d, temperature %g\n", r.At, visible.Line(alt.Model), visible.Line(where), alt.Options.NumCtx, alt.Options.Temperature)
	if r.Exact {
		fmt.Fprintln(w, "The body sent is the recorded one, byte for byte.")
	} else {
		fmt.Fprintf(w, "The body sent differs from the recorded one: %s.\n", strings.Join(r.Changed, ", "))
	}
	if r.Recorded == nil {
		fmt.Fprintln(w, "The log holds no answer to this request; the alternative is shown alone.")
	} else {
		fmt.Fprintf(w, "Recorded answer: %s. Alternative: %s.\n", visible.Line(r.Recorded.Model), visible.Line(alt.Model))
	}
	c := r.Compare
	fmt.Fprintln(w, "\nText ('-' recorded only, '+' alternative only):")
	if c.SameText {
		fmt.Fprintln(w, "  the same")
	}
	for _, l := range c.Text {
		mark := map[string]string{trace.LineSame: " ", trace.LineRemoved: "-", trace.LineAdded: "+"}[l.Op]
		if c.SameText && l.Op == trace.LineSame {
			continue
		}
		fmt.Fprintf(w, "  %s %s\n", mark, visible.Line(l.Text))
	}
	fmt.Fprintln(w, "\nTool calls (not run):")
	if len(c.Calls) == 0 {
		fmt.Fprintln(w, "  none either side")
	}
	for _, p := range c.Calls {
		switch p.Verdict {
		case trace.CallSame:
			fmt.Fprintf(w, "  = %s %s\n", visible.Line(p.Recorded.Name), visible.Line(string(p.Recorded.Args)))
		case trace.CallOnlyRecorded:
			fmt.Fprintf(w, "  - %s %s (only recorded)\n", visible.Line(p.Recorded.Name), visible.Line(string(p.Recorded.Args)))
		case trace.CallOnlyAlternative:
			fmt.Fprintf(w, "  + %s %s (only the alternative)\n", visible.Line(p.Alternative.Name), visible.Line(string(p.Alternative.Args)))
		default:
			fmt.Fprintf(w, "  ~ %s, other arguments:\n", visible.Line(p.Recorded.Name))
			for _, a := range p.Args {
				if a.Verdict == trace.ArgSame {
					continue
				}
				fmt.Fprintf(w, "      %s: %s → %s\n", visible.Line(a.Name), argText(a.Recorded), argText(a.Alternative))
			}
		}
	}
	fmt.Fprintf(w, "\n%-22s %14s %14s\n", "", "recorded", "alternative")
	for _, f := range c.Figures {
		fmt.Fprintf(w, "%-22s %14s %14s\n", f.Label, figure(f.Unit, f.Recorded), figure(f.Unit, f.Alternative))
	}
	if alt.Incomplete {
		fmt.Fprintf(w, "\nThe alternative did not end normally (done_reason %q).\n", alt.DoneReason)
	}
}

func argText(raw json.RawMessage) string {
	if raw == nil {
		return "(none)"
	}
	return visible.Line(string(raw))
}

func figure(unit string, v *float64) string {
	if v == nil {
		return "—"
	}
	switch unit {
	case trace.UnitNs:
		return time.Duration(*v).Round(time.Millisecond).String()
	case trace.UnitShare:
		return fmt.Sprintf("%.0f %%", *v*100)
	case trace.UnitPerSecond:
		return fmt.Sprintf("%.1f tok/s", *v)
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}
