package ollama

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// Pulls are the pulls under way in one window: at most one per model
// name, each cancellable by name from another call (the window's Cancel
// button) while Pull runs.
type Pulls struct {
	mu     sync.Mutex
	cancel map[string]context.CancelFunc
}

// Run pulls name with c as Pull does, cancelled by ctx or by Cancel(name).
// A second pull of a name already being pulled is refused.
func (p *Pulls) Run(ctx context.Context, c *Client, name string, progress func(PullProgress)) error {
	name = strings.TrimSpace(name)
	key := pullKey(name)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p.mu.Lock()
	if p.cancel == nil {
		p.cancel = map[string]context.CancelFunc{}
	}
	if _, busy := p.cancel[key]; busy {
		p.mu.Unlock()
		return fmt.Errorf("%s is already being pulled", name)
	}
	p.cancel[key] = cancel
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.cancel, key)
		p.mu.Unlock()
	}()
	return c.Pull(ctx, name, progress)
}

// Cancel stops the pull of name, and reports whether one was under way.
func (p *Pulls) Cancel(name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	cancel, ok := p.cancel[pullKey(name)]
	if ok {
		cancel()
	}
	return ok
}

// CancelAll stops every pull under way (the window is closing).
func (p *Pulls) CancelAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cancel := range p.cancel {
		cancel()
	}
}

// pullKey is a name as Ollama matches it: without case, ":latest" when no
// tag is given.
func pullKey(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndex(name, ":"); i < 0 || strings.Contains(name[i:], "/") {
		name += ":latest"
	}
	return name
}
