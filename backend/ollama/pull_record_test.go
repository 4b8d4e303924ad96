package ollama_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/testkit/golden"
)

var update = flag.Bool("update", false, "rewrite frontend/src/lib/replay/pulls.json")

// pullsFile is where the window's specs read what a pull sends: the
// progress Pull makes of the fake's stream, and how it ends.
const pullsFile = "../../frontend/src/lib/replay/pulls.json"

// recordedPull is one pull as the window receives it: each progress (the
// loupe:pull channel), then the model installed or the error PullModel
// rejects with.
type recordedPull struct {
	Name     string                `json:"name"`
	Progress []ollama.PullProgress `json:"progress"`
	Model    *ollama.ModelInfo     `json:"model,omitempty"`
	Error    string                `json:"error,omitempty"`
}

// The pulls the UI's specs play, made by the client from the fake's
// stream: one that installs a model of two layers, one without a network,
// one of a name the registry does not have. Regenerate with
// go test ./backend/ollama -run PullRecording -update.
func TestPullRecordingForTheUI(t *testing.T) {
	srv := ollamatest.New(t)
	srv.AddPullable(ollamatest.Pullable{
		Model:  ollamatest.ModelSpec{Name: "qwen3:8b", Family: "qwen3", ContextLength: 40960, Size: 5_225_374_208, ParameterSize: "8.2B", Capabilities: []string{"completion", "tools", "thinking"}},
		Layers: []int64{5_225_362_784, 11_424},
	})
	c := ollama.New(srv.URL(), nil)
	record := func(name string) recordedPull {
		r := recordedPull{Name: name, Progress: []ollama.PullProgress{}}
		err := c.Pull(context.Background(), name, func(p ollama.PullProgress) { r.Progress = append(r.Progress, p) })
		if err != nil {
			r.Error = err.Error()
			return r
		}
		m, err := c.Show(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		for _, lm := range mustModels(t, c) {
			if lm.Name == name {
				m = lm
			}
		}
		r.Model = &m
		return r
	}
	installs := record("qwen3:8b")
	missing := record("no-such-model")
	srv.SetOffline(true)
	offline := record("llama3.2")
	if installs.Model == nil || offline.Error == "" || missing.Error == "" {
		t.Fatalf("the pulls did not end as meant: %+v %+v %+v", installs, offline, missing)
	}
	b, err := json.MarshalIndent(map[string]recordedPull{"installs": installs, "offline": offline, "missing": missing}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// The fake's port changes from run to run; the window sees Ollama's.
	b = bytes.ReplaceAll(b, []byte(srv.URL()), []byte(ollama.DefaultHost))
	golden.Check(t, pullsFile, append(b, '\n'), *update, "go test ./backend/ollama -run PullRecording -update")
}

func mustModels(t *testing.T, c *ollama.Client) []ollama.ModelInfo {
	t.Helper()
	ms, err := c.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ms
}
