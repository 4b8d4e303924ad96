package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/loupe-dev/loupe/backend/hooks"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/visible"
)

const tryHooksNotes = `
FILE holds hooks as Settings and .loupe/settings.json write them: a JSON list
of {"name", "event", "matcher", "command", "timeout_s", "on_failure"}, or an
object with such a list under "hooks". Without --file, the hooks of Settings
are tried.

Each before_tool hook runs on every recorded call's arguments, each after_tool
hook on its recorded result and each after_edit hook on the files it changed,
in the session's workspace, in the sandbox, with the whole workspace
read-only. The session is not changed.

Exit codes: 0 tried; 2 bad command line or hooks; 3 could not open the
database, no such session, or the sandbox is not available.
`

// tryHooksCommand is `loupe try-hooks SESSION`: what hooks would have
// decided at each call of a stored session.
var tryHooksCommand = &command{
	name:      "try-hooks",
	synopsis:  "try-hooks SESSION [--file FILE] [--json] [--db FILE]",
	short:     "what hooks would have decided at each call of a stored session",
	about:     "Runs hooks against every recorded call of a session, read-only, and says what each would have decided, before you switch them on.",
	notes:     tryHooksNotes,
	minArgs:   1,
	maxArgs:   1,
	wrongArgs: "name one session id (loupe search or the window's session list shows them)",
	flags: func(fs *flag.FlagSet) func(*call) int {
		file := fs.String("file", "", "the hooks to try, as JSON (default: the hooks of Settings)")
		jsonOut := fs.Bool("json", false, "print what each call got as one JSON list")
		db := fs.String("db", "", "the database `FILE` (default $LOUPE_DB or the user data dir)")
		return func(c *call) int { return tryHooks(c, *file, *jsonOut, *db) }
	},
}

// readHooks reads a hooks file: a list, or an object with one under "hooks".
func readHooks(path string) ([]hooks.Hook, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var hs []hooks.Hook
	if strings.HasPrefix(strings.TrimSpace(string(b)), "{") {
		var wrap struct {
			Hooks []hooks.Hook `json:"hooks"`
		}
		err = json.Unmarshal(b, &wrap)
		hs = wrap.Hooks
	} else {
		err = json.Unmarshal(b, &hs)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return hs, nil
}

func tryHooks(c *call, file string, jsonOut bool, db string) int {
	st, ok := openStore(store.Open, db, c.stderr)
	if !ok {
		return ExitFailed
	}
	defer st.Close()
	ctx := context.Background()
	set, err := settings.Load(ctx, st)
	if err != nil {
		fmt.Fprintf(c.stderr, "loupe try-hooks: %v\n", err)
		return ExitFailed
	}
	hs := set.Hooks
	if file != "" {
		if hs, err = readHooks(file); err != nil {
			return c.usage("%v", err)
		}
	}
	if len(hs) == 0 {
		return c.usage("no hooks to try: give --file, or add hooks in Settings")
	}
	if err := hooks.Validate("this try", hs); err != nil {
		return c.usage("%v", err)
	}
	m := session.NewManager(st, ollama.New(settings.ChooseHost("", set).Host, nil), nil, nil)
	tried, err := m.TryHooks(ctx, c.args[0], hs)
	if err != nil {
		fmt.Fprintf(c.stderr, "loupe try-hooks: %v\n", err)
		return ExitFailed
	}
	if jsonOut {
		b, _ := json.Marshal(tried)
		fmt.Fprintf(c.stdout, "%s\n", visible.Text(string(b)))
		return 0
	}
	if len(tried) == 0 {
		fmt.Fprintln(c.stdout, "The session has no tool calls to try the hooks on.")
	}
	for _, t := range tried {
		d := t.Decision
		if d == "" {
			d = "no decision (goes on to the permission rules)"
		}
		fmt.Fprintf(c.stdout, "run %d round %d  %s %s: %s\n", t.Run, t.Round, visible.Line(t.Tool), t.CallID, d)
		for _, r := range t.Runs {
			line := fmt.Sprintf("  hook %s (%s): %s, exit %d", r.Hook, r.Event, r.Outcome, r.ExitCode)
			if r.TimedOut {
				line += ", timed out"
			}
			if r.Reason != "" {
				line += ": " + r.Reason
			}
			fmt.Fprintln(c.stdout, visible.Line(line))
		}
	}
	return 0
}
