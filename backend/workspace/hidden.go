package workspace

import "github.com/loupe-dev/loupe/backend/sandbox"

// Hidden lists the paths the commands' view hides wherever they are
// (in the workspace, in an exposed path): Loupe's database with its -wal,
// -shm and -journal, Loupe's data folder and Loupe's state folder
// (sandbox.StateDir: what every Loupe process holds for its commands is
// noted there). A fork's copy leaves out
// those that lie in the folder it copies: in the copy they would be
// ordinary files, neither hidden nor protected there.
func (w *Workspaces) Hidden() []string {
	var out []string
	if w.db != "" {
		out = append(out, w.db, w.db+"-wal", w.db+"-shm", w.db+"-journal")
	}
	if w.dataDir != "" {
		out = append(out, w.dataDir)
	}
	if state, err := sandbox.StateDir(); err == nil {
		out = append(out, state)
	}
	return out
}
