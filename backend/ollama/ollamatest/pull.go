package ollamatest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// This file is /api/pull and /api/delete, written as Ollama v0.17.4's
// PullHandler and DeleteHandler (server/routes.go) and PullModel
// (server/images.go) answer them: a pull streams "pulling manifest", then
// per layer "pulling <first 12 hex of the digest>" lines with digest, total
// and completed bytes, then "verifying sha256 digest", "writing manifest"
// and "success"; the model is listed only once the manifest is written, so
// a pull cut short leaves nothing in /api/tags. A failure after the first
// line is an {"error": ...} line on a 200 answer, as streamResponse writes
// it once the stream has begun.

// Pullable is a model the fake's "registry" holds: /api/pull of its name
// streams the progress of its layers and then installs Model.
type Pullable struct {
	// Model is what is installed once the pull succeeds; its Name is the
	// name to pull.
	Model ModelSpec `json:"model"`
	// Layers are the sizes in bytes of its blobs, in the order Ollama pulls
	// them (the weights first, then template, params, config). Empty means
	// one layer of Model.Size (1 GiB when that is 0).
	Layers []int64 `json:"layers,omitempty"`
	// Fail, when set, is what the registry answers for the manifest
	// instead of the model: Ollama passes a registry's own words on, so
	// a pull of a model from a registry someone else runs shows their
	// text (tests of how Loupe shows a server's words use it).
	Fail string `json:"fail,omitempty"`
}

// PullSteps is how many progress lines the fake writes for each layer
// after its first (which carries no completed bytes, like Ollama's first
// tick of a download that has not started).
const PullSteps = 4

// AddPullable puts a model in the fake's registry, to be installed by
// /api/pull. Pulling a name the registry does not hold fails as Ollama
// does for a model the library does not have.
func (s *Server) AddPullable(p Pullable) {
	p.Model.Name = normalize(p.Model.Name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pullable == nil {
		s.pullable = map[string]Pullable{}
	}
	s.pullable[strings.ToLower(p.Model.Name)] = p
}

// SetPullDelay makes /api/pull wait d between its lines, so that a test can
// watch the progress or cancel a pull in the middle.
func (s *Server) SetPullDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pullDelay = d
}

// SetOffline makes /api/pull fail as Ollama v0.17.4 fails on a machine
// without a network: its request for the manifest cannot resolve the
// registry's name, and the error line says so after "pulling manifest".
func (s *Server) SetOffline(off bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.offline = off
}

// PullsCut returns a channel that is closed once a client has gone away in
// the middle of a pull of name (with or without its tag): it cancelled, as
// Loupe's Cancel must, and the fake stopped streaming.
func (s *Server) PullsCut(name string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pullCutChan(normalize(name))
}

func (s *Server) pullCutChan(name string) chan struct{} {
	if s.pullCut == nil {
		s.pullCut = map[string]chan struct{}{}
	}
	key := strings.ToLower(name)
	ch, ok := s.pullCut[key]
	if !ok {
		ch = make(chan struct{})
		s.pullCut[key] = ch
	}
	return ch
}

// progressLine is api.ProgressResponse on the wire.
type progressLine struct {
	Status    string `json:"status"`
	Digest    string `json:"digest,omitempty"`
	Total     int64  `json:"total,omitempty"`
	Completed int64  `json:"completed,omitempty"`
}

type pullRequest struct {
	Model    string `json:"model"`
	Name     string `json:"name"`
	Insecure bool   `json:"insecure,omitempty"`
	Stream   *bool  `json:"stream,omitempty"`
}

