package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/otlp"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
)

// exportCommand is `loupe export SESSION [--format json|md|html|otlp]
// [--out FILE]`: the session written out, read from the database without
// changing it. With --otlp-endpoint it pushes the session's traces to a
// collector instead.
var exportCommand = &command{
	name:     "export",
	synopsis: "export SESSION [--format json|md|html|otlp] [--no-content] [--out FILE | --otlp-endpoint URL [--otlp-protocol PROTO]] [--db FILE]",
	short:    "write a stored session out, or send its traces to an OTLP collector",
	about: `Writes a stored session out, as JSON (every event of its log), Markdown, HTML
(one file that replays the session in any browser, from disk, with no network)
or OTLP (JSON Lines: one OpenTelemetry trace per run, spans named after the
GenAI semantic conventions), to standard output or to --out FILE. With
--otlp-endpoint it sends the traces to an OTLP/HTTP collector (Jaeger, Tempo,
an OpenTelemetry Collector) instead. It only reads the database.`,
	notes: `Re-exporting a session gives the same trace and span ids, so a collector
keeps one copy of each run.

Exit codes: 0 written or sent; 2 bad command line or format; 3 could not open
the database, no such session, the file could not be written, or the
collector is down or refused the traces.`,
	minArgs:   1,
	maxArgs:   1,
	wrongArgs: "name exactly one session id",
	flags: func(fs *flag.FlagSet) func(*call) int {
		var o exportOpts
		fs.StringVar(&o.format, "format", "json", "write it as `json|md|html|otlp`")
		fs.StringVar(&o.db, "db", "", "the database `FILE` (default $LOUPE_DB or the user data dir)")
		fs.StringVar(&o.outFile, "out", "", "write to this `FILE` instead of standard output")
		fs.BoolVar(&o.noContent, "no-content", false, "otlp: leave out messages, prompts, tool arguments and results")
		fs.StringVar(&o.endpoint, "otlp-endpoint", "", "send the traces to this OTLP/HTTP collector `URL` (such as http://localhost:4318) instead of writing them")
		fs.StringVar(&o.protocol, "otlp-protocol", otlp.ProtoBuf, "with --otlp-endpoint, send them as `"+otlp.ProtoBuf+"|"+otlp.JSON+"`")
		return func(c *call) int { return export(c, o) }
	},
}

// exportOpts are loupe export's flags.
type exportOpts struct {
	format, db, outFile string
	noContent           bool
	endpoint, protocol  string
}

// export carries loupe export out.
func export(c *call, o exportOpts) int {
	stdout, stderr := c.stdout, c.stderr
	if o.endpoint != "" {
		if c.given("format") && o.format != "otlp" {
			return c.usage("--otlp-endpoint sends traces: it takes --format otlp, not %s", o.format)
		}
		if c.given("out") {
			return c.usage("--otlp-endpoint sends the traces to the collector: it takes no --out")
		}
		o.format = "otlp"
		if _, err := otlp.Endpoint(o.endpoint); err != nil {
			return c.usage("--otlp-endpoint: %v", err)
		}
		if o.protocol != otlp.ProtoBuf && o.protocol != otlp.JSON {
			return c.usage("--otlp-protocol takes %s or %s, not %q", otlp.ProtoBuf, otlp.JSON, o.protocol)
		}
	} else if c.given("otlp-protocol") {
		return c.usage("--otlp-protocol is how --otlp-endpoint sends: give --otlp-endpoint too")
	}
	if o.noContent && o.format != "otlp" {
		return c.usage("--no-content is for --format otlp")
	}
	// Only reads: a missing file is refused, not created, and one of an
	// older schema is read as this build would migrate it, and left as it
	// is (see store.OpenReadOnly).
	st, ok := openStore(store.OpenReadOnly, o.db, stderr)
	if !ok {
		return ExitFailed
	}
	defer st.Close()
	opt := otlp.Options{NoContent: o.noContent}
	if o.endpoint != "" {
		return push(c, st, opt, o.endpoint, o.protocol)
	}
	// The export is made first, so that a missing session or a bad
	// format leaves no file behind.
	var out bytes.Buffer
	var err error
	if o.format == "otlp" {
		err = session.ExportOTLP(context.Background(), st, c.args[0], opt, &out)
	} else {
		err = session.Export(context.Background(), st, c.args[0], o.format, &out)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		if errors.Is(err, store.ErrNotFound) {
			return ExitFailed
		}
		return ExitUsage
	}
	if o.outFile == "" {
		_, err := stdout.Write(out.Bytes())
		if err != nil {
			fmt.Fprintf(stderr, "loupe: %v\n", err)
			return ExitFailed
		}
		return 0
	}
	if err := os.WriteFile(o.outFile, out.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		return ExitFailed
	}
	return 0
}

// push sends a session's traces to a collector and says what it sent.
func push(c *call, st *store.Store, opt otlp.Options, endpoint, protocol string) int {
	id := c.args[0]
	n, err := session.PushOTLP(context.Background(), st, id, opt, endpoint, protocol, ollama.NewDials().HTTPClient())
	if err != nil {
		fmt.Fprintf(c.stderr, "loupe: %v\n", err)
		return ExitFailed
	}
	target, _ := otlp.Endpoint(endpoint)
	fmt.Fprintf(c.stderr, "loupe: sent %d spans of session %s to %s\n", n, id, otlp.Shown(target))
	return 0
}
