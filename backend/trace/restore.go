package trace

import "sort"

// FileRestore is one file of a restore plan: what to put back and what
// Loupe itself last wrote there, to tell a change made outside Loupe.
type FileRestore struct {
	Path string
	// Before is the content before the first change in range; nil means
	// the file did not exist then (so restoring removes it).
	Before *string
	// Last is the content after Loupe's last change to the file anywhere
	// in the log (nil: Loupe last removed it).
	Last *string
}

// RestorePlan lists, by path, the files that tool results and restores
// changed at or after toSeq, with what putting them back means.
func RestorePlan(evs []Event, toSeq int64) ([]FileRestore, error) {
	type state struct {
		FileRestore
		inRange bool
	}
	files := map[string]*state{}
	for _, e := range evs {
		var changes []FileChange
		switch e.Kind {
		case KindToolResult:
			p, err := Decode[ToolResult](e)
			if err != nil {
				return nil, err
			}
			changes = p.Changes
		case KindRestore:
			p, err := Decode[Restore](e)
			if err != nil {
				return nil, err
			}
			changes = p.Changes
		}
		for _, c := range changes {
			f := files[c.Path]
			if f == nil {
				f = &state{FileRestore: FileRestore{Path: c.Path}}
				files[c.Path] = f
			}
			if e.Seq >= toSeq && !f.inRange {
				f.Before, f.inRange = c.Before, true
			}
			f.Last = c.After
		}
	}
	var out []FileRestore
	for _, f := range files {
		if f.inRange {
			out = append(out, f.FileRestore)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Conflict says why putting f back would lose a change made outside Loupe,
// given the file as it is now, or "" when it would not.
func (f FileRestore) Conflict(current []byte, exists bool) string {
	switch {
	case f.Last == nil && exists:
		return "it was created again outside Loupe"
	case f.Last != nil && !exists:
		return "it was deleted outside Loupe"
	case f.Last != nil && string(current) != *f.Last:
		return "it was changed outside Loupe"
	}
	return ""
}

// RunStart is the seq of run's first event, or false if the log has no
// such run.
func RunStart(evs []Event, run int) (int64, bool) {
	for _, e := range evs {
		if e.Run == run {
			return e.Seq, true
		}
	}
	return 0, false
}
