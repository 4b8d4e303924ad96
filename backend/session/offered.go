package session

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/backend/tools"
)

// Which tools a session offers its model. Each tool's schema goes with
// every request, so a small model with a small context can be offered
// fewer; a call of a tool not offered is an unknown tool, as for any name
// the model makes up.

// offeredTools checks a choice of tools and returns it in the registry's
// order without repeats; nil (every tool) stays nil.
func offeredTools(choice *[]string) (*[]string, error) {
	if choice == nil {
		return nil, nil
	}
	// The task tool is offered when Settings turns sub-agents on.
	known := append(tools.BuiltinNames(), tools.TaskName)
	var unknown []string
	for _, n := range *choice {
		if !slices.Contains(known, n) {
			unknown = append(unknown, fmt.Sprintf("%q", n))
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("no tool is named %s: choose among %s", strings.Join(unknown, ", "), strings.Join(known, ", "))
	}
	out := []string{}
	for _, n := range known {
		if slices.Contains(*choice, n) {
			out = append(out, n)
		}
	}
	return &out, nil
}

// setTools chooses the tools the session offers its model from its next
// run on (nil: every built-in tool). A run going on keeps what it offers.
func (m *Manager) setTools(ctx context.Context, id string, choice *[]string) (Summary, error) {
	names, err := offeredTools(choice)
	if err != nil {
		return Summary{}, err
	}
	s, err := m.store.SetSessionTools(ctx, id, names)
	if err != nil {
		return Summary{}, err
	}
	return m.summary(ctx, s)
}

// offering narrows a session's registry to the tools it offers.
func offering(reg *tools.Registry, choice *[]string) *tools.Registry {
	if choice == nil {
		return reg
	}
	return reg.Subset(*choice...)
}
