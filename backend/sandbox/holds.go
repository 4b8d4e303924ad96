package sandbox

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// adoptHolds takes up, for a command whose view covers the folders scopes
// (its workspace, the git folders outside it that it may write), every
// placeholder a Loupe process noted there that this command has not made
// itself (made): held by this process too, it stays until this command has
// ended, whoever made it. A note whose placeholder is gone, or is no longer
// what was made, is dropped when no process holds it. Called once the
// command's plan is made: what the plan found there then was either noted
// by then, or is not Loupe's (a placeholder is made and noted under one
// lock). Without the notes' lock it fails: what other processes hold is
// unknown, and the command does not run.
func adoptHolds(scopes []string, made []placeholder) ([]placeholder, error) {
	notes, unlock, err := holdsLock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	mine := map[[2]uint64]bool{}
	for _, p := range made {
		mine[[2]uint64{p.dev, p.ino}] = true
	}
	noted := notedHolds(notes)
	// Folders before what is in them: let go of in the other order.
	names := sortedHolds(noted)
	var out []placeholder
	for _, name := range names {
		n := noted[name]
		d, i, ok := strings.Cut(name, "-")
		dev, derr := strconv.ParseUint(d, 10, 64)
		ino, ierr := strconv.ParseUint(i, 10, 64)
		if !ok || derr != nil || ierr != nil || mine[[2]uint64{dev, ino}] {
			continue
		}
		base, rel := "", ""
		for _, s := range scopes {
			if r, ok := relIn(s, n.Path); ok {
				base, rel = s, r
				break
			}
		}
		if base == "" {
			continue
		}
		fi, err := os.Lstat(n.Path)
		if err != nil || fi.IsDir() != n.Dir {
			dropStaleHold(notes, name)
			continue
		}
		if fdev, fino := fileID(fi); fdev != dev || fino != ino {
			dropStaleHold(notes, name)
			continue
		}
		k := [2]uint64{dev, ino}
		activity.Lock()
		if h := activity.live[k]; h != nil {
			h.refs++
		} else if f, err := takeHold(notes, name); err == nil {
			activity.live[k] = &hold{f: f, refs: 1}
		} else {
			activity.Unlock()
			continue
		}
		activity.Unlock()
		out = append(out, placeholder{base: base, rel: rel, dev: dev, ino: ino, dir: n.Dir})
	}
	return out, nil
}

// withoutPlaceholders takes out of what the plan counts as there before
// the command every path that is a placeholder (made by Loupe, this
// process or another, and held now) or went away meanwhile: the check
// after the round compares with what the repository had before any Loupe
// process made anything (a hooks folder filled after its placeholder
// went would otherwise pass as the repository's own).
func (p *viewPlan) withoutPlaceholders() {
	loupes := func(path string) bool {
		fi, err := os.Lstat(path)
		return err != nil || IsPlaceholder(fi)
	}
	for _, r := range p.repos {
		for f, had := range r.present {
			if had && loupes(filepath.Join(r.gitDir, filepath.FromSlash(f))) {
				r.present[f] = false
			}
		}
	}
	for f := range p.folders {
		if loupes(f) {
			delete(p.folders, f)
		}
	}
}

// SweepPlaceholders removes what a Loupe process that is gone (crashed,
// killed) made to hold paths and left in the user's tree: every noted
// placeholder no process holds any more (its note's lock is free), when it
// is still what was made (the same inode, empty). It works under the
// notes' lock (no process makes, notes or takes one up meanwhile), and
// through the folder the placeholder was made in, held open, by name,
// never through a link (removePlaceholder). Loupe calls it as it starts
// and as it opens a workspace; what it cannot remove (a note of an older
// Loupe that names no folder, a folder a command filled) is left to the
// next command whose view covers it. Without the notes' lock it removes
// nothing and says why.
func SweepPlaceholders() error {
	notes, unlock, err := holdsLock()
	if err != nil {
		return fmt.Errorf("%w; what a Loupe process that is gone left to hold paths stays until a command's view covers it", err)
	}
	defer unlock()
	noted := notedHolds(notes)
	// What is in a folder before the folder.
	names := sortedHolds(noted)
	slices.Reverse(names)
	for _, name := range names {
		n := noted[name]
		d, i, ok := strings.Cut(name, "-")
		dev, derr := strconv.ParseUint(d, 10, 64)
		ino, ierr := strconv.ParseUint(i, 10, 64)
		if !ok || derr != nil || ierr != nil || !filepath.IsAbs(n.Base) || n.Rel == "" {
			continue
		}
		if rel, ok := relIn(n.Base, n.Path); !ok || rel != n.Rel {
			continue
		}
		activity.Lock()
		mine := activity.live[[2]uint64{dev, ino}] != nil
		activity.Unlock()
		if mine {
			continue
		}
		f, err := takeHold(notes, name)
		if err != nil || !lastHold(notes, f, dev, ino) {
			continue // a live process holds it: it removes it
		}
		p := placeholder{base: n.Base, rel: n.Rel, dev: dev, ino: ino, dir: n.Dir}
		if removePlaceholder(p) && p.dir && holdsNotedUnder(notes, p) {
			continue
		}
		forgetHold(notes, dev, ino)
	}
	return nil
}

// sortedHolds is the names of the noted placeholders, a folder's before
// what is in it (a shorter path first; the same length by name, so that
// the order does not depend on the map's).
func sortedHolds(noted map[string]holdNote) []string {
	names := slices.Collect(maps.Keys(noted))
	slices.SortFunc(names, func(a, b string) int {
		if d := len(noted[a].Path) - len(noted[b].Path); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return names
}
