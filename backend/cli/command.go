package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// A command is one `loupe NAME`. Its entry in commands is the one place
// its synopsis, description and flags are written: loupe help lists it
// from there, --help prints it, a usage error quotes its synopsis, and
// every command parses its command line the same way (run).
type command struct {
	name     string
	synopsis string // the command line after "loupe", on one line
	short    string // what it does, in one line, for loupe help
	about    string // what it does, in a few lines, after the synopsis in --help
	notes    string // after the flags in --help: details and exit codes
	// The positional arguments it takes: at least minArgs, at most maxArgs
	// (-1: any number). wrongArgs is the usage error for another number.
	minArgs, maxArgs int
	wrongArgs        string
	// flags declares the command's flags in fs and returns what carries
	// the command out once they are parsed.
	flags func(fs *flag.FlagSet) func(c *call) int
}

// commands are every command, in the order loupe help lists them.
var commands = []*command{runCommand, pullCommand, exportCommand, importCommand, searchCommand, tryCommand, tryHooksCommand, compareCommand, forkCommand, mcpCommand}

// lookup is the command named name, or nil.
func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// isHelp tells whether a first argument asks for loupe help.
func isHelp(arg string) bool {
	switch arg {
	case "help", "-h", "-help", "--help":
		return true
	}
	return false
}

// call is one command being carried out: its positional arguments, its
// flags, and where it writes.
type call struct {
	cmd  *command
	fs   *flag.FlagSet
	args []string
	// term is the standard output as it is, for the few writes that must
	// reach a terminal unchanged (a progress line rewritten in place,
	// matches in bold); stdout and stderr escape what they are given (see
	// Main).
	term, stdout, stderr io.Writer
}

// run parses args (flags before or after the positional arguments) and
// carries the command out. --help (or -h) prints the help on standard
// output and exits 0; a command line it cannot take is a usage error.
func (cmd *command) run(args []string, term, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	// The flag package would print its error and its own usage; the error
	// is said here, in the form every usage error has (see usage).
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	do := cmd.flags(fs)
	c := &call{cmd: cmd, fs: fs, term: term, stdout: stdout, stderr: stderr}
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		cmd.help(stdout, fs)
		return 0
	}
	if err != nil {
		return c.usage("%v", err)
	}
	if len(pos) < cmd.minArgs || cmd.maxArgs >= 0 && len(pos) > cmd.maxArgs {
		return c.usage("%s", cmd.wrongArgs)
	}
	c.args = pos
	return do(c)
}

// usage says what is wrong with the command line, on standard error, with
// the command's synopsis and where its help is, and returns ExitUsage.
func (c *call) usage(format string, a ...any) int {
	fmt.Fprintf(c.stderr, "loupe %s: %s\n", c.cmd.name, fmt.Sprintf(format, a...))
	fmt.Fprintf(c.stderr, "Usage: loupe %s\nSee loupe %s --help.\n", c.cmd.synopsis, c.cmd.name)
	return ExitUsage
}

// given tells whether the flag name was on the command line (a flag
// whose default means "not given" is told apart from one given so).
func (c *call) given(name string) bool {
	found := false
	c.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// parseInterspersed lets flags come before or after positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// help is what loupe NAME --help prints: the synopsis, what the command
// does, each flag with what it takes and does, then the notes.
func (cmd *command) help(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: loupe %s\n\n%s\n", cmd.synopsis, strings.TrimSpace(cmd.about))
	shown := false
	fs.VisitAll(func(f *flag.Flag) {
		if !shown {
			fmt.Fprint(w, "\nFlags:\n")
			shown = true
		}
		value, usage := flag.UnquoteUsage(f)
		if value != "" {
			value = " " + value
		}
		fmt.Fprintf(w, "  --%s%s\n        %s%s\n", f.Name, value, usage, defaultText(f))
	})
	if cmd.notes != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(cmd.notes))
	}
}

// defaultText is " (default …)" for a flag whose default is not its
// type's zero value, as the flag package writes it.
func defaultText(f *flag.Flag) string {
	zero := reflect.New(reflect.TypeOf(f.Value).Elem()).Interface().(flag.Value)
	if f.DefValue == zero.String() {
		return ""
	}
	if g, ok := f.Value.(flag.Getter); ok {
		if _, ok := g.Get().(string); ok {
			return fmt.Sprintf(" (default %q)", f.DefValue)
		}
	}
	return fmt.Sprintf(" (default %s)", f.DefValue)
}

// listCommands is what loupe help prints: how to open the window, then
// each command's synopsis and what it does.
func listCommands(w io.Writer) {
	fmt.Fprint(w, "Usage:\n  loupe [--db FILE] [--host NAME|URL]\n      open the window\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  loupe %s\n      %s\n", c.synopsis, c.short)
	}
	fmt.Fprint(w, `
run exits 0 only when the model answered. Without --auto, anything that would
ask for permission (writes, commands) is denied: there is no one to ask.
See loupe COMMAND --help (or loupe help COMMAND) for its flags and exit codes.
`)
}
