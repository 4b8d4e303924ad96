package session

import (
	"path/filepath"

	"github.com/loupe-dev/loupe/backend/place"
)

// What a fork's copy leaves out of the folder it copies: the paths the
// commands' view hides (workspace.Workspaces.Hidden), Loupe's database and
// data folder among them. They are hidden by where they are, which is the
// parent's folder; copied, they would be ordinary files in the new one.

// leaveOutOf sets what the copy of ws leaves out: those of hidden that lie
// in it, by their path in it.
func (f *ForkFiles) leaveOutOf(ws string, hidden []string) {
	real := place.Resolve(ws)
	f.leaveOut = map[string]bool{}
	for _, h := range hidden {
		if h == "" {
			continue
		}
		r, err := filepath.Rel(real, place.Resolve(h))
		if err != nil || r == "." || !filepath.IsLocal(r) {
			continue
		}
		f.leaveOut[filepath.ToSlash(r)] = true
	}
}

// leftOut says whether the copy leaves out rel (a path in the folder
// copied), and names it in NotCopied when it does.
func (f *ForkFiles) leftOut(rel string) bool {
	if !f.leaveOut[rel] {
		return false
	}
	f.NotCopied = append(f.NotCopied, FileNote{Path: rel, Note: "Loupe's own (its database, data folder or state folder), hidden from commands: not copied"})
	return true
}
