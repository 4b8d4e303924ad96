package readiness

import (
	"fmt"
	"sort"
	"strings"
)

// serverOf is the MCP server of a tool named server.tool ("" for a
// built-in, whose names have no dot).
func serverOf(name string) string {
	if i := strings.IndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return ""
}

// schemasItem warns when the tool schemas alone take more than
// SchemaShare of num_ctx, and says which servers' tools cost the most.
func (rep *Report) schemasItem() Item {
	share := float64(rep.ToolTokens) / float64(max(rep.NumCtx, 1))
	it := Item{Check: CheckSchemas, Status: OK,
		Detail: fmt.Sprintf("The tool schemas take %s, %.0f%% of num_ctx %d (the check warns beyond %.0f%%).", tokensWord(rep.ToolTokens, rep.ToolsMeasured), share*100, rep.NumCtx, SchemaShare*100)}
	if share <= SchemaShare {
		return it
	}
	it.Status = Warn
	it.Detail += " By source: " + strings.Join(rep.bySource(), ", ") + "."
	it.Fix = "Switch off the tools this session does not need (a whole MCP server in Settings → MCP servers, or single tools in the session's tool choice), or raise num_ctx."
	return it
}

// bySource is the schemas' cost per MCP server and for the built-ins,
// the largest first.
func (rep *Report) bySource() []string {
	sum := map[string]int{}
	measured := map[string]bool{}
	for _, t := range rep.Tools {
		sum[t.Server] += t.Tokens
		if _, seen := measured[t.Server]; !seen {
			measured[t.Server] = true
		}
		measured[t.Server] = measured[t.Server] && t.Measured
	}
	keys := make([]string, 0, len(sum))
	for k := range sum {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if sum[keys[i]] != sum[keys[j]] {
			return sum[keys[i]] > sum[keys[j]]
		}
		return keys[i] < keys[j]
	})
	out := make([]string, len(keys))
	for i, k := range keys {
		name := k
		if k == "" {
			name = "built-in tools"
		}
		if measured[k] {
			out[i] = fmt.Sprintf("%s %d (measured by Ollama)", name, sum[k])
		} else {
			out[i] = fmt.Sprintf("%s about %d", name, sum[k])
		}
	}
	return out
}
