package session

import (
	"context"
	"encoding/json"

	"github.com/loupe-dev/loupe/backend/llm"
)

// subToolSet stores the tool specs a sub-agent of session id is given, as
// the session's own are (once per session, named by its requests).
func (m *Manager) subToolSet(id string) func(ctx context.Context, specs []llm.ToolSpec) (int, error) {
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