func (s *Server) pull(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req pullRequest
	switch err := decodeBody(body, &req); {
	case len(bytes.TrimSpace(body)) == 0:
		writeError(w, http.StatusBadRequest, "missing request body")
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	if !validName(name) {
		writeError(w, http.StatusBadRequest, "invalid model name")
		return
	}
	name = normalize(name)
	s.mu.Lock()
	p, found := s.pullable[strings.ToLower(name)]
	offline, delay := s.offline, s.pullDelay
	s.mu.Unlock()

	lines := []progressLine{{Status: "pulling manifest"}}
	var fail string
	switch {
	case offline:
		fail = "pull model manifest: " + noNetwork(name)
	case !found:
		// The registry answers 404, which PullModel reports as
		// os.ErrNotExist.
		fail = "pull model manifest: file does not exist"
	case p.Fail != "":
		fail = "pull model manifest: " + p.Fail
	default:
		lines = append(lines, layerLines(p)...)
		lines = append(lines, progressLine{Status: "verifying sha256 digest"}, progressLine{Status: "writing manifest"}, progressLine{Status: "success"})
	}

	if req.Stream != nil && !*req.Stream {
		// waitForStream: only the last word, success or the error.
		if fail != "" {
			writeError(w, http.StatusInternalServerError, fail)
			return
		}
		s.AddModel(p.Model)
		writeJSON(w, http.StatusOK, progressLine{Status: "success"})
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	enc := json.NewEncoder(w)
	for i, l := range lines {
		if i > 0 && !s.wait(r, delay) {
			s.cutPull(name)
			return
		}
		if l.Status == "success" {
			// The manifest is written: the model is installed from here on.
			s.AddModel(p.Model)
		}
		if enc.Encode(l) != nil || rc.Flush() != nil {
			s.cutPull(name)
			return
		}
	}
	if fail != "" {
		if !s.wait(r, delay) {
			s.cutPull(name)
			return
		}
		enc.Encode(errorBody{Error: fail})
	}
}

func (s *Server) cutPull(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.pullCutChan(name)
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// layerLines are the progress lines of p's layers.
func layerLines(p Pullable) []progressLine {
	sizes := p.Layers
	if len(sizes) == 0 {
		size := p.Model.Size
		if size == 0 {
			size = 1 << 30
		}
		sizes = []int64{size}
	}
	var out []progressLine
	for i, size := range sizes {
		sum := sha256.Sum256(fmt.Appendf(nil, "%s#%d", p.Model.Name, i))
		digest := "sha256:" + hex.EncodeToString(sum[:])
		status := "pulling " + digest[7:19]
		for step := 0; step <= PullSteps; step++ {
			out = append(out, progressLine{Status: status, Digest: digest, Total: size, Completed: size * int64(step) / PullSteps})
		}
	}
	return out
}

// noNetwork is the error Go's HTTP client gives Ollama when the registry's
// name cannot be resolved, for the manifest of name, as seen from Ollama
// v0.17.4 on a machine without a network whose resolver is systemd's stub.
func noNetwork(name string) string {
	host, path, tag := "registry.ollama.ai", name, "latest"
	if i := strings.LastIndex(path, ":"); i >= 0 {
		path, tag = path[:i], path[i+1:]
	}
	parts := strings.Split(path, "/")
	switch len(parts) {
	case 1:
		path = "library/" + path
	case 3:
		host, path = parts[0], parts[1]+"/"+parts[2]
	}
	return fmt.Sprintf("Get \"https://%s/v2/%s/manifests/%s\": dial tcp: lookup %s on 127.0.0.53:53: no such host", host, path, tag, host)
}

// validName is a rough model.Name.IsValid: a name of at most three
// slash-separated parts (host, namespace, model) and an optional tag,
// without spaces.
func validName(name string) bool {
	if name == "" || strings.ContainsAny(name, " \t\n\\") {
		return false
	}
	path, _, _ := strings.Cut(name, ":")
	parts := strings.Split(path, "/")
	if len(parts) > 3 {
		return false
	}
	for _, p := range parts {
		if p == "" {
			return false
		}
	}
	return true
}

type deleteRequest struct {
	Model string `json:"model"`
	Name  string `json:"name"`
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req deleteRequest
	switch err := decodeBody(body, &req); {
	case len(bytes.TrimSpace(body)) == 0:
		writeError(w, http.StatusBadRequest, "missing request body")
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	if !validName(name) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("name %q is invalid", name))
		return
	}
	n := normalize(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, m := range s.models {
		if strings.EqualFold(m.Name, n) {
			s.models = append(s.models[:i], s.models[i+1:]...)
			// Ollama answers a delete with 200 and no body.
			w.WriteHeader(http.StatusOK)
			return
		}
	}
	writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
}
