package ollamatest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// /api/ps in Ollama's bytes: nothing before a chat; after one, the model
// with the context it was loaded with (capped by the model's own), in
// api.ProcessModelResponse's field order; a reload for another num_ctx
// replaces it; Unload empties it.
func TestPsWireFormat(t *testing.T) {
	s := newWithModel(t)
	fixed := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	s.SetClock(func() time.Time { return fixed })
	get := func() string {
		t.Helper()
		resp, err := http.Get(s.URL() + "/api/ps")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
			t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		return string(b)
	}
	chat := func(numCtx int) {
		t.Helper()
		s.Script(Text("hi"))
		io.ReadAll(post(t, s.URL(), "/api/chat", fmt.Sprintf(`{"model":"tiny","messages":[{"role":"user","content":"hi"}],"stream":false,"options":{"num_ctx":%d}}`, numCtx)).Body)
	}
	sum := sha256.Sum256([]byte("tiny:latest"))
	want := func(ctx int) string {
		return fmt.Sprintf(`{"models":[{"name":"tiny:latest","model":"tiny:latest","size":1073741824,"digest":"%s",`+
			`"details":{"parent_model":"","format":"gguf","family":"qwen3","families":["qwen3"],"parameter_size":"1B","quantization_level":"Q4_K_M"},`+
			`"expires_at":"2026-02-03T04:10:06Z","size_vram":0,"context_length":%d}]}`, hex.EncodeToString(sum[:]), ctx)
	}
	if got := get(); got != `{"models":[]}` {
		t.Errorf("before any chat: %s", got)
	}
	chat(2048)
	if got := get(); got != want(2048) {
		t.Errorf("after num_ctx 2048:\n got %s\nwant %s", got, want(2048))
	}
	// More than the model holds: Ollama loads it with the model's 4096.
	chat(65536)
	if got := get(); got != want(4096) {
		t.Errorf("after num_ctx 65536:\n got %s\nwant %s", got, want(4096))
	}
	// Past its keep-alive the model is gone.
	s.SetClock(func() time.Time { return fixed.Add(keepAlive) })
	if got := get(); got != `{"models":[]}` {
		t.Errorf("after the keep-alive: %s", got)
	}
	s.SetClock(func() time.Time { return fixed })
	chat(2048)
	s.Unload()
	if got := get(); got != `{"models":[]}` {
		t.Errorf("after Unload: %s", got)
	}
}
