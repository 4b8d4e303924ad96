package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// heldFolder is a workspace folder held open while a run is assembled:
// whatever its path leads to meanwhile (a command of a session in the
// folder above may swap it for a link), what Loupe judges, reads the
// settings of and gives the run's commands is this one folder.
type heldFolder struct {
	f    *os.File
	info os.FileInfo
	// real is its own path, as the kernel names the handle (links
	// resolved): what is judged.
	real string
}

func holdFolder(dir string) (*heldFolder, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", dir, err)
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s cannot be opened: %w", abs, err)
	}
	info, err := f.Stat()
	if err == nil && !info.IsDir() {
		err = fmt.Errorf("workspace %s is not a folder", abs)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	h := &heldFolder{f: f, info: info}
	if runtime.GOOS == "linux" {
		h.real, err = os.Readlink(h.via())
	} else {
		h.real, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("workspace %s cannot be opened: %w", abs, err)
	}
	return h, nil
}

// via is a path that leads to the held folder itself, wherever its own
// path leads now (on Linux, the handle's entry in /proc; elsewhere its
// path).
func (h *heldFolder) via() string {
	if runtime.GOOS == "linux" {
		return "/proc/self/fd/" + strconv.Itoa(int(h.f.Fd()))
	}
	return h.real
}

// still says whether the folder's own path still leads to it: checked
// after what was judged by that path.
func (h *heldFolder) still() bool {
	fi, err := os.Stat(h.real)
	return err == nil && os.SameFile(fi, h.info)
}

func (h *heldFolder) Close() { h.f.Close() }
