package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/visible"
)

// pullCommand is `loupe pull NAME`: it pulls a model into Ollama with the
// progress the window shows, on one line that updates on a terminal and
// as plain lines otherwise. Ctrl-C cancels the pull; nothing of the model
// is installed then.
var pullCommand = &command{
	name:      "pull",
	synopsis:  "pull NAME [--host URL] [--db FILE]",
	short:     "pull a model into Ollama, showing its progress",
	about:     "Pulls a model into Ollama (e.g. qwen3 or qwen3:8b; see https://ollama.com/library),\nshowing its progress. Ctrl-C cancels it.",
	notes:     "Exit codes: 0 the model is installed; 1 the pull failed (no network, no such\nmodel); 2 bad command line; 3 Ollama could not be reached; 130 cancelled.",
	minArgs:   1,
	maxArgs:   1,
	wrongArgs: "name one model to pull, e.g. loupe pull qwen3 (see https://ollama.com/library)",
	flags: func(fs *flag.FlagSet) func(*call) int {
		host := fs.String("host", "", "Ollama `URL` (default: Settings' Ollama host, else $OLLAMA_HOST, else "+ollama.DefaultHost+")")
		db := fs.String("db", "", "the database `FILE` whose Settings name the Ollama host (default $LOUPE_DB or the user data dir)")
		return func(c *call) int { return pull(c, *host, *db) }
	},
}

// pull carries loupe pull out. The progress line on a terminal is written
// to c.term, to be rewritten in place.
func pull(c *call, host, db string) int {
	term, stdout, stderr := c.term, c.stdout, c.stderr
	name := strings.TrimSpace(c.args[0])
	if name == "" {
		return c.usage("%s", c.cmd.wrongArgs)
	}
	oc := ollama.New(settings.ChooseHost(host, savedSettings(db)).Host, nil)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	bar := &pullBar{w: stdout, term: term, tty: isTerminal(term)}
	err := oc.Pull(ctx, name, bar.show)
	bar.end()
	switch {
	case err == nil:
		fmt.Fprintf(stdout, "%s is installed\n", name)
		return 0
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "loupe pull: cancelled; %s is not installed\n", name)
		return ExitSignal(os.Interrupt)
	}
	fmt.Fprintf(stderr, "loupe pull: %v\n", err)
	var ue *ollama.UnreachableError
	if errors.As(err, &ue) {
		return ExitFailed
	}
	return ExitEnded
}

// savedSettings are the settings of the database db names, if it exists;
// else the defaults. A pull only reads its Ollama host, and never creates
// a database for it.
func savedSettings(db string) settings.Settings {
	path := store.ResolvePath(db)
	if _, err := os.Stat(path); err != nil {
		return settings.Defaults()
	}
	st, err := store.Open(path)
	if err != nil {
		return settings.Defaults()
	}
	defer st.Close()
	s, err := settings.Load(context.Background(), st)
	if err != nil {
		return settings.Defaults()
	}
	return s
}

// isTerminal reports whether w is a terminal, where one line can be
// rewritten in place.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// pullBar prints a pull's progress: on a terminal one line rewritten in
// place, otherwise a line for each step and for each tenth of the bytes,
// so that a log holds a few lines, not thousands.
type pullBar struct {
	w     io.Writer // escapes what it is given
	term  io.Writer // the terminal itself, when tty
	tty   bool
	width int // of the line on screen, to blank its tail
	step  string
	tenth int
}

// step names a pull's step without the layer's digest: every layer is
// "pulling" in one bar.
func stepOf(p ollama.PullProgress) string {
	if strings.HasPrefix(p.Status, "pulling ") && p.Status != "pulling manifest" {
		return "pulling"
	}
	return p.Status
}

func (b *pullBar) show(p ollama.PullProgress) {
	if b.tty {
		// Written to the terminal itself, for its carriage return: the
		// line (the model's name and Ollama's words) is escaped here.
		line := visible.Line(pullLine(p))
		pad := max(0, b.width-len(line))
		fmt.Fprintf(b.term, "\r%s%s", line, strings.Repeat(" ", pad))
		b.width = len(line)
		return
	}
	step, tenth := stepOf(p), p.Percent/10
	if step == b.step && (step != "pulling" || tenth == b.tenth) {
		return
	}
	b.step, b.tenth = step, tenth
	fmt.Fprintln(b.w, visible.Line(pullLine(p)))
}

// end finishes the line being rewritten.
func (b *pullBar) end() {
	if b.tty && b.width > 0 {
		fmt.Fprintln(b.term)
	}
}

// pullLine is one progress line: "qwen3: pulling 1.2 GB of 4.9 GB (24%)".
func pullLine(p ollama.PullProgress) string {
	step := stepOf(p)
	if p.Total == 0 || step != "pulling" {
		return fmt.Sprintf("%s: %s", p.Model, step)
	}
	return fmt.Sprintf("%s: %s %s of %s (%d%%)", p.Model, step, bytesText(p.Completed), bytesText(p.Total), p.Percent)
}

// bytesText writes a size as the window does (lib/timeline formatBytes):
// binary units with one decimal, so both say the same of a pull.
func bytesText(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%d B", n)
	case n < k*k:
		return fmt.Sprintf("%.1f KB", float64(n)/k)
	case n < k*k*k:
		return fmt.Sprintf("%.1f MB", float64(n)/(k*k))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(k*k*k))
}
