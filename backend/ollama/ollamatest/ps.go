package ollamatest

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"time"
)

// This file is GET /api/ps: the models the fake has "loaded", as Ollama
// v0.17.4's PsHandler (server/routes.go) lists them.

// keepAlive is how long Ollama keeps a model loaded after a request that
// does not say (its default OLLAMA_KEEP_ALIVE).
const keepAlive = 5 * time.Minute

// loaded is one model in the fake's memory.
type loaded struct {
	model   ModelSpec
	numCtx  int
	expires time.Time
}

// loadedCtx is the context Ollama gives a model loaded for req: its
// num_ctx (4096 when absent), at least 4 and at least 2048 for a vision
// model (server/sched.go GetRunner), then capped by the model's trained
// context (llm/server.go). It is what the runner holds and what /api/ps
// reports as context_length.
func loadedCtx(m ModelSpec, req ChatRequest) int {
	n := 4096
	if v, ok := req.Options["num_ctx"].(float64); ok && v > 0 {
		n = int(v)
	}
	n = max(n, 4)
	if slices.Contains(m.Capabilities, "vision") {
		n = max(n, 2048)
	}
	if m.ContextLength > 0 && n > m.ContextLength {
		n = m.ContextLength
	}
	return n
}

// load keeps m loaded for keepAlive from now with the context req asks
// for; another context replaces the one it had, as Ollama reloads a
// model whose num_ctx changes.
func (s *Server) load(m ModelSpec, req ChatRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loaded == nil {
		s.loaded = map[string]loaded{}
	}
	s.loaded[m.Name] = loaded{model: m, numCtx: loadedCtx(m, req), expires: s.clock().Add(keepAlive)}
}

// Unload forgets every loaded model, as when Ollama's keep-alive runs out
// or it restarts.
func (s *Server) Unload() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loaded = nil
}

// processModel is api.ProcessModelResponse, field for field.
type processModel struct {
	Name          string       `json:"name"`
	Model         string       `json:"model"`
	Size          int64        `json:"size"`
	Digest        string       `json:"digest"`
	Details       modelDetails `json:"details,omitempty"`
	ExpiresAt     time.Time    `json:"expires_at"`
	SizeVRAM      int64        `json:"size_vram"`
	ContextLength int          `json:"context_length"`
}

type processBody struct {
	Models []processModel `json:"models"`
}

func (s *Server) ps(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	now := s.clock()
	out := processBody{Models: []processModel{}}
	for name, l := range s.loaded {
		if !l.expires.After(now) {
			delete(s.loaded, name)
			continue
		}
		sum := sha256.Sum256([]byte(l.model.Name))
		out.Models = append(out.Models, processModel{
			Name:      l.model.Name,
			Model:     l.model.Name,
			Size:      l.model.Size,
			Digest:    hex.EncodeToString(sum[:]),
			Details:   details(l.model),
			ExpiresAt: l.expires,
			// The fake "runs" on a CPU, as the real tier's server does.
			SizeVRAM:      0,
			ContextLength: l.numCtx,
		})
	}
	s.mu.Unlock()
	// Longest time left first, as Ollama sorts them; then by name, so
	// that the order is the same each time.
	slices.SortStableFunc(out.Models, func(a, b processModel) int {
		if c := cmp.Compare(b.ExpiresAt.Unix(), a.ExpiresAt.Unix()); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	writeJSON(w, http.StatusOK, out)
}
