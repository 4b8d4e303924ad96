package sandbox

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
)

// Sweep holds back the check of what commands left in their workspace
// (disarmNewRepos) until every command of a round of parallel calls has
// ended. Checked as each command ends, a parallel command that still runs
// could write a repository's settings after the check, or swap a folder
// the check is about to rename. A command given a Sweep (Command.Sweep)
// adds to it what its workspace held when it started; Run checks once, when
// the caller knows that no command of the round runs any more.
//
// What counts as there before the round is what every command of it found
// when it started: a repository one command made before another started is
// new to the round, so it is checked like one made by the last command.
type Sweep struct {
	mu sync.Mutex
	ws map[string]*sweepBase
}

// sweepBase is one workspace's state before the round.
type sweepBase struct {
	repos  map[string]gitRepo
	absent map[string]bool
	// unreadable: folders every command of the round found unreadable
	// when it started (read-only to them).
	unreadable map[string]bool
	// held is what the round's commands made to hold paths, removed
	// after the check.
	held []placeholder
	// folders: the hooks folders every command of the round found
	// named (viewPlan.folders).
	folders map[string]bool
	// folder is the folder the round's first command ran in
	// (viewPlan.folder).
	folder [2]uint64
}

// NewSweep returns an empty Sweep for one round.
func NewSweep() *Sweep { return &Sweep{ws: map[string]*sweepBase{}} }

// add merges what a command found in ws when it started.
func (s *Sweep) add(ws string, plan viewPlan) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.ws[ws]
	if b == nil {
		b = &sweepBase{repos: map[string]gitRepo{}, absent: map[string]bool{}, unreadable: maps.Clone(plan.unreadable), folders: maps.Clone(plan.folders), folder: plan.folder}
		for p, r := range plan.repos {
			r.present = maps.Clone(r.present)
			r.todos = maps.Clone(r.todos)
			b.repos[p] = r
		}
		for _, p := range plan.absent {
			b.absent[p] = true
		}
		b.held = append(b.held, plan.placeholders...)
		s.ws[ws] = b
		return
	}
	b.held = append(b.held, plan.placeholders...)
	for p, r := range b.repos {
		n, ok := plan.repos[p]
		if !ok || n.gitDir != r.gitDir || n.pointer != r.pointer || n.base != r.base {
			delete(b.repos, p)
			continue
		}
		for f, had := range r.present {
			r.present[f] = had && n.present[f]
		}
		// A todo list that differed between commands changed in the
		// round.
		for f, sum := range r.todos {
			if n.todos[f] != sum {
				delete(r.todos, f)
			}
		}
		// Only named by a pointer to one command: not vetted.
		r.named = r.named || n.named
		b.repos[p] = r
	}
	for _, p := range plan.absent {
		b.absent[p] = true
	}
	for p := range b.unreadable {
		if !plan.unreadable[p] {
			delete(b.unreadable, p)
		}
	}
	// A hooks folder a command of the round made a working tree for
	// before another started is new to the round.
	for p := range b.folders {
		if !plan.folders[p] {
			delete(b.folders, p)
		}
	}
}

// Run checks what the round's commands left, once, and returns one
// sentence per change it made (for the model and the user). Call it after
// every command given this Sweep has ended; a Sweep is empty afterwards.
// ctx ends a wait for commands of other sessions (checkLeft).
func (s *Sweep) Run(ctx context.Context) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var notes []string
	for _, ws := range slices.Sorted(maps.Keys(s.ws)) {
		b := s.ws[ws]
		notes = append(notes, checkLeft(ctx, ws, b.folder, b.repos, slices.Sorted(maps.Keys(b.absent)), b.unreadable, b.folders, b.held)...)
	}
	clear(s.ws)
	return notes
}

// checkLeft checks what commands that have all ended left in ws
// (disarmNewRepos), and hands back what was made to hold paths for them
// (held). It does both Quiet: a command that still runs in a workspace
// that overlaps ws (of another session, or another round) could swap a
// folder the check is about to rename with a link, or put back what it
// renamed; none runs meanwhile, and none starts. The caller must not be
// counted as running (commandEnded first), or Quiet would wait for it.
// If ctx ends before the others do, the placeholders go all the same and
// the sentence returned says the check was not made.
func checkLeft(ctx context.Context, ws string, folder [2]uint64, repos map[string]gitRepo, absent []string, unreadable, folders map[string]bool, held []placeholder) []string {
	release, err := Quiet(ctx, ws)
	if err != nil {
		releasePlaceholders(ws, held)
		return []string{fmt.Sprintf("Loupe did not check %s for repositories or git settings the commands made, because it was stopped while waiting for other commands that still ran there; before you run git there, look for .git folders and files you did not make (git would run the programs their settings name) and remove them", ws)}
	}
	defer release()
	notes := disarmNewRepos(ws, folder, repos, absent, unreadable, folders)
	releasePlaceholders(ws, held)
	return notes
}
