package ollama_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

func names(t *testing.T, c *ollama.Client) []string {
	t.Helper()
	ms, err := c.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

// A pull reports bytes and percent added up over the model's layers, as
// the fake streams them in Ollama's words, ends at 100% with Done, and the
// model is listed after it.
func TestPullReportsProgressOverAllLayers(t *testing.T) {
	srv := ollamatest.New(t)
	srv.AddPullable(ollamatest.Pullable{
		Model:  ollamatest.ModelSpec{Name: "qwen3:8b", ContextLength: 40960, Size: 5_000_000_300},
		Layers: []int64{5_000_000_000, 300},
	})
	c := ollama.New(srv.URL(), nil)
	var seen []ollama.PullProgress
	if err := c.Pull(context.Background(), "qwen3:8b", func(p ollama.PullProgress) { seen = append(seen, p) }); err != nil {
		t.Fatal(err)
	}
	if seen[0].Status != "pulling manifest" || seen[0].Total != 0 || seen[0].Percent != 0 {
		t.Errorf("first progress = %+v, want the manifest step with nothing known", seen[0])
	}
	var half bool
	for i, p := range seen {
		if i > 0 && p.Completed < seen[i-1].Completed {
			t.Errorf("completed went back: %d after %d", p.Completed, seen[i-1].Completed)
		}
		if p.Completed == 2_500_000_000 && p.Total == 5_000_000_000 && p.Percent == 50 {
			half = true
		}
		if !p.Done && p.Percent >= 100 {
			t.Errorf("%+v: 100%% before Ollama said success (the next layer would take it back)", p)
		}
	}
	if !half {
		t.Errorf("no progress at half the weights layer (2.5 GB of 5 GB, 50%%): %+v", seen)
	}
	last := seen[len(seen)-1]
	if !last.Done || last.Percent != 100 || last.Completed != 5_000_000_300 || last.Total != 5_000_000_300 || last.Status != "success" {
		t.Errorf("last progress = %+v, want success at 100%% of both layers", last)
	}
	if !slices.Contains(names(t, c), "qwen3:8b") {
		t.Errorf("qwen3:8b is not listed after the pull: %v", names(t, c))
	}
}

// Cancelling a pull closes the stream (the fake sees its client go away
// and stops) and leaves no model half-listed.
func TestPullCancelStopsTheStreamAndListsNothing(t *testing.T) {
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.ModelSpec{Name: "tiny"})
	srv.AddPullable(ollamatest.Pullable{Model: ollamatest.ModelSpec{Name: "big"}, Layers: []int64{1 << 30}})
	srv.SetPullDelay(100 * time.Millisecond)
	c := ollama.New(srv.URL(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []ollama.PullProgress
	start := time.Now()
	err := c.Pull(ctx, "big", func(p ollama.PullProgress) {
		seen = append(seen, p)
		if p.Completed > 0 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Pull after cancel = %v, want context.Canceled", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("cancel took %v: the stream was not closed at once", time.Since(start))
	}
	select {
	case <-srv.PullsCut("big"):
	case <-time.After(5 * time.Second):
		t.Fatal("the fake never saw the pull's client go away")
	}
	if last := seen[len(seen)-1]; last.Done || last.Percent >= 100 {
		t.Errorf("the pull was cancelled after it ended: %+v", last)
	}
	if got := names(t, c); !slices.Equal(got, []string{"tiny:latest"}) {
		t.Errorf("models after a cancelled pull = %v, want only tiny:latest", got)
	}
}

// Without a network Ollama fails after "pulling manifest" with Go's
// resolver error; Loupe says the registry cannot be reached and to check
// the connection, keeping Ollama's words.
func TestPullWithoutNetworkSaysSo(t *testing.T) {
	srv := ollamatest.New(t)
	srv.AddPullable(ollamatest.Pullable{Model: ollamatest.ModelSpec{Name: "qwen3"}})
	srv.SetOffline(true)
	c := ollama.New(srv.URL(), nil)
	err := c.Pull(context.Background(), "qwen3", nil)
	var ne *ollama.PullNetworkError
	if !errors.As(err, &ne) {
		t.Fatalf("Pull offline = %T %v, want *PullNetworkError", err, err)
	}
	for _, want := range []string{"could not pull qwen3", "cannot reach the model registry", "online", "registry.ollama.ai"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if slices.Contains(names(t, c), "qwen3:latest") {
		t.Error("a failed pull listed the model")
	}
}

func TestPullOfAnUnknownOrInvalidName(t *testing.T) {
	srv := ollamatest.New(t)
	c := ollama.New(srv.URL(), nil)
	err := c.Pull(context.Background(), "no-such-model", nil)
	var nf *ollama.PullNotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "ollama.com/library") {
		t.Errorf("unknown model: %T %v", err, err)
	}
	err = c.Pull(context.Background(), "a/b/c/d", nil)
	if err == nil || !strings.Contains(err.Error(), "not a model name") {
		t.Errorf("invalid name: %v", err)
	}
	if err := c.Pull(context.Background(), "  ", nil); err == nil {
		t.Error("an empty name was pulled")
	}
}

func TestPullWhenOllamaIsDown(t *testing.T) {
	srv := ollamatest.New(t)
	url := srv.URL()
	srv.Close()
	err := ollama.New(url, nil).Pull(context.Background(), "qwen3", nil)
	var ue *ollama.UnreachableError
	if !errors.As(err, &ue) {
		t.Errorf("Pull with Ollama down = %T %v", err, err)
	}
}

func TestDeleteRemovesTheModel(t *testing.T) {
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.ModelSpec{Name: "a"})
	srv.AddModel(ollamatest.ModelSpec{Name: "b"})
	c := ollama.New(srv.URL(), nil)
	if err := c.Delete(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	if got := names(t, c); !slices.Equal(got, []string{"b:latest"}) {
		t.Errorf("models after deleting a = %v", got)
	}
	err := c.Delete(context.Background(), "a")
	var nf *ollama.ModelNotFoundError
	if !errors.As(err, &nf) {
		t.Errorf("deleting a missing model = %T %v", err, err)
	}
}

// The window's Cancel reaches the pull by name while it runs; a second
// pull of the same model meanwhile is refused; once it is over, the name
// can be pulled again.
func TestPullsCancelByNameAndOnePullPerModel(t *testing.T) {
	srv := ollamatest.New(t)
	srv.AddPullable(ollamatest.Pullable{Model: ollamatest.ModelSpec{Name: "big"}})
	srv.SetPullDelay(50 * time.Millisecond)
	c := ollama.New(srv.URL(), nil)
	var pulls ollama.Pulls
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		var once bool
		done <- pulls.Run(context.Background(), c, "big", func(ollama.PullProgress) {
			if !once {
				once = true
				close(started)
			}
		})
	}()
	<-started
	if err := pulls.Run(context.Background(), c, "BIG:latest", nil); err == nil || !strings.Contains(err.Error(), "already being pulled") {
		t.Errorf("a second pull of the same model: %v", err)
	}
	if !pulls.Cancel("big:latest") {
		t.Fatal("Cancel found no pull")
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled pull returned %v", err)
	}
	if pulls.Cancel("big") {
		t.Error("Cancel found a pull that is over")
	}
	srv.SetPullDelay(0)
	if err := pulls.Run(context.Background(), c, "big", nil); err != nil {
		t.Errorf("pulling again after a cancel: %v", err)
	}
	if !slices.Contains(names(t, c), "big:latest") {
		t.Error("not installed after the second pull")
	}
}
