package session

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/readiness"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/store"
	"github.com/loupe-dev/loupe/backend/tools"
)

// ModelCheck is what the window asks when a model is picked for a
// session: the model and its host, the workspace (its system prompt names it), the
// tools the session would offer (nil: every tool) and whether to send
// the model one small request.
type ModelCheck struct {
	Model string `json:"model"`
	// Host is the Ollama host the session would run on, as the
	// new-session page names it ("": the local one).
	Host      string    `json:"host,omitempty"`
	Workspace string    `json:"workspace"`
	Tools     *[]string `json:"tools,omitempty"`
	RoundTrip bool      `json:"round_trip"`
}

// CheckModel runs the readiness checklist for a session on c.Model with
// what its requests would send: the saved system prompt and num_ctx cap,
// and the tools chosen.
func CheckModel(ctx context.Context, st *store.Store, oc *ollama.Client, c ModelCheck) (readiness.Report, error) {
	return CheckModelWith(ctx, st, oc, c, nil, nil)
}

// CheckModelWith is CheckModel with the schemas of the MCP tools the
// session would offer too (see Manager.MCPSpecs): the schemas check
// counts them by server. With sc, the schemas are counted by Ollama when
// it holds the model loaded (see ollama.SchemaCosts); else, and with sc
// nil, by the estimate.
func CheckModelWith(ctx context.Context, st *store.Store, oc *ollama.Client, c ModelCheck, mcpSpecs []llm.ToolSpec, sc *ollama.SchemaCosts) (readiness.Report, error) {
	if strings.TrimSpace(c.Model) == "" {
		return readiness.Report{}, errors.New("choose a model to check")
	}
	set, err := settings.Load(ctx, st)
	if err != nil {
		return readiness.Report{}, err
	}
	// The system prompt as a run would send it, AGENTS.md and all.
	system, err := SystemFor(set, c.Workspace)
	if err != nil {
		return readiness.Report{}, err
	}
	ref, err := set.HostRef(c.Host)
	if err != nil {
		return readiness.Report{}, err
	}
	target, err := set.Target(ref)
	if err != nil {
		return readiness.Report{}, err
	}
	if target.URL != "" {
		oc = oc.At(target.URL)
	}
	names, err := offeredTools(c.Tools)
	if err != nil {
		return readiness.Report{}, err
	}
	specs := tools.BuiltinSpecs()
	if names != nil {
		specs = slices.DeleteFunc(specs, func(s llm.ToolSpec) bool { return !slices.Contains(*names, s.Name) })
	}
	var off []llm.ToolSpec
	for _, sp := range mcpSpecs {
		if mcpChosen(names, sp.Name) {
			specs = append(specs, sp)
		} else {
			off = append(off, sp)
		}
	}
	return readiness.Check(ctx, oc, readiness.Input{
		Model: c.Model, System: system.Text, Tools: specs, Off: off,
		NumCtxCap: set.NumCtxCap, Temperature: set.Temperature, RoundTrip: c.RoundTrip,
		Measured: measure(ctx, sc, oc, c.Model, specs, off),
	})
}

// measure asks Ollama what the schemas cost, if sc is set and Ollama
// holds the model. A measurement that cannot be made is not the check's
// failure: the estimate stands in, and the window says it is one.
func measure(ctx context.Context, sc *ollama.SchemaCosts, oc *ollama.Client, model string, specs, off []llm.ToolSpec) readiness.Measured {
	if sc == nil {
		return readiness.Measured{}
	}
	each, err := sc.Measure(ctx, oc, model, append(slices.Clone(specs), off...), SchemaTokens)
	if err != nil {
		return readiness.Measured{Tools: each}
	}
	total, _ := sc.Total(ctx, oc, model, specs, 0)
	return readiness.Measured{Tools: each, Total: total}
}
