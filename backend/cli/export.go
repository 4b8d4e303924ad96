package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/loupe-dev/loupe/backend/otlp"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
)

// exportCmd is `loupe export SESSION [--format json|md|html|otlp] [--out FILE]`:
// the session written out, read from the database without changing it.
// With --otlp-endpoint it pushes the session's traces to a collector.
func exportCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "json", "json, md, html or otlp (OTLP JSON Lines, a trace per run)")
	db := fs.String("db", "", "database file (default $LOUPE_DB or the user data dir)")
	outFile := fs.String("out", "", "write to this file instead of standard output")
	noContent := fs.Bool("no-content", false, "otlp: leave out messages, prompts, arguments and results")
	endpoint := fs.String("otlp-endpoint", "", "push the traces to this OTLP/HTTP collector (such as http://localhost:4318) instead of writing them")
	protocol := fs.String("otlp-protocol", otlp.ProtoBuf, "with --otlp-endpoint: "+otlp.ProtoBuf+" or "+otlp.JSON)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "loupe export: name exactly one session id")
		return ExitUsage
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *endpoint != "" {
		if set["format"] && *format != "otlp" {
			fmt.Fprintf(stderr, "loupe export: --otlp-endpoint pushes traces: it takes --format otlp, not %s\n", *format)
			return ExitUsage
		}
		*format = "otlp"
		if _, err := otlp.Endpoint(*endpoint); err != nil {
			fmt.Fprintf(stderr, "loupe export: %v\n", err)
			return ExitUsage
		}
	}
	if *noContent && *format != "otlp" {
		fmt.Fprintln(stderr, "loupe export: --no-content is for --format otlp")
		return ExitUsage
	}
	// Only reads: a missing file is refused, not created, and one of an
	// older schema is read as this build would migrate it, and left as it
	// is (see store.OpenReadOnly).
	st, ok := openStore(store.OpenReadOnly, *db, stderr)
	if !ok {
		return ExitFailed
	}
	defer st.Close()
	// The export is made first, so that a missing session or a bad
	// format leaves no file behind.
	if *endpoint != "" {
		return pushCmd(st, pos[0], otlp.Options{NoContent: *noContent}, *endpoint, *protocol, stderr)
	}
	var out bytes.Buffer
	if *format == "otlp" {
		err = session.ExportOTLP(context.Background(), st, pos[0], otlp.Options{NoContent: *noContent}, &out)
	} else {
		err = session.Export(context.Background(), st, pos[0], *format, &out)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		if errors.Is(err, store.ErrNotFound) {
			return ExitFailed
		}
		return ExitUsage
	}
	if *outFile == "" {
		_, err := stdout.Write(out.Bytes())
		if err != nil {
			fmt.Fprintf(stderr, "loupe: %v\n", err)
			return ExitFailed
		}
		return 0
	}
	if err := os.WriteFile(*outFile, out.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		return ExitFailed
	}
	return 0
}

// pushCmd sends a session's traces to a collector and says what it sent.
func pushCmd(st *store.Store, id string, opt otlp.Options, endpoint, protocol string, stderr io.Writer) int {
	n, err := session.PushOTLP(context.Background(), st, id, opt, endpoint, protocol, nil)
	if err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		var pe *otlp.PushError
		if errors.Is(err, store.ErrNotFound) || errors.As(err, &pe) {
			return ExitFailed
		}
		return ExitUsage
	}
	target, _ := otlp.Endpoint(endpoint)
	fmt.Fprintf(stderr, "loupe: sent %d spans of session %s to %s\n", n, id, target)
	return 0
}
