package workspace

import (
	"fmt"
	"github.com/loupe-dev/loupe/backend/place"
	"os"
	"path/filepath"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// refusedInHome lists the folders of the home folder that no workspace may
// be or lie in, nor a fork's copy be made in: what is in them starts
// programs (at login, in every shell, on the PATH) or holds credentials,
// and everything in a workspace is the model's to read and, through
// commands and Undo, to write. Loupe's own data and settings are under
// .config, .local and Library; a data folder chosen elsewhere is refused
// by CheckNew.
var refusedInHome = []string{
	".config", // XDG settings: autostart, systemd user units, every program's settings
	".local",  // .local/bin is on the PATH; .local/share holds applications and keyrings
	".ssh",    // keys, authorized_keys, config (ProxyCommand)
	".gnupg",  // keys, gpg-agent.conf
	".pki",    // certificates and their keys
	".kube",   // cluster credentials
	".aws",    // cloud credentials
	".azure",  // cloud credentials
	".docker", // registry credentials
	".password-store",
	".bashrc.d",  // read by every bash
	".profile.d", // read at login
	".zshrc.d",   // read by every zsh
	".oh-my-zsh", // read by every zsh
	".bash_it",   // read by every bash
	".cargo",     // .cargo/bin is on the PATH; credentials.toml
	"bin",        // on the PATH of most shells' profiles
	"Library",    // macOS: LaunchAgents, Keychains, Application Support
}

// RefusedInHome is the list, each as a path in the home folder.
func RefusedInHome() []string { return append([]string(nil), refusedInHome...) }

// Refused says what is wrong with abs (absolute; it need not exist yet, as
// a fork's copy's folder) as a workspace because of where it is: in one of
// the home folder's folders that start programs or hold credentials, or in
// Loupe's state folder (sandbox.StateDir, wherever XDG_STATE_HOME puts
// it), or holding that folder, where every Loupe process notes what it holds for its commands: a
// model that could change those notes could have one process remove what
// another's command has read-only.
func Refused(abs string) error {
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		for _, name := range refusedInHome {
			if place.Holds(filepath.Join(home, name), abs) {
				return &RefusedError{Dir: abs, In: "~/" + name}
			}
		}
	}
	if state, err := sandbox.StateDir(); err == nil {
		if place.Holds(state, abs) {
			return &RefusedError{Dir: abs, In: state, State: true}
		}
		// A workspace that holds it (XDG_STATE_HOME in a project) gives
		// the model's file tools the notes as much as one in it.
		if place.Holds(abs, state) {
			return &RefusedError{Dir: abs, In: state, State: true, Holds: true}
		}
	}
	return nil
}

// RefusedError is a workspace in a folder of the home folder that starts
// programs or holds credentials, or in Loupe's state folder.
type RefusedError struct {
	Dir string
	// In is the folder of the list, as ~/name, or the state folder.
	In string
	// State: In is Loupe's state folder.
	State bool
	// Holds: Dir holds In rather than lies in it.
	Holds bool
}

func (e *RefusedError) Error() string {
	if e.Holds {
		return fmt.Sprintf("workspace %s holds %s, Loupe's state folder, where Loupe notes what it holds for the commands it runs; choose a project folder that does not", e.Dir, e.In)
	}
	if e.State {
		return fmt.Sprintf("workspace %s is in %s, Loupe's state folder, where Loupe notes what it holds for the commands it runs; choose a project folder outside it", e.Dir, e.In)
	}
	return fmt.Sprintf("workspace %s is in %s, whose files start programs or hold keys and passwords, and a workspace's files are the model's to read and change; choose a project folder outside it", e.Dir, e.In)
}
