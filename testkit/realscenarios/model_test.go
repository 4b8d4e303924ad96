package realscenarios_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/realollama"
)

// Why these tests do not use realollama.Server.CreateModel as it is.
//
// A scripted model's vocabulary is mostly byte tokens, so a prompt costs
// about one token per byte, and this tiny model's prompt evaluation on the
// CPU is slow per token at long positions (measured here: 8,018 prompt
// tokens took 39 s cold, on 2 shared cores). gguf.Script.Template prints
// every tool schema into the system prompt, as Qwen's template does, and
// Loupe's seven built-in tools are about 7 KB of JSON, so every scenario
// would spend most of a minute in prompt evaluation.
//
// compactTemplate prints only the tools' names instead. Everything else is
// the same: the template still uses .Tools (so /api/show lists "tools"),
// keeps the <tool_call> branch that Ollama's parser takes its tag from, and
// the request still carries the full schemas, which Ollama decodes and
// matches calls against. The model ignores what its prompt says anyway.
func compactTemplate(t testing.TB, sc gguf.Script) string {
	t.Helper()
	tmpl := sc.Template()
	if sc.NoTools {
		return tmpl
	}
	const full, compact = "{{ json . }}", "{{ .Function.Name }}"
	if strings.Count(tmpl, full) != 1 {
		t.Fatalf("gguf.Script.Template no longer prints each tool with %q once; update compactTemplate:\n%s", full, tmpl)
	}
	return strings.Replace(tmpl, full, compact, 1)
}

// createModel creates model name on srv from sc, with compactTemplate. It
// does what realollama.Server.CreateModel does: upload the GGUF as a blob,
// then /api/create with the template and parameters.
func createModel(t testing.TB, srv *realollama.Server, name string, sc gguf.Script) {
	t.Helper()
	var model bytes.Buffer
	if err := gguf.Write(&model, sc); err != nil {
		t.Fatalf("model %s: %v", name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sum := sha256.Sum256(model.Bytes())
	digest := "sha256:" + hex.EncodeToString(sum[:])
	if _, err := post(ctx, srv.URL()+"/api/blobs/"+digest, "application/octet-stream", model.Bytes()); err != nil {
		t.Fatalf("upload model %s: %v", name, err)
	}
	stream := false
	req, _ := json.Marshal(map[string]any{
		"model":      name,
		"files":      map[string]string{"model.gguf": digest},
		"template":   compactTemplate(t, sc),
		"parameters": sc.Parameters(),
		"stream":     &stream,
	})
	body, err := post(ctx, srv.URL()+"/api/create", "application/json", req)
	if err != nil {
		t.Fatalf("create model %s: %v", name, err)
	}
	var status struct{ Status string }
	if err := json.Unmarshal(body, &status); err != nil || status.Status != "success" {
		t.Fatalf("create model %s: unexpected answer %s", name, body)
	}
}

func post(ctx context.Context, url, contentType string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return out, fmt.Errorf("%s: %s: %s", url, resp.Status, bytes.TrimSpace(out))
	}
	return out, nil
}
