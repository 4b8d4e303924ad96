package sandbox

import (
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/backend/hands"
)

// GitFacts are what a file tool's decision needs to know of where git
// would read settings or run programs in a workspace, beyond what a path's
// name says: finding them walks the whole workspace, so FactsOf keeps them
// while nothing they were worked out from can have changed. Paths are
// slash-separated and relative to the workspace (as given and with its
// symlinks resolved, when different).
type GitFacts struct {
	// Included are the files of the workspace that any settings git
	// reads for a repository in or above it include, there or not yet
	// (where git opens them and as the settings spell them): the file
	// tools ask before changing them, as they do for .git/config.
	Included []string
	// Named are the folders a commondir or a .git file in the
	// workspace names as a git directory ("." for the workspace
	// itself): the file tools ask before changing git's own files there
	// (GitOwnFile) as they do in a .git folder.
	Named []string
	// Programs are the files a setting has git run (core.fsmonitor =
	// tools/w.sh, there or not yet), and Folders the hooks folders the
	// settings name (core.hooksPath, init.templateDir, there or not yet),
	// everything under them included.
	Programs []string
	Folders  []string
	// Unseen says why the walk could not see the whole workspace (a
	// folder Loupe cannot list that git can enter, more entries than it
	// checks): the lists may lack some, so the file tools ask before
	// every write. Facts with it are never kept.
	Unseen error
}

// factsEntry is what FactsOf keeps for one workspace: the facts, the
// count of Loupe's changes and of commands when they were worked out, and
// the stamps of everything they were worked out from.
type factsEntry struct {
	facts    GitFacts
	changes  uint64
	commands uint64
	stamps   stamps
}

var factsCache = struct {
	sync.Mutex
	m map[string]*factsEntry
}{m: map[string]*factsEntry{}}

// FactsOf returns the GitFacts of the workspace ws. They are worked out
// again unless every one of these holds since the last time:
//
//   - Loupe's process changed no workspace file (hands.Changes: the
//     tools' writes, undo and restore, the check after a round);
//   - no command started or ended, and none is running (a running
//     command writes as it likes);
//   - every folder of the workspace the walk went through, every pointer
//     file it read, every settings file read or looked for (the user's
//     and the system's too), and every folder on the way to a file or
//     folder found, looks as it did: same inode, size, mode, change and
//     modification times (a program of the user's that makes a
//     repository or edits a setting while no command runs changes one of
//     them);
//   - none of those times was so close to the walk that a change in the
//     same clock tick could leave it as it was (as git's "racy" index
//     entries: such facts are not kept).
//
// So the cost of a decision is a stat of each stamped path, not a walk,
// and kept facts are never older than the files they describe.
func FactsOf(ws string) GitFacts {
	changes, commands, running := hands.Changes(), commandCount(), commandsRunning()
	factsCache.Lock()
	e := factsCache.m[ws]
	factsCache.Unlock()
	if e != nil && !running && e.changes == changes && e.commands == commands && e.stamps.same() {
		return e.facts
	}
	start := time.Now()
	facts, st := workOutFacts(ws)
	if facts.Unseen != nil || running || st.racy(start) || hands.Changes() != changes || commandCount() != commands || commandsRunning() {
		factsCache.Lock()
		delete(factsCache.m, ws)
		factsCache.Unlock()
		return facts
	}
	factsCache.Lock()
	factsCache.m[ws] = &factsEntry{facts: facts, changes: changes, commands: commands, stamps: st}
	factsCache.Unlock()
	return facts
}

// workOutFacts walks the workspace once (never through a link, bounded
// like the view's walk) for its git directories of every layout, its .git
// files and the folders pointers name, then reads the settings of each,
// and stamps what it read on the way.
func workOutFacts(ws string) (GitFacts, stamps) {
	st := stamps{}
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		st.add(ws)
		return GitFacts{}, st
	}
	st.add(real)
	rels := func(p string) []string {
		var out []string
		for _, base := range []string{real, ws} {
			if rel, ok := within(base, p); ok && rel != "." {
				out = append(out, filepath.ToSlash(rel))
			}
		}
		return out
	}
	var f GitFacts
	repos := map[string]gitRepo{}
	noteRoot(repos, real)
	seen := map[string]bool{}
	// The one walk of the workspace (walkWorkspace: skipping nothing,
	// failing rather than answering for part of it).
	f.Unseen = walkWorkspace(real, func(p string, d fs.DirEntry) {
		if d.IsDir() {
			// Stamped before its entries are read: an entry added
			// after changes the folder's times.
			st.add(p)
		}
		if !d.IsDir() && (d.Name() == "commondir" || d.Name() == ".git") {
			st.add(p) // a pointer rewritten in place
		}
		noteRepo(repos, real, p, d)
		if dir, ok := namedDir(p, d); ok {
			if rel, inside := within(real, dir); inside && !seen[rel] {
				seen[rel] = true
				f.Named = append(f.Named, filepath.ToSlash(rel))
			}
		}
	})
	for _, r := range repos {
		if r.gitDir != "" {
			for _, s := range gitSettingsFiles(r.gitDir) {
				st.add(s)
			}
		}
	}
	targets, read := includeTargetsRead(real, repos)
	st.add(read...)
	for _, t := range targets {
		st.addWay(t)
		for _, p := range []string{t.path, t.given} {
			f.Included = append(f.Included, rels(p)...)
		}
	}
	// The repositories the workspace is a folder of count as its own
	// wherever their settings name a path inside it (reposAbove).
	above, looked := reposAbove(real)
	st.add(looked...)
	for _, r := range append(slices.Collect(maps.Values(repos)), above...) {
		pp := programsOf(r, real)
		st.add(pp.read...)
		for _, t := range pp.files {
			st.addWay(t)
			f.Programs = append(f.Programs, rels(t.path)...)
			f.Programs = append(f.Programs, rels(t.given)...)
		}
		for _, t := range pp.folders {
			st.addWay(t)
			f.Folders = append(f.Folders, rels(t.path)...)
			f.Folders = append(f.Folders, rels(t.given)...)
		}
	}
	for _, l := range [][]string{f.Included, f.Programs, f.Folders} {
		slices.Sort(l)
	}
	f.Included, f.Programs, f.Folders = slices.Compact(f.Included), slices.Compact(f.Programs), slices.Compact(f.Folders)
	return f, st
}
