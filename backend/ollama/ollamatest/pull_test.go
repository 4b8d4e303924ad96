package ollamatest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The bytes of /api/pull and /api/delete, as Ollama v0.17.4 writes them:
// the lines below are what its PullHandler streams (api.ProgressResponse
// with omitempty digest, total and completed), and its error after the
// first line without a network is what the real server answers on a
// machine without one (seen with the real tier's server).

func TestPullStreamsOllamasLines(t *testing.T) {
	s := New(t)
	s.AddPullable(Pullable{Model: ModelSpec{Name: "tiny"}, Layers: []int64{400, 8}})
	resp := post(t, s.URL(), "/api/pull", `{"model":"tiny"}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	b, _ := io.ReadAll(resp.Body)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if lines[0] != `{"status":"pulling manifest"}` {
		t.Errorf("first line %s", lines[0])
	}
	// A layer's first line has no completed bytes (omitempty 0), then they grow.
	if !strings.HasPrefix(lines[1], `{"status":"pulling `) || !strings.Contains(lines[1], `"digest":"sha256:`) || !strings.HasSuffix(lines[1], `,"total":400}`) {
		t.Errorf("first layer line %s", lines[1])
	}
	if lines[5] != strings.Replace(lines[1], `"total":400}`, `"total":400,"completed":400}`, 1) {
		t.Errorf("last line of the first layer %s", lines[5])
	}
	tail := strings.Join(lines[len(lines)-3:], "\n")
	if tail != `{"status":"verifying sha256 digest"}`+"\n"+`{"status":"writing manifest"}`+"\n"+`{"status":"success"}` {
		t.Errorf("the end of the stream:\n%s", tail)
	}
	if len(lines) != 1+2*(PullSteps+1)+3 {
		t.Errorf("%d lines", len(lines))
	}
	if _, ok := s.lookup("tiny"); !ok {
		t.Error("tiny is not installed after the pull")
	}
}

func TestPullFailuresAreOllamas(t *testing.T) {
	s := New(t)
	for _, tt := range []struct{ body, status, want string }{
		{`{"model":"nothing"}`, "200", `{"status":"pulling manifest"}` + "\n" + `{"error":"pull model manifest: file does not exist"}` + "\n"},
		{`{"model":"a/b/c/d"}`, "400", `{"error":"invalid model name"}`},
		{``, "400", `{"error":"missing request body"}`},
	} {
		resp := post(t, s.URL(), "/api/pull", tt.body)
		b, _ := io.ReadAll(resp.Body)
		if got := http.StatusText(resp.StatusCode); resp.Status[:3] != tt.status || string(b) != tt.want {
			t.Errorf("pull %s: %s (%s) %q, want %s %q", tt.body, resp.Status, got, b, tt.status, tt.want)
		}
	}
	s.SetOffline(true)
	resp := post(t, s.URL(), "/api/pull", `{"model":"hf.co/org/repo:Q4_K_M"}`)
	b, _ := io.ReadAll(resp.Body)
	want := `{"status":"pulling manifest"}` + "\n" +
		`{"error":"pull model manifest: Get \"https://hf.co/v2/org/repo/manifests/Q4_K_M\": dial tcp: lookup hf.co on 127.0.0.53:53: no such host"}` + "\n"
	if resp.StatusCode != 200 || string(b) != want {
		t.Errorf("offline: %d %q\nwant %q", resp.StatusCode, b, want)
	}
}

func TestDeleteAnswersAsOllamaDoes(t *testing.T) {
	s := New(t)
	s.AddModel(ModelSpec{Name: "tiny"})
	del := func(body string) (int, string) {
		req, _ := http.NewRequest(http.MethodDelete, s.URL()+"/api/delete", strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := del(`{"model":"tiny"}`); code != 200 || body != "" {
		t.Errorf("delete: %d %q", code, body)
	}
	if code, body := del(`{"model":"tiny"}`); code != 404 || body != `{"error":"model 'tiny' not found"}` {
		t.Errorf("delete again: %d %q", code, body)
	}
}

func TestScriptFileHoldsPulls(t *testing.T) {
	s := New(t)
	s.Load(ScriptFile{Models: []ModelSpec{{Name: "a"}}, Pullable: []Pullable{{Model: ModelSpec{Name: "b"}}}, Offline: true})
	resp := post(t, s.URL(), "/api/pull", `{"model":"b"}`)
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), "no such host") {
		t.Errorf("an offline script pulled: %s", b)
	}
}
