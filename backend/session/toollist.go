package session

import (
	"strings"

	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/tools"
)

// ToolInfo is a built-in tool as the window lists it (the new-session
// checklist, the per-tool settings, the rules editor).
type ToolInfo struct {
	Name string `json:"name"`
	// Summary is the first sentence of the description the model reads.
	Summary string `json:"summary"`
	// PathArg is the argument holding the path the policy judges, "" for
	// a tool that takes none: a path rule can name only a tool that has
	// one.
	PathArg  string `json:"path_arg"`
	ReadOnly bool   `json:"read_only"`
}

// BuiltinTools lists the registry's built-in tools in the order the model
// sees them.
func BuiltinTools() []ToolInfo {
	reg := tools.Builtins(nil, nil)
	out := make([]ToolInfo, 0, len(reg.Names()))
	for _, t := range reg.Tools() {
		spec := t.Spec()
		out = append(out, ToolInfo{Name: spec.Name, Summary: firstSentence(spec.Description), PathArg: permission.PathArg(spec.Name), ReadOnly: t.ReadOnly()})
	}
	return out
}

// firstSentence is s up to its first ". " or line break.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\n"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}
