package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/backend/interop"

	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
)

// importCommand is `loupe import FILE [--from FORMAT] [--as-new | --skip]`:
// a session exported as JSON (loupe export --format json) stored again, or
// another agent's session (Claude Code, Codex CLI, ATIF) converted into a
// read-only one, whole or not at all. The file is streamed, never read
// whole.
var importCommand = &command{
	name:     "import",
	synopsis: "import FILE [--from FORMAT] [--as-new | --skip] [--workspace DIR] [--db FILE]",
	short:    "store a session exported as JSON, or another agent's session, whole or not at all",
	about: `Stores a session written by loupe export --format json again: every event, the
edits, the snapshots' metadata and the fork links, in one transaction. A file
that is cut short, not an export, of a newer format or inconsistent is
refused with what is wrong and where, and the database is left as it was.
When the database has the session already, nothing is imported unless
--as-new or --skip says what to do.

It also imports the sessions of other agents, as read-only sessions marked
with where they come from: a Claude Code session file
(~/.claude/projects/<project>/<session-id>.jsonl), a Codex CLI rollout
(~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) or an ATIF trajectory (v1.4).
The format is told from the file, or named with --from. What Loupe does not
map is kept as a notice with its raw JSON. loupe fork goes on from one with
a local model.`,
	notes:     "Exit codes: 0 imported (or skipped with --skip); 2 bad command line; 3 the file\ncould not be read or was refused, the session is there already, or the\ndatabase could not be opened.",
	minArgs:   1,
	maxArgs:   1,
	wrongArgs: "name exactly one file (a session exported with loupe export --format json)",
	flags: func(fs *flag.FlagSet) func(*call) int {
		db := fs.String("db", "", "the database `FILE` (default $LOUPE_DB or the user data dir)")
		asNew := fs.Bool("as-new", false, "when the database has this session already, keep both: store the file's under a new id")
		skip := fs.Bool("skip", false, "when the database has this session already, import nothing")
		from := fs.String("from", "", "the file's `FORMAT`: claude-code, codex, atif or loupe (default: told from the file)")
		ws := fs.String("workspace", "", "the folder of a session whose file names none (an ATIF trajectory; default the current folder)")
		return func(c *call) int { return importFile(c, *db, *from, *ws, *asNew, *skip) }
	},
}

// importFile carries loupe import out.
func importFile(c *call, db, from, ws string, asNew, skip bool) int {
	stdout, stderr := c.stdout, c.stderr
	if asNew && skip {
		return c.usage("give --as-new or --skip, not both")
	}
	if from != "" && !slices.Contains(interop.Formats, from) {
		return c.usage("--from is one of %s, not %q", strings.Join(interop.Formats, ", "), from)
	}
	if ws == "" {
		ws, _ = os.Getwd()
	} else if abs, err := filepath.Abs(ws); err == nil {
		ws = abs
	}
	how := session.ImportKeepID
	switch {
	case asNew:
		how = session.ImportAsNew
	case skip:
		how = session.ImportSkip
	}
	file := c.args[0]
	f, err := os.Open(file)
	if err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		return ExitFailed
	}
	defer f.Close()
	st, ok := openStore(store.Open, db, stderr)
	if !ok {
		return ExitFailed
	}
	defer st.Close()
	res, err := session.ImportFrom(context.Background(), st, f, from, how, session.ImportOptions{Workspace: ws})
	var clash *session.ClashError
	if errors.As(err, &clash) {
		fmt.Fprintf(stderr, "loupe: %s: session %s (%q) is in this database already: nothing was imported; pass --as-new to keep both (the file's under a new id), or --skip to leave it\n", file, clash.ID, clash.Title)
		return ExitFailed
	}
	if err != nil {
		fmt.Fprintf(stderr, "loupe: %s: %v\n", file, err)
		return ExitFailed
	}
	if res.Skipped {
		fmt.Fprintf(stdout, "skipped: session %s (%q) is in this database already\n", res.Session.ID, res.Session.Title)
		return 0
	}
	if src := res.Session.Source; src != "" {
		fmt.Fprintf(stdout, "imported session %s (%q) from %s: %d events, read-only (loupe fork %s --at %d --model MODEL goes on from it)\n", res.Session.ID, res.Session.Title, interop.SourceName(src), res.Events, res.Session.ID, res.Events)
		return 0
	}
	fmt.Fprintf(stdout, "imported session %s (%q): %d events\n", res.Session.ID, res.Session.Title, res.Events)
	for _, n := range res.Notices {
		fmt.Fprintf(stderr, "loupe: %s: %s\n", file, n.Message)
	}
	return 0
}
