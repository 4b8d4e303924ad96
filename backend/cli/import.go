package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
)

// importCmd is `loupe import FILE [--as-new | --skip] [--db FILE]`: a
// session exported as JSON (loupe export --format json) stored again,
// whole or not at all. The file is streamed, never read whole.
func importCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "", "database file (default $LOUPE_DB or the user data dir)")
	asNew := fs.Bool("as-new", false, "when the database has this session already, keep both: store the file's under a new id")
	skip := fs.Bool("skip", false, "when the database has this session already, import nothing")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "loupe import: name exactly one file (a session exported with loupe export --format json)")
		return ExitUsage
	}
	if *asNew && *skip {
		fmt.Fprintln(stderr, "loupe import: give --as-new or --skip, not both")
		return ExitUsage
	}
	how := session.ImportKeepID
	switch {
	case *asNew:
		how = session.ImportAsNew
	case *skip:
		how = session.ImportSkip
	}
	f, err := os.Open(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		return ExitFailed
	}
	defer f.Close()
	st, ok := openStore(store.Open, *db, stderr)
	if !ok {
		return ExitFailed
	}
	defer st.Close()
	res, err := session.Import(context.Background(), st, f, how)
	var clash *session.ClashError
	if errors.As(err, &clash) {
		fmt.Fprintf(stderr, "loupe: %s: session %s (%q) is in this database already: nothing was imported; pass --as-new to keep both (the file's under a new id), or --skip to leave it\n", pos[0], clash.ID, clash.Title)
		return ExitFailed
	}
	if err != nil {
		fmt.Fprintf(stderr, "loupe: %s: %v\n", pos[0], err)
		return ExitFailed
	}
	if res.Skipped {
		fmt.Fprintf(stdout, "skipped: session %s (%q) is in this database already\n", res.Session.ID, res.Session.Title)
		return 0
	}
	fmt.Fprintf(stdout, "imported session %s (%q): %d events\n", res.Session.ID, res.Session.Title, res.Events)
	return 0
}
