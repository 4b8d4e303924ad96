package ollamatest

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestForgetRequests(t *testing.T) {
	s := newWithModel(t)
	s.Script(Text("a"), Text("b"))
	post(t, s.URL(), "/api/chat", chatBody)
	if n := len(s.Requests()); n != 1 {
		t.Fatalf("recorded %d requests, want 1", n)
	}
	s.ForgetRequests()
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("after ForgetRequests: %d requests", n)
	}
	post(t, s.URL(), "/api/chat", chatBody)
	if got := s.Requests(); len(got) != 1 || got[0].Seq != 1 {
		t.Fatalf("after a new request: %+v", got)
	}
}

// The wrapper sees each request first and can change its body.
func TestStartWrapped(t *testing.T) {
	s, err := StartWrapped("127.0.0.1:0", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/chat" {
				r.Body = io.NopCloser(strings.NewReader(chatBody))
				r.ContentLength = int64(len(chatBody))
			}
			next.ServeHTTP(w, r)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.AddModel(ModelSpec{Name: "tiny"})
	s.Script(Text("hi"))
	resp := post(t, s.URL(), "/api/chat", `{"model":"other"}`)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"content":"hi"`)) {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if got := s.Requests(); len(got) != 1 || string(got[0].Body) != chatBody {
		t.Fatalf("the fake saw %+v", got)
	}
}
