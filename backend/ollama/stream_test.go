package ollama

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
)

func TestLineReaderSplitsAsScanLines(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name, in string
	}{
		{"empty", ""},
		{"one line", "a\n"},
		{"last line without newline", "a\nb"},
		{"crlf", "a\r\nb\r\n"},
		{"blank lines", "\n\na\n\n"},
		{"lines longer than the buffer", long + "\n" + long + long + "\r\n" + long},
		{"a line as long as the buffer", strings.Repeat("y", 16) + "\n" + strings.Repeat("z", 15) + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []string
			sc := bufio.NewScanner(strings.NewReader(tt.in))
			for sc.Scan() {
				want = append(want, sc.Text())
			}
			// A 16-byte buffer and reads of one byte at a time, so lines
			// cross both.
			lr := &lineReader{r: bufio.NewReaderSize(iotest.OneByteReader(strings.NewReader(tt.in)), 16), max: 1000}
			var got []string
			for {
				line, err := lr.next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("next: %v", err)
				}
				got = append(got, string(line))
			}
			if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
				t.Errorf("lines = %q, want %q", got, want)
			}
		})
	}
}

func TestLineReaderBoundsALine(t *testing.T) {
	for _, tt := range []struct {
		in      string
		wantErr error
	}{
		{strings.Repeat("x", 64) + "\n", nil},
		{strings.Repeat("x", 64) + "\r\n", nil},
		{strings.Repeat("x", 64), nil},
		{strings.Repeat("x", 65) + "\n", errLineTooLong},
		{strings.Repeat("x", 65), errLineTooLong},
		{strings.Repeat("x", 10_000) + "\n", errLineTooLong},
	} {
		lr := &lineReader{r: bufio.NewReaderSize(strings.NewReader(tt.in), 16), max: 64}
		line, err := lr.next()
		if err != tt.wantErr {
			t.Errorf("%d bytes: err = %v, want %v", len(tt.in), err, tt.wantErr)
		}
		if err == nil && string(line) != strings.Repeat("x", 64) {
			t.Errorf("%d bytes: line = %q", len(tt.in), line)
		}
		if tt.wantErr != nil && cap(lr.long) > 1000 {
			// It stops reading soon after max, not at the end of the line.
			t.Errorf("%d bytes: buffered %d bytes", len(tt.in), cap(lr.long))
		}
	}
}

func TestLineReaderDropsLineCutByError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("whole\nhal"), iotest.ErrReader(boom))
	lr := &lineReader{r: bufio.NewReaderSize(r, 16), max: 100}
	if line, err := lr.next(); err != nil || string(line) != "whole" {
		t.Fatalf("first = %q, %v", line, err)
	}
	if line, err := lr.next(); err != boom {
		t.Errorf("second = %q, %v; want the read error", line, err)
	}
}

