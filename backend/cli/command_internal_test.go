package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// These tests walk the table of commands, so a command added to it is
// held to the same help and usage errors as the others without a test of
// its own; Main reaches a command only through the table.

// mainOut runs loupe with args in this process and returns its exit code
// and outputs. The default database is a file in a fresh folder, which
// the test can check was never made.
func mainOut(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// noDefaultDB points the default database at a file that must not exist
// when the test ends: a command line loupe refuses touches nothing.
func noDefaultDB(t *testing.T) {
	db := filepath.Join(t.TempDir(), "loupe.db")
	t.Setenv("LOUPE_DB", db)
	t.Cleanup(func() {
		if _, err := os.Stat(db); err == nil {
			t.Errorf("a refused command line made the database %s", db)
		}
	})
}

// flagNames are the flags cmd declares.
func flagNames(cmd *command) []string {
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	cmd.flags(fs)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

func TestTheCommandTableIsComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, cmd := range commands {
		if cmd.name == "" || seen[cmd.name] || isHelp(cmd.name) {
			t.Errorf("command %q: a name must be given, once, and not be help's", cmd.name)
		}
		seen[cmd.name] = true
		if !strings.HasPrefix(cmd.synopsis+" ", cmd.name+" ") || strings.Contains(cmd.synopsis, "\n") {
			t.Errorf("%s: the synopsis %q is one line that starts with the command's name", cmd.name, cmd.synopsis)
		}
		if cmd.short == "" || strings.Contains(cmd.short, "\n") || strings.TrimSpace(cmd.about) == "" {
			t.Errorf("%s: a one-line short description and a description are needed", cmd.name)
		}
		if (cmd.minArgs > 0 || cmd.maxArgs >= 0) && cmd.wrongArgs == "" {
			t.Errorf("%s: it counts its arguments, so it needs a message for the wrong number", cmd.name)
		}
		if len(flagNames(cmd)) == 0 {
			t.Errorf("%s declares no flags", cmd.name)
		}
		if !IsCommand([]string{cmd.name}) {
			t.Errorf("%s is not a command to Start, which would open the window", cmd.name)
		}
	}
}

// --help and -h print the command's help on standard output and exit 0,
// wherever they stand on the command line; loupe help NAME prints the
// same. The help names every flag.
func TestEveryCommandsHelpGoesToStandardOutput(t *testing.T) {
	noDefaultDB(t)
	for _, cmd := range commands {
		t.Run(cmd.name, func(t *testing.T) {
			_, want, _ := mainOut(t, cmd.name, "--help")
			for _, args := range [][]string{{cmd.name, "--help"}, {cmd.name, "-h"}, {cmd.name, "x", "--help"}, {"help", cmd.name}, {"--help", cmd.name}} {
				code, out, stderr := mainOut(t, args...)
				if code != 0 || stderr != "" {
					t.Errorf("loupe %s: exit %d, stderr %q; want 0 and nothing on standard error", strings.Join(args, " "), code, stderr)
				}
				if out != want {
					t.Errorf("loupe %s prints another help than loupe %s --help:\n%s", strings.Join(args, " "), cmd.name, out)
				}
			}
			if !strings.HasPrefix(want, "Usage: loupe "+cmd.synopsis+"\n\n"+strings.TrimSpace(cmd.about)+"\n") {
				t.Errorf("the help does not start with the synopsis and the description:\n%s", want)
			}
			for _, name := range flagNames(cmd) {
				if !strings.Contains(want, "\n  --"+name+" ") && !strings.Contains(want, "\n  --"+name+"\n") {
					t.Errorf("the help does not name --%s:\n%s", name, want)
				}
			}
		})
	}
}

// refusedFlags are command lines with the right arguments whose flags do
// not go together or take a value they do not know; each is a usage error
// like any other, said before the database is opened.
var refusedFlags = map[string][][]string{
	"export": {
		{"s1", "--no-content"},
		{"s1", "--format", "md", "--no-content"},
		{"s1", "--otlp-endpoint", "localhost:4318"},
		{"s1", "--otlp-endpoint", "ftp://localhost:4318"},
		{"s1", "--otlp-endpoint", "http://localhost:4318", "--format", "json"},
		{"s1", "--otlp-endpoint", "http://localhost:4318", "--out", "x.jsonl"},
		{"s1", "--otlp-endpoint", "http://localhost:4318", "--otlp-protocol", "grpc"},
		{"s1", "--otlp-protocol", "http/json"},
	},
}

// namesAFlagOf tells whether the first line of stderr names one of the
// flags of args.
func namesAFlagOf(stderr string, args []string) bool {
	first, _, _ := strings.Cut(stderr, "\n")
	for _, a := range args {
		if strings.HasPrefix(a, "--") && strings.Contains(first, a) {
			return true
		}
	}
	return false
}

func TestRefusedFlagsAreOfCommands(t *testing.T) {
	for name := range refusedFlags {
		if lookup(name) == nil {
			t.Errorf("refusedFlags names %q, which is no command", name)
		}
	}
}

// A command line a command cannot take (a flag it does not have, too few
// or too many arguments, flags that do not go together) is said on
// standard error with the synopsis and where the help is, exits 2, and
// does nothing.
func TestEveryCommandsUsageErrorGoesToStandardError(t *testing.T) {
	noDefaultDB(t)
	for _, cmd := range commands {
		t.Run(cmd.name, func(t *testing.T) {
			cases := [][]string{{"--no-such-flag"}, {}}
			if cmd.maxArgs >= 0 {
				cases = append(cases, strings.Fields(strings.Repeat("x ", cmd.maxArgs+1)))
			}
			refused := len(cases)
			cases = append(cases, refusedFlags[cmd.name]...)
			for i, rest := range cases {
				args := append([]string{cmd.name}, rest...)
				code, out, stderr := mainOut(t, args...)
				if code != ExitUsage || out != "" {
					t.Errorf("loupe %s: exit %d, stdout %q; want %d and nothing on standard output", strings.Join(args, " "), code, out, ExitUsage)
				}
				tail := "\nUsage: loupe " + cmd.synopsis + "\nSee loupe " + cmd.name + " --help.\n"
				if !strings.HasPrefix(stderr, "loupe "+cmd.name+": ") || !strings.HasSuffix(stderr, tail) || strings.Count(stderr, "\n") != 3 {
					t.Errorf("loupe %s: standard error is not what is wrong, the synopsis and where the help is:\n%s", strings.Join(args, " "), stderr)
				}
				switch {
				case i == 0 && !strings.Contains(stderr, "-no-such-flag"):
					t.Errorf("loupe %s does not name the flag it does not know:\n%s", strings.Join(args, " "), stderr)
				case i >= refused && !namesAFlagOf(stderr, rest):
					t.Errorf("loupe %s does not name the flag it refuses:\n%s", strings.Join(args, " "), stderr)
				case i > 0 && i < refused && cmd.wrongArgs != "" && !strings.Contains(stderr, cmd.wrongArgs):
					t.Errorf("loupe %s does not say what arguments it takes:\n%s", strings.Join(args, " "), stderr)
				}
			}
		})
	}
}

// loupe help (and --help, -h) lists every command with its synopsis and
// what it does, on standard output; loupe alone, or with a word it does
// not know, lists them on standard error and exits 2.
func TestHelpListsEveryCommand(t *testing.T) {
	noDefaultDB(t)
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}, {"-help"}} {
		code, out, stderr := mainOut(t, args...)
		if code != 0 || stderr != "" {
			t.Errorf("loupe %s: exit %d, stderr %q", args[0], code, stderr)
		}
		for _, cmd := range commands {
			if !strings.Contains(out, "\n  loupe "+cmd.synopsis+"\n      "+cmd.short+"\n") {
				t.Errorf("loupe %s does not list %s with its synopsis and description:\n%s", args[0], cmd.name, out)
			}
		}
	}
	_, list, _ := mainOut(t, "help")
	for _, args := range [][]string{{}, {"frobnicate"}, {"help", "frobnicate"}} {
		code, out, stderr := mainOut(t, args...)
		if code != ExitUsage || out != "" || !strings.HasSuffix(stderr, list) {
			t.Errorf("loupe %v: exit %d, stdout %q, stderr:\n%s", args, code, out, stderr)
		}
	}
}
