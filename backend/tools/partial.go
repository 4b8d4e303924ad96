package tools

import (
	"path"
	"strings"

	"github.com/loupe-dev/loupe/backend/hands"
)

// A write that was killed (Loupe, or the machine, stopped in the middle)
// can leave its temporary file beside the target: ".NAME.loupe-N.tmp" (see
// writeAtomic, and hands' WriteFile, which names them the same way).
// RemovePartialWrites removes those of the file at p (as the model gave
// it) and says how many it removed. Recovery calls it for every write
// that never got its result.
//
// Where the write went is found with the resolver the write used (p may
// name a link); the folder found is then opened through root, which
// follows no link, and only regular files of that exact name form are
// removed, each by name inside that open folder: a command that has since
// swapped the folder for a link leads the removal nowhere.
func RemovePartialWrites(root *hands.Root, p string) int {
	w, err := OpenWorkspace(root.Dir())
	if err != nil {
		return 0
	}
	defer w.Close()
	rel, err := w.rel(p)
	if err != nil || rel == "." {
		return 0
	}
	if r, err := w.Resolve(p); err == nil && r.Real != "." {
		rel = r.Real
	}
	d, err := root.OpenDir(path.Dir(rel))
	if err != nil {
		return 0
	}
	defer d.Close()
	ents, err := d.ReadDir()
	if err != nil {
		return 0
	}
	prefix := "." + path.Base(rel) + hands.TempPrefix
	n := 0
	for _, e := range ents {
		name := e.Name
		if !e.Type.IsRegular() || !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, hands.TempSuffix) {
			continue
		}
		if digits := name[len(prefix) : len(name)-len(hands.TempSuffix)]; digits == "" || strings.Trim(digits, "0123456789") != "" {
			continue
		}
		if d.RemoveFile(name) == nil {
			n++
		}
	}
	return n
}
