package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
)

// mcpNotes follow the flags in loupe mcp --help.
const mcpNotes = `
FILE (or - for standard input) holds servers in the shape other apps use:
{"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}}}}, or
{"url": "...", "headers": {...}} for a server over HTTP. A server of the same
name is replaced. Every run (loupe run, the window) starts the servers, offers
their tools as name.tool, and stops them when it ends; their calls ask unless a
rule allows them, so loupe run denies them without one (allow name.*).

loupe mcp list starts each server, lists its tools with what their schemas
cost in tokens, and stops it. Env and header values are never printed.

Exit codes: 0 done; 1 a server could not be added, removed or started; 2 bad
command line; 3 could not open the database.
`

// mcpCommand is `loupe mcp list|add FILE|remove NAME`: the global MCP
// servers.
var mcpCommand = &command{
	name:      "mcp",
	synopsis:  "mcp list|add FILE|remove NAME [--json] [--db FILE]",
	short:     "list, add or remove the MCP servers runs use",
	about:     "Lists, adds or removes the MCP servers every run starts and offers the tools of.",
	notes:     mcpNotes,
	minArgs:   1,
	maxArgs:   2,
	wrongArgs: "say list, add FILE or remove NAME",
	flags: func(fs *flag.FlagSet) func(*call) int {
		o := &mcpOptions{}
		fs.BoolVar(&o.jsonOut, "json", false, "print the list as JSON")
		fs.StringVar(&o.db, "db", "", "the database `FILE` (default $LOUPE_DB or the user data dir)")
		return o.run
	},
}

type mcpOptions struct {
	jsonOut bool
	db      string
}

func (o *mcpOptions) run(c *call) int {
	stdout, stderr := c.stdout, c.stderr
	verb := c.args[0]
	arg := ""
	if len(c.args) > 1 {
		arg = c.args[1]
	}
	if (verb == "list") != (arg == "") || (verb != "list" && verb != "add" && verb != "remove") {
		return c.usage("%s", "say list, add FILE or remove NAME")
	}
	st, ok := openStore(store.Open, o.db, stderr)
	if !ok {
		return 3
	}
	defer st.Close()
	ctx := context.Background()
	switch verb {
	case "add":
		data, err := readArg(arg)
		if err != nil {
			fmt.Fprintf(stderr, "loupe: %v\n", err)
			return 1
		}
		names, err := settings.AddMCP(ctx, st, data)
		if err != nil {
			fmt.Fprintf(stderr, "loupe: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "added %s\n", strings.Join(names, ", "))
		return 0
	case "remove":
		if err := settings.RemoveMCP(ctx, st, arg); err != nil {
			fmt.Fprintf(stderr, "loupe: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "removed %s\n", arg)
		return 0
	}
	// Ollama at the saved host counts the schemas when it holds a model
	// (else the estimate stands in, and the listing says so).
	set, _ := settings.Load(ctx, st)
	m := session.NewManager(st, ollama.New(settings.ChooseHost("", set).Host, nil), nil, nil)
	infos, err := m.MCPServers(ctx, "")
	if err != nil {
		fmt.Fprintf(stderr, "loupe: %v\n", err)
		return 1
	}
	if o.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(infos)
		return 0
	}
	if len(infos) == 0 {
		fmt.Fprintln(stdout, "no MCP server is set: loupe mcp add FILE")
		return 0
	}
	failed := false
	for _, s := range infos {
		cost := fmt.Sprintf("about %d tokens per request (estimated)", s.Tokens)
		if s.Measured {
			cost = fmt.Sprintf("%d tokens per request (measured by Ollama)", s.Tokens)
		}
		fmt.Fprintf(stdout, "%s (%s: %s): %s, %d tools, %s\n", s.Name, s.Transport, s.Describe, s.State, len(s.Tools), cost)
		if len(s.EnvKeys) > 0 {
			fmt.Fprintf(stdout, "  env: %s (values hidden)\n", strings.Join(s.EnvKeys, ", "))
		}
		if s.Error != "" {
			failed = true
			fmt.Fprintf(stdout, "  error: %s\n", s.Error)
		}
		for _, t := range s.Tools {
			if t.Offered {
				fmt.Fprintf(stdout, "  %-32s %5d tokens  %s\n", t.Name, t.Tokens, t.Summary)
			} else {
				fmt.Fprintf(stdout, "  %-32s not offered: %s\n", t.Name, t.Why)
			}
		}
	}
	if failed {
		return 1
	}
	return 0
}

func readArg(path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(path)
}
