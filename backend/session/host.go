package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/settings"
)

// hostRef reads the host a new session is asked for (a Settings name,
// "local", an address or "") into what the session stores, or says why it
// cannot be used.
func (m *Manager) hostRef(ctx context.Context, host string) (string, error) {
	if host == "" {
		return "", nil
	}
	set, err := settings.Load(ctx, m.store)
	if err != nil {
		return "", err
	}
	ref, err := set.HostRef(host)
	if err != nil || !strings.Contains(ref, "://") {
		return ref, err
	}
	// An address the user gives here is one a session may run on; one
	// that only a file names (an import) is not.
	return ref, m.store.PutSetting(ctx, chosenKey(ref), true)
}

// chosenKey is where an address given on this machine for a session's host
// is remembered.
func chosenKey(addr string) string { return "ollama_host_chosen/" + addr }

// mayUse says what is wrong with running on an address host: it must be
// the local host, one of Settings' named hosts, or an address given for a
// session on this machine. A session's row may come from a file (an
// import), and its host is then no one's choice here.
func (m *Manager) mayUse(ctx context.Context, set settings.Settings, addr string) error {
	if addr == m.model.Host() {
		return nil
	}
	for _, p := range set.Hosts {
		if u, err := settings.ParseOllamaHost(p.URL); err == nil && u == addr {
			return nil
		}
	}
	var chosen bool
	if ok, err := m.store.GetSetting(ctx, chosenKey(addr), &chosen); err != nil {
		return err
	} else if ok && chosen {
		return nil
	}
	return fmt.Errorf("this session would run on the Ollama host at %s, which is neither the local host nor one of Settings → Ollama hosts, and was not chosen on this machine; add it in Settings → Ollama hosts if you mean to use it, or fork the session onto another host", addr)
}

// onHost is a client talking to a session's host, and what to call it.
type onHost struct {
	client *ollama.Client
	// name is the host's Settings name, "" for the local host or an
	// address given as such.
	name string
}

// where is agent.Config.Host: what a request's model_request records.
func (h onHost) where() (string, string) { return h.name, h.client.Host() }

// wrap says which host an error came from when the host has a name: the
// client's errors name the address at most (not all do: a connection that
// closed says only that), so the address is added when it is missing.
func (h onHost) wrap(err error) error {
	if err == nil || h.name == "" {
		return err
	}
	if addr := h.client.Host(); !strings.Contains(err.Error(), addr) {
		return fmt.Errorf("Ollama host %q (%s): %w", h.name, addr, err)
	}
	return fmt.Errorf("Ollama host %q: %w", h.name, err)
}

// clientFor is where the session's requests go: the manager's own client
// for the local host (Settings' Ollama host moves it, also during a run),
// else a client for the named host or address that shares its connections
// and their count. A name Settings no longer has is an error that says
// what to do.
func (m *Manager) clientFor(ctx context.Context, set settings.Settings, ref string) (onHost, error) {
	t, err := set.Target(ref)
	if err != nil {
		return onHost{}, err
	}
	if t.URL == "" {
		return onHost{client: m.model}, nil
	}
	if t.Name == "" {
		if err := m.mayUse(ctx, set, t.URL); err != nil {
			return onHost{}, err
		}
	}
	return onHost{client: m.model.At(t.URL), name: t.Name}, nil
}

// ModelsOn lists the models installed at a host as the new-session dialog
// names it ("" or "local" for the local host, a Settings name, an
// address), each with its capabilities; an error names the host.
func (m *Manager) ModelsOn(ctx context.Context, host string) ([]ollama.ModelInfo, error) {
	set, err := settings.Load(ctx, m.store)
	if err != nil {
		return nil, err
	}
	ref, err := m.hostRef(ctx, host)
	if err != nil {
		return nil, err
	}
	h, err := m.clientFor(ctx, set, ref)
	if err != nil {
		return nil, err
	}
	models, err := h.client.Models(ctx)
	return models, h.wrap(err)
}

// model is what the run's loop talks to: the client, with its errors
// naming the host when the host has a name (a mid-run failure on gpu-box
// says so, not only its address).
func (h onHost) model() agent.Model {
	if h.name == "" {
		return h.client
	}
	return namedModel{h}
}

type namedModel struct{ h onHost }

func (n namedModel) Chat(ctx context.Context, req llm.Request, onChunk func(llm.Chunk)) (llm.Response, error) {
	resp, err := n.h.client.Chat(ctx, req, onChunk)
	if err != nil && ctx.Err() == nil {
		err = n.h.wrap(err)
	}
	return resp, err
}
