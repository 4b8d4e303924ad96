package tools

import (
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// A write that was killed (Loupe, or the machine, stopped in the middle)
// can leave its temporary file beside the target: ".NAME.loupe-N.tmp" (see
// writeAtomic). RemovePartialWrites removes those of the file at p (as the
// model gave it, relative to the workspace dir) and says how many it
// removed. Recovery calls it for every write that never got its result.
func RemovePartialWrites(dir, p string) int {
	w, err := OpenWorkspace(dir)
	if err != nil {
		return 0
	}
	defer w.Close()
	rel, err := w.rel(p)
	if err != nil || rel == "." {
		return 0
	}
	parent, base := path.Dir(rel), path.Base(rel)
	ents, err := fs.ReadDir(w.root.FS(), parent)
	if err != nil {
		return 0
	}
	prefix := "." + base + ".loupe-"
	n := 0
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ".tmp") {
			continue
		}
		if digits := name[len(prefix) : len(name)-len(".tmp")]; digits == "" || strings.Trim(digits, "0123456789") != "" {
			continue
		}
		if w.root.Remove(filepath.FromSlash(path.Join(parent, name))) == nil {
			n++
		}
	}
	return n
}
