package session

import (
	"context"
	"encoding/json"

	"github.com/loupe-dev/loupe/backend/llm"
)

// toolSet stores a tool set of session id: the specs of the tools a run
// offers, once per session (the same specs are stored once), for its
// requests to name. 0 for no tools. A run's own, a sub-agent's and those a
// pause leaves all go through it.
func (m *Manager) toolSet(id string) func(ctx context.Context, specs []llm.ToolSpec) (int, error) {
	return func(ctx context.Context, specs []llm.ToolSpec) (int, error) {
		if len(specs) == 0 {
			return 0, nil
		}
		b, err := json.Marshal(specs)
		if err != nil {
			return 0, err
		}
		return m.store.PutToolSet(context.WithoutCancel(ctx), id, b)
	}
}