// TestChatMatchesAPIClient holds Chat to what the api.Client path did, on
// answers as a server or a proxy might write them: the same headers and
// body sent, the same partial answer kept, the same error with the same
// message.
func TestChatMatchesAPIClient(t *testing.T) {
	ok := `{"model":"m","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"ok "},"done":false}`
	done := `{"model":"m","created_at":"2026-01-01T00:00:01Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":3}`
	big := `{"model":"m","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"` + strings.Repeat("long ", 40_000) + `"},"done":false}`
	tests := []struct {
		name   string
		status int
		body   string
	}{
		{"answer", 200, ok + "\n" + ok + "\n" + done + "\n"},
		{"crlf", 200, ok + "\r\n" + done + "\r\n"},
		{"last line without newline", 200, ok + "\n" + done},
		{"line longer than the read buffer", 200, big + "\n" + done + "\n"},
		{"lines after done", 200, ok + "\n" + done + "\n" + ok + "\n"},
		{"empty body", 200, ""},
		{"no done", 200, ok + "\n"},
		{"blank line", 200, ok + "\n\n" + done + "\n"},
		{"error line", 200, ok + "\n" + `{"error":"CUDA error"}` + "\n"},
		{"error line first", 200, `{"error":"out of memory"}` + "\n"},
		{"not JSON", 200, ok + "\n<html>bad gateway</html>\n"},
		{"JSON but not an object", 200, ok + "\n" + `"just a string"` + "\n"},
		{"error that is not a string", 200, ok + "\n" + `{"error":{"code":1}}` + "\n"},
		{"field of the wrong type", 200, ok + "\n" + `{"message":"text","done":false}` + "\n"},
		{"500 JSON", 500, `{"error":"llama runner process has terminated"}`},
		{"500 several lines", 500, "first line\nsecond line\n"},
		{"500 JSON without error", 500, `{"detail":"x"}`},
		{"500 empty", 500, ""},
		{"400 tools", 400, `{"error":"registry.ollama.ai/library/m:latest does not support tools"}`},
		{"401 JSON", 401, `{"error":"sign in to use this model","signin_url":"https://ollama.com/connect"}`},
		{"401 not JSON", 401, "go away"},
		{"401 empty", 401, ""},
		{"404 model", 404, `{"error":"model 'm' not found"}`},
		{"404 page", 404, "404 page not found\n"},
		{"503 busy", 503, `{"error":"server busy, please try again.  maximum pending requests exceeded"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				mu     sync.Mutex
				seen   []*http.Request
				bodies [][]byte
			)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				seen, bodies = append(seen, r), append(bodies, b)
				mu.Unlock()
				w.Header().Set("Content-Type", "application/x-ndjson")
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, Options: llm.Options{NumCtx: 2048}}

			var oldChunks, newChunks int
			oldResp, oldErr := newAPIClientChat(srv.URL).Chat(context.Background(), req, func(llm.Chunk) { oldChunks++ })
			newResp, newErr := New(srv.URL, nil).Chat(context.Background(), req, func(llm.Chunk) { newChunks++ })

			mu.Lock()
			defer mu.Unlock()
			if len(seen) != 2 {
				t.Fatalf("%d requests", len(seen))
			}
			if !bytes.Equal(bodies[0], bodies[1]) || seen[0].URL.String() != seen[1].URL.String() {
				t.Errorf("requests differ:\nold %s %s\nnew %s %s", seen[0].URL, bodies[0], seen[1].URL, bodies[1])
			}
			for _, h := range []string{"Content-Type", "Accept", "User-Agent", "Authorization"} {
				if o, n := seen[0].Header.Get(h), seen[1].Header.Get(h); o != n {
					t.Errorf("header %s = %q, api.Client sent %q", h, n, o)
				}
			}

			if describe(newErr) != describe(oldErr) {
				t.Errorf("error:\n got  %s\n want %s", describe(newErr), describe(oldErr))
			}
			if newResp.Done != oldResp.Done || newResp.Chunks != oldResp.Chunks || newResp.Message.Content != oldResp.Message.Content ||
				newResp.Metrics.EvalCount != oldResp.Metrics.EvalCount || !bytes.Equal(newResp.Raw, oldResp.Raw) || newChunks != oldChunks {
				t.Errorf("response: done %v, %d lines, %d deltas, %d bytes, raw %.100s; api.Client path: done %v, %d lines, %d deltas, %d bytes, raw %.100s",
					newResp.Done, newResp.Chunks, newChunks, len(newResp.Message.Content), newResp.Raw,
					oldResp.Done, oldResp.Chunks, oldChunks, len(oldResp.Message.Content), oldResp.Raw)
			}
		})
	}
}

// describe is an error's type, typed fields and message; a StreamError's
// cause is left out, since Chat now keeps one where api.Client had none.
func describe(err error) string {
	var (
		se *StatusError
		st *StreamError
		nf *ModelNotFoundError
	)
	switch {
	case err == nil:
		return "<nil>"
	case errors.As(err, &se):
		return "StatusError " + http.StatusText(se.Code) + " " + strings.TrimSpace(se.Message) + ": " + err.Error()
	case errors.As(err, &st):
		cut := map[bool]string{true: "cut", false: "not cut"}[st.Cut]
		ended := map[bool]string{true: " ended", false: ""}[st.Ended]
		return "StreamError " + cut + ended + " " + st.Message + ": " + err.Error()
	case errors.As(err, &nf):
		return "ModelNotFoundError " + nf.Model + ": " + err.Error()
	}
	return "other: " + err.Error()
}

func TestChatReadsLinesLongerThanAPIClientDid(t *testing.T) {
	// One line of 9 MB: api.Client stopped at 8 MB and the answer looked
	// cut; Chat reads up to maxLineSize.
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.ModelSpec{Name: "m", Capabilities: []string{"completion", "tools"}})
	content := strings.Repeat("0123456789abcdef", 9<<20/16)
	srv.Script(ollamatest.Reply{
		Chunks:    []ollamatest.Chunk{{Content: "Writing."}},
		ToolCalls: []ollamatest.Call{{ID: "call_1", Name: "write_file", Args: `{"path":"big.txt","content":"` + content + `"}`}},
	})
	req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "write"}}, Options: llm.Options{NumCtx: 2048}}
	resp, err := New(srv.URL(), nil).Chat(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Complete() || len(resp.Message.ToolCalls) != 1 || !bytes.Contains(resp.Message.ToolCalls[0].Args, []byte(content)) {
		t.Errorf("complete %v, %d tool calls", resp.Complete(), len(resp.Message.ToolCalls))
	}
}

func TestChatLineTooLong(t *testing.T) {
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.ModelSpec{Name: "m"})
	huge := `{"model":"m","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"` + strings.Repeat("x", maxLineSize) + `"},"done":false}`
	srv.Script(ollamatest.Reply{RawLines: []string{
		`{"model":"m","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"before"},"done":false}`,
		huge,
	}})
	req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}, Options: llm.Options{NumCtx: 2048}}
	resp, err := New(srv.URL(), nil).Chat(context.Background(), req, nil)
	var se *StreamError
	if !errors.As(err, &se) || se.Cut || !errors.Is(err, errLineTooLong) {
		t.Fatalf("err = %#v, want a StreamError for the long line", err)
	}
	if want := "Ollama failed while answering: a line of the answer is longer than 16 MB, more than Loupe reads — the partial answer is kept; try again"; err.Error() != want {
		t.Errorf("message = %q, want %q", err, want)
	}
	if resp.Done || resp.Message.Content != "before" {
		t.Errorf("partial = done %v %q", resp.Done, resp.Message.Content)
	}
}

// A timer that fires long after it was due says the process did not run
// meanwhile (Ctrl-Z): the bytes that came in then are waiting to be read,
// so the reader gets a moment before the stall bound is called run out.
// If nothing comes in that moment either, it is.
func TestWatchdogGivesAStoppedProcessAMomentToRead(t *testing.T) {
	var cause error
	w := watch(Timeouts{Stall: 50 * time.Millisecond}, "m", func(err error) { cause = err })
	defer w.stop()
	w.progress()
	late := func() {
		w.mu.Lock()
		w.last = time.Now().Add(-10 * time.Second)
		w.due = time.Now().Add(-5 * time.Second)
		w.mu.Unlock()
	}
	late()
	w.check()
	if w.expired() != nil || cause != nil {
		t.Fatal("a late timer ended the request before the reader had a moment")
	}
	w.progress() // the waiting bytes are read
	late()
	w.check()
	if w.expired() != nil {
		t.Fatal("after new bytes a late timer gets a moment again")
	}
	// The moment passes with nothing read: the bound ran out.
	w.mu.Lock()
	w.last, w.due = time.Now().Add(-10*time.Second), time.Now()
	w.mu.Unlock()
	w.check()
	if te := w.expired(); te == nil || !te.Stall {
		t.Fatalf("no stall after the moment: %v", te)
	}
}
