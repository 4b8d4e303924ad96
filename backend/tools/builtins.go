package tools

import (
	"fmt"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// Builtins returns the built-in tools working in ws, in the order the
// model sees them: read_file, write_file, edit_file, list_dir, glob, grep,
// run_command. Commands run through run; nil means sandbox.Local{}.
func Builtins(ws *Workspace, run sandbox.Runner) *Registry {
	if run == nil {
		run = sandbox.Local{}
	}
	r, err := NewRegistry(
		readFile{ws},
		writeFile{ws},
		editFile{ws},
		listDir{ws},
		globTool{ws},
		grepTool{ws},
		runCommand{ws, run},
	)
	if err != nil {
		// The built-in schemas are ours: a failure is a programming error,
		// and TestBuiltins catches it.
		panic(fmt.Sprintf("tools: %v", err))
	}
	return r
}
