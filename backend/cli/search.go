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
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/visible"
)

// searchNotes follow the flags in loupe search --help.
const searchNotes = `
QUERY is matched as typed, as a substring, ignoring case: parse_args( or .env
or "ENOENT" (quotes included) find exactly that. It needs at least 3
characters. Searched: messages, answers and thinking, tool calls and their
arguments, whole tool outputs, paths changed, notices, permission reasons and
commands, errors, and why each run ended.

The hits are grouped by session. When the query matches at most 100 events
they are the best by relevance, otherwise the newest.

A database written by an older Loupe is indexed once, the first time it is
searched (or in the background while the window is open); loupe search waits
for that, saying how far it is.

Exit codes: 0 something was found; 1 nothing was; 2 bad command line or
query; 3 could not open the database (or there is none at --db).
`

// searchCommand is `loupe search QUERY`: the hits of a query in every
// session's log, grouped by session.
var searchCommand = &command{
	name:      "search",
	synopsis:  "search QUERY [--json] [--model NAME] [--workspace DIR] [--outcome REASON] [--since DATE] [--until DATE] [--limit N] [--db FILE]",
	short:     "find text in every session's log",
	about:     "Finds text in every session's log and prints the hits, grouped by session.",
	notes:     searchNotes,
	minArgs:   1,
	maxArgs:   1,
	wrongArgs: "give one query (quote it when it has spaces: loupe search \"no such file\")",
	flags: func(fs *flag.FlagSet) func(*call) int {
		o := &searchOptions{}
		fs.BoolVar(&o.jsonOut, "json", false, "print the results as one JSON object")
		fs.StringVar(&o.model, "model", "", "only sessions on this model `NAME`")
		fs.StringVar(&o.workspace, "workspace", "", "only sessions in this folder `DIR`")
		fs.StringVar(&o.outcome, "outcome", "", "only sessions whose last run ended for this `REASON` (answered, error, cancelled…)")
		fs.StringVar(&o.since, "since", "", "only events from this `DATE` (2006-01-02) or time (RFC 3339) on")
		fs.StringVar(&o.until, "until", "", "only events before this `DATE` or time")
		fs.IntVar(&o.limit, "limit", 50, "at most `N` hits")
		fs.StringVar(&o.db, "db", "", "the database `FILE` (default $LOUPE_DB or the user data dir)")
		return o.run
	},
}

// searchOptions are loupe search's flags.
type searchOptions struct {
	jsonOut                                     bool
	model, workspace, outcome, since, until, db string
	limit                                       int
}

// run carries loupe search out. c.term is the terminal itself, unescaped:
// on one, the matches are shown in bold, the only control sequence search
// writes; every text from the log goes through visible.Line first.
func (o *searchOptions) run(c *call) int {
	term, stdout, stderr := c.term, c.stdout, c.stderr
	f := store.SearchFilter{Model: o.model, Outcome: o.outcome}
	if o.workspace != "" {
		abs, err := filepath.Abs(o.workspace)
		if err != nil {
			return c.usage("--workspace: %v", err)
		}
		f.Workspace = abs
	}
	for _, d := range []struct {
		flag, val string
		dst       *time.Time
	}{{"since", o.since, &f.From}, {"until", o.until, &f.To}} {
		if d.val == "" {
			continue
		}
		t, err := parseWhen(d.val)
		if err != nil {
			return c.usage("--%s %q: write a day as 2026-03-01 or a time as 2026-03-01T15:04:05Z", d.flag, d.val)
		}
		*d.dst = t
	}
	// A bad query is told before the database is opened (or migrated).
	if _, err := store.CheckQuery(c.args[0]); err != nil {
		return c.usage("%v", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// Read-write: the events an older Loupe wrote are indexed here once,
	// and stay indexed for the next search and the window. A file that is
	// not there is not created: there is nothing to search.
	st, ok := openStore(func(path string) (*store.Store, error) {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, &store.OpenError{Path: path, Err: store.ErrNoDatabase}
		}
		return store.Open(path)
	}, o.db, stderr)
	if !ok {
		return ExitFailed
	}
	defer st.Close()
	if err := indexFirst(ctx, st, stderr); err != nil {
		fmt.Fprintf(stderr, "loupe search: %v\n", err)
		return ExitFailed
	}
	res, err := st.Search(ctx, c.args[0], f, o.limit)
	if errors.Is(err, store.ErrQuery) {
		return c.usage("%v", err)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loupe search: %v\n", err)
		return ExitFailed
	}
	if o.jsonOut {
		b, _ := json.Marshal(res)
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		if isTerminal(term) {
			printResults(term, res, true)
		} else {
			printResults(stdout, res, false)
		}
	}
	if len(res.Sessions) == 0 {
		return ExitEnded
	}
	return 0
}

// parseWhen reads a day (midnight, local time) or an RFC 3339 time.
func parseWhen(s string) (time.Time, error) {
	if t, err := time.ParseInLocation(time.DateOnly, s, time.Local); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339, s)
}

// indexFirst indexes what an older Loupe left unindexed, saying so when
// there is any.
func indexFirst(ctx context.Context, st *store.Store, stderr io.Writer) error {
	status, err := st.SearchStatus(ctx)
	if err != nil || !status.Partial() {
		return err
	}
	fmt.Fprintf(stderr, "loupe: indexing %d older events for search (once)…\n", status.Total-status.Indexed)
	last := time.Now()
	return st.IndexBacklog(ctx, func(s store.SearchStatus) {
		if time.Since(last) > 2*time.Second {
			last = time.Now()
			fmt.Fprintf(stderr, "loupe: %d of %d events indexed\n", s.Indexed, s.Total)
		}
	})
}

// printResults writes the hits for a person: a line per session, then a
// line per hit with its place in the log and its snippet, the match in
// bold on a terminal.
func printResults(w io.Writer, res store.SearchResults, tty bool) {
	n := 0
	for _, sh := range res.Sessions {
		n += len(sh.Hits)
	}
	if n == 0 {
		fmt.Fprintf(w, "nothing found for %s\n", visible.Line(strconv.Quote(res.Query)))
		return
	}
	how := "best first"
	if res.Order == store.OrderNewest {
		how = "newest first"
	}
	more := ""
	if res.More {
		more = " (more not shown: narrow the search or raise --limit)"
	}
	fmt.Fprintf(w, "%s in %s for %s, %s%s\n", plural(n, "hit"), plural(len(res.Sessions), "session"), visible.Line(strconv.Quote(res.Query)), how, more)
	if res.Partial {
		fmt.Fprintf(w, "partial: %d of %d events indexed so far\n", res.Status.Indexed, res.Status.Total)
	}
	for _, sh := range res.Sessions {
		fmt.Fprintf(w, "\n%s  %s\n", sh.SessionID, visible.Line(sh.Title))
		var about []string
		for _, s := range []string{sh.Model, sh.Workspace, sh.LastReason} {
			if s != "" {
				about = append(about, visible.Line(s))
			}
		}
		about = append(about, sh.UpdatedAt.Local().Format("2006-01-02 15:04"))
		fmt.Fprintf(w, "  %s\n", strings.Join(about, " · "))
		for _, h := range sh.Hits {
			var b strings.Builder
			for _, p := range h.Snippet {
				text := visible.Line(p.Text)
				if p.Match && tty {
					text = "\x1b[1m" + text + "\x1b[0m"
				}
				b.WriteString(text)
			}
			fmt.Fprintf(w, "  #%d [%d.%d] %s: %s\n", h.Seq, h.Run, h.Round, h.Kind, b.String())
		}
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
