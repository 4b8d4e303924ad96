package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
)

// exportCommand is `loupe export SESSION [--format json|md|html] [--out
// FILE]`: the session written out, read from the database without
// changing it.
var exportCommand = &command{
	name:      "export",
	synopsis:  "export SESSION [--format json|md|html] [--out FILE] [--db FILE]",
	short:     "write a stored session out",
	about:     "Writes a stored session out, as JSON (every event of its log), Markdown or HTML (one\nfile that replays the session in any browser, from disk, with no network), to standard\noutput or to --out FILE. It only reads the database.",
	notes:     "Exit codes: 0 written; 2 bad command line or format; 3 could not open the\ndatabase, no such session, or the file could not be written.",
	minArgs:   1,
	maxArgs:   1,
	wrongArgs: "name exactly one session id",
	flags: func(fs *flag.FlagSet) func(*call) int {
		format := fs.String("format", "json", "write it as `json|md|html`")
		db := fs.String("db", "", "the database `FILE` (default $LOUPE_DB or the user data dir)")
		outFile := fs.String("out", "", "write to this `FILE` instead of standard output")
		return func(c *call) int { return export(c, *format, *db, *outFile) }
	},
}

// export carries loupe export out.
func export(c *call, format, db, outFile string) int {
	stdout, stderr := c.stdout, c.stderr
	// Only reads: a missing file is refused, not created, and one of an
	// older schema is read as this build would migrate it, and left as it
	// is (see store.OpenReadOnly).
	st, ok := openStore(store.OpenReadOnly, db, stderr)
	if !ok {
		return ExitFailed
	}
	defer st.Close()
	// The export is made first, so that a missing session or a bad
	// format leaves no file behind.
	var out bytes.Buffer
	if err := session.Export(context.Background(), st, c.args[0], format, &out); err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		if errors.Is(err, store.ErrNotFound) {
			return ExitFailed
		}
		return ExitUsage
	}
	if outFile == "" {
		_, err := stdout.Write(out.Bytes())
		if err != nil {
			fmt.Fprintf(stderr, "loupe: %v\n", err)
			return ExitFailed
		}
		return 0
	}
	if err := os.WriteFile(outFile, out.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		return ExitFailed
	}
	return 0
}
