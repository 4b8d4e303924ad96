package sandbox

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/loupe-dev/loupe/backend/hands"
)

// A rebase, cherry-pick or revert that stops half-way keeps what is left
// to do in the git directory (git's sequencer.c): rebase-merge/ for an
// interactive rebase (git-rebase-todo, the list the user's
// `git rebase --continue` carries out, whose "exec" lines run a shell
// command; done, head-name, onto, interactive, …), rebase-apply/ for
// `git am` and `git rebase --apply`, sequencer/ for a cherry-pick or
// revert of several commits (todo, opts). A command that leaves such a list
// with exec lines has the user's next `git rebase --continue` run them
// outside the sandbox. Git writes these files as it works, so a command
// may write them; the file tools ask (SequencerFile), and what a command
// leaves is checked after the round (disarmTodos).

// sequencerDirs are the folders of a git directory holding an operation
// under way.
var sequencerDirs = []string{"rebase-merge", "rebase-apply", "sequencer"}

// todoFiles are the lists of steps git carries out on --continue.
var todoFiles = []string{"rebase-merge/git-rebase-todo", "sequencer/todo"}

// SequencerFile reports whether rel (slash-separated, relative to a git
// directory) is part of git's record of a rebase, cherry-pick or revert
// under way, or is one of their folders.
func SequencerFile(rel string) bool {
	first, _, _ := strings.Cut(rel, "/")
	for _, d := range sequencerDirs {
		if first == d {
			return true
		}
	}
	return false
}

// todoSums notes what each todo list of the git directory dir held (a
// hash), so that the check after the round leaves alone a list the round
// did not change (a rebase of the user's own, paused with exec lines).
func todoSums(dir string) map[string][32]byte {
	out := map[string][32]byte{}
	for _, f := range todoFiles {
		if b, err := readSmall(filepath.Join(dir, filepath.FromSlash(f))); err == nil {
			out[f] = sha256.Sum256(b)
		}
	}
	return out
}

// readIn reads the file rel (one folder and a name) of the held folder d.
func readIn(d *hands.Dir, rel string) ([]byte, error) {
	sub, name := path.Split(rel)
	s, err := d.OpenDir(strings.TrimSuffix(sub, "/"))
	if err != nil {
		return nil, err
	}
	defer s.Close()
	b, _, err := s.ReadFile(name, maxGitFile)
	return b, err
}

// runsExec says whether a todo list has a step that runs a command: a
// line whose first word is "exec" or "x" (git's sequencer.c, todo_command_info).
func runsExec(b []byte) bool {
	for _, line := range bytes.Split(b, []byte("\n")) {
		f := strings.Fields(string(line))
		if len(f) > 0 && (f[0] == "exec" || f[0] == "x") {
			return true
		}
	}
	return false
}

// disarmTodos renames each todo list of the git directory g (held open)
// that has exec lines and is not what it was before the round (before:
// todoSums then, nil for a git directory that is new): the user's
// `git rebase --continue` then stops with an error instead of running
// them. One that cannot be read whole is renamed too.
func (c *cleanup) disarmTodos(g *hands.Dir, before map[string][32]byte) {
	for _, f := range todoFiles {
		b, err := readIn(g, f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			if sum, had := before[f]; had && sum == sha256.Sum256(b) {
				continue
			}
			if !runsExec(b) {
				continue
			}
		}
		why := "its exec lines run a command on the user's next git rebase --continue"
		if err != nil {
			why = "it is git's list of steps to carry out on --continue, and Loupe cannot read it (" + err.Error() + ")"
		}
		c.disarmEntry(g, f, why)
	}
}
