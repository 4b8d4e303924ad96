package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
)

// exportCmd is `loupe export SESSION [--format json|md|html] [--out FILE]`:
// the session written out, read from the database without changing it.
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
	var out bytes.Buffer
	if err := session.Export(context.Background(), st, pos[0], *format, &out); err != nil {
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
