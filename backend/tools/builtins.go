package tools

import (
	"fmt"
	"sync"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/sandbox"
)

// Builtins returns the built-in tools working in ws, in the order the
// model sees them: read_file, write_file, edit_file, list_dir, glob, grep,
// run_command. Commands run through run; nil means sandbox.Local{}.
//
// The tools' specs and schemas are static, so they are parsed once per
// process (builtinEntries); each call only binds ws and run.
func Builtins(ws *Workspace, run sandbox.Runner) *Registry {
	if run == nil {
		run = sandbox.Local{}
	}
	bound := builtinTools(ws, run)
	protos := builtinEntries()
	r := &Registry{entries: make([]*entry, len(bound)), byName: make(map[string]*entry, len(bound))}
	for i, t := range bound {
		e := *protos[i] // shares the read-only schema data
		e.tool = t
		r.entries[i] = &e
		r.byName[e.spec.Name] = &e
	}
	return r
}

// builtinTools lists the built-in tools, in order, bound to ws and run.
func builtinTools(ws *Workspace, run sandbox.Runner) []Tool {
	return []Tool{
		readFile{ws},
		writeFile{ws},
		editFile{ws},
		listDir{ws},
		globTool{ws},
		grepTool{ws},
		runCommand{ws, run},
	}
}

// builtinEntries prepares the built-in tools' entries once, unbound: a
// tool's Spec depends on neither the workspace nor the runner (each
// returns a package-level value). Builtins copies them and binds the tool.
var builtinEntries = sync.OnceValue(func() []*entry {
	r, err := NewRegistry(builtinTools(nil, nil)...)
	if err != nil {
		// The built-in schemas are ours: a failure is a programming error,
		// and TestBuiltinsMatchNewRegistry catches it.
		panic(fmt.Sprintf("tools: %v", err))
	}
	return r.entries
})

// BuiltinNames lists the built-in tools' names in their order.
func BuiltinNames() []string {
	protos := builtinEntries()
	names := make([]string, len(protos))
	for i, e := range protos {
		names[i] = e.spec.Name
	}
	return names
}

// BuiltinSpecs lists the built-in tools' specs in their order: what a
// request offers the model when every tool is offered.
func BuiltinSpecs() []llm.ToolSpec {
	protos := builtinEntries()
	specs := make([]llm.ToolSpec, len(protos))
	for i, e := range protos {
		specs[i] = e.spec
	}
	return specs
}
