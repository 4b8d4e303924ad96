package ollama

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"
)

// PullProgress is how far a pull has come, added up over the model's
// layers: Ollama reports each layer (blob) on its own, one after the other,
// and the window and `loupe pull` show one bar.
type PullProgress struct {
	Model string `json:"model"`
	// Status is Ollama's word for the step: "pulling manifest", "pulling
	// 6a0746a1ec1a" (a layer), "verifying sha256 digest", "writing
	// manifest", "success".
	Status string `json:"status"`
	// Completed and Total are bytes, over the layers Ollama has named so
	// far: the weights come first and are nearly all of a model, so the
	// total hardly grows after them.
	Completed int64 `json:"completed"`
	Total     int64 `json:"total"`
	// Percent is Completed of Total, 0 to 99 until the pull is done, then
	// 100 (0 while Total is unknown).
	Percent int `json:"percent"`
	// Done: the model is installed.
	Done bool `json:"done"`
}

// pullTally adds up the layers' progress lines.
type pullTally struct {
	model  string
	order  []string
	layers map[string][2]int64 // digest → completed, total
}

func (t *pullTally) add(r api.ProgressResponse) PullProgress {
	if r.Digest != "" {
		if _, ok := t.layers[r.Digest]; !ok {
			t.order = append(t.order, r.Digest)
		}
		t.layers[r.Digest] = [2]int64{r.Completed, r.Total}
	} else if len(t.layers) > 0 {
		// Past the layers (verifying, writing the manifest): every one is
		// whole. Ollama's last line for a layer comes from a timer and may
		// fall short of its total.
		for d, l := range t.layers {
			t.layers[d] = [2]int64{l[1], l[1]}
		}
	}
	p := PullProgress{Model: t.model, Status: r.Status, Done: r.Status == "success"}
	for _, d := range t.order {
		l := t.layers[d]
		p.Completed += min(l[0], l[1])
		p.Total += l[1]
	}
	if p.Total > 0 {
		// 100 only once Ollama says success: a layer done is not the pull
		// done, and the next layer would take the bar back.
		p.Percent = min(int(p.Completed*100/p.Total), 99)
	}
	if p.Done {
		p.Percent = 100
	}
	return p
}

// Pull downloads model name into Ollama, calling progress (if not nil)
// for each line Ollama streams, from the goroutine that called Pull. It
// returns once the model is installed, or with ctx's error when ctx is
// cancelled: the stream is closed, Ollama stops, and the model is not
// listed (Ollama writes its manifest only at the end). Failures are
// typed: *PullNetworkError, *PullNotFoundError, else the client's errors.
func (c *Client) Pull(ctx context.Context, name string, progress func(PullProgress)) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return errors.New("name the model to pull, e.g. qwen3 or qwen3:8b (see https://ollama.com/library)")
	}
	ep := c.at()
	t := &pullTally{model: name, layers: map[string][2]int64{}}
	var done bool
	err := ep.api.Pull(ctx, &api.PullRequest{Model: name}, func(r api.ProgressResponse) error {
		p := t.add(r)
		done = done || p.Done
		if progress != nil {
			progress(p)
		}
		return nil
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return ep.pullError(err, name)
	}
	if !done {
		return &StreamError{Cut: true, Err: fmt.Errorf("the pull of %s ended before Ollama said success", name)}
	}
	return nil
}

// PullNetworkError means Ollama could not reach the model registry: the
// machine (or the one Ollama runs on) has no network, or no name
// resolution. Message is Ollama's own words.
type PullNetworkError struct {
	Model   string
	Host    string
	Message string
}

func (e *PullNetworkError) Error() string {
	return fmt.Sprintf("could not pull %s: Ollama at %s cannot reach the model registry — check that the machine it runs on is online (Ollama said: %s)", e.Model, e.Host, e.Message)
}

// PullNotFoundError means the registry has no model of that name or tag.
type PullNotFoundError struct {
	Model string
}

func (e *PullNotFoundError) Error() string {
	return fmt.Sprintf("there is no model %q to pull — check the name and tag at https://ollama.com/library (e.g. qwen3 or qwen3:8b)", e.Model)
}

// pullError classifies what Ollama's pull failed with. Once the stream has
// begun, Ollama sends its failure as an {"error": ...} line, which the api
// client returns as a plain error with that text.
func (ep *endpoint) pullError(err error, name string) error {
	var se api.StatusError
	if errors.As(err, &se) {
		if se.StatusCode == http.StatusBadRequest && strings.Contains(se.ErrorMessage, "invalid model name") {
			return fmt.Errorf("%q is not a model name Ollama can pull — names look like qwen3, qwen3:8b or user/model:tag", name)
		}
		return ep.classify(err, "")
	}
	if c := ep.classify(err, ""); !isPlain(c) {
		return c
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "file does not exist"):
		return &PullNotFoundError{Model: name}
	case isNetworkWords(msg):
		return &PullNetworkError{Model: name, Host: ep.host, Message: msg}
	}
	return fmt.Errorf("could not pull %s: Ollama said: %s", name, msg)
}

// isPlain reports whether classify found nothing more to say than the
// error's own text.
func isPlain(err error) bool {
	var (
		u *UnreachableError
		s *StatusError
		t *StreamError
	)
	return !errors.As(err, &u) && !errors.As(err, &s) && !errors.As(err, &t)
}

// isNetworkWords tells the errors Go's net and HTTP packages give Ollama
// when it cannot reach the registry (server/images.go makeRequest returns
// them as they are, after "pull model manifest: " or from a blob's
// download).
func isNetworkWords(msg string) bool {
	for _, w := range []string{
		"no such host", "server misbehaving", "network is unreachable", "no route to host",
		"dial tcp", "i/o timeout", "connection refused", "connection reset",
		"TLS handshake timeout", "temporary failure in name resolution",
	} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// Delete removes an installed model and the blobs only it used.
func (c *Client) Delete(ctx context.Context, name string) error {
	return c.at().short(ctx, "DELETE /api/delete", name, func(ctx context.Context, a *api.Client) error {
		return a.Delete(ctx, &api.DeleteRequest{Model: name})
	})
}
