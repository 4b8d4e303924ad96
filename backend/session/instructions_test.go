package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/ollama/ollamatest"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
)

// instructionsRun runs one session in ws against a fake server and returns
// the body the server got, the request as the log has it, and the
// notices of the run.
func instructionsRun(t *testing.T, ws string) (body []byte, mr trace.ModelRequest, notices []trace.Notice) {
	t.Helper()
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.ModelSpec{Name: testModel, ContextLength: 65536})
	srv.Script(ollamatest.Text("ok"))
	st := tempStore(t)
	if err := settings.Save(context.Background(), st, settings.Defaults()); err != nil {
		t.Fatal(err)
	}
	m := session.NewManager(st, ollama.New(srv.URL(), nil), permission.NewBroker(), nil)
	t.Cleanup(m.StopAll)
	sum, err := m.Create(context.Background(), ws, testModel)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Run(context.Background(), sum.ID, "hi", session.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()
	if len(got) != 1 {
		t.Fatalf("%d chat requests, want 1", len(got))
	}
	reqs := requestsOf(t, st, sum.ID)
	evs, _ := st.Events(context.Background(), sum.ID)
	for _, e := range evs {
		if e.Kind == trace.KindNotice {
			n, _ := trace.Decode[trace.Notice](e)
			notices = append(notices, n)
		}
	}
	return got[0].Body, reqs[0], notices
}

// sentSystem is the system message of a request body as the server read it.
func sentSystem(t *testing.T, body []byte) string {
	t.Helper()
	var req struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) == 0 || req.Messages[0].Role != "system" {
		t.Fatalf("no system message in %s", body)
	}
	return req.Messages[0].Content
}

// The workspace's AGENTS.md reaches the model: its text is in the system
// message of the body the server received, between delimiters that name
// the file, and the request in the log says where that part sits.
func TestAgentsFileReachesTheModel(t *testing.T) {
	ws := fixedLengthDir(t)
	const notes = "Run `make check` before you answer.\nThe code lives in src/ — never touch vendor/."
	if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte(notes+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	body, mr, notices := instructionsRun(t, ws)
	sys := sentSystem(t, body)
	if !strings.Contains(sys, "<project_instructions source=\"AGENTS.md\">\n") || !strings.Contains(sys, notes+"\n</project_instructions>") {
		t.Fatalf("the system message sent does not hold AGENTS.md, delimited:\n%s", sys)
	}
	if !bytes.Contains(body, []byte("never touch vendor/.")) {
		t.Error("the raw body does not hold the file's text")
	}
	in := mr.Instructions
	if in == nil || in.Source != "AGENTS.md" || in.Cut || in.Bytes != len(notes)+1 {
		t.Fatalf("the request records %+v", in)
	}
	part := mr.System[in.Start : in.Start+in.Len]
	if !strings.HasPrefix(part, "<project_instructions") || !strings.HasSuffix(part, "</project_instructions>") || !strings.Contains(part, notes) {
		t.Errorf("the recorded part is %q", part)
	}
	if mr.System != sys {
		t.Error("the log's system prompt differs from the one sent")
	}
	if len(notices) != 0 {
		t.Errorf("notices %+v, want none", notices)
	}
}

// Without AGENTS.md the system prompt is the settings' alone, with no part.
func TestNoAgentsFileNoPart(t *testing.T) {
	ws := fixedLengthDir(t)
	body, mr, _ := instructionsRun(t, ws)
	want, _ := settings.Defaults().PromptFor(ws)
	if got := sentSystem(t, body); got != want || mr.Instructions != nil {
		t.Errorf("sent %q with part %+v, want the settings' prompt alone", got, mr.Instructions)
	}
}

// A huge AGENTS.md is cut at session.MaxInstructions, the prompt says so,
// and a notice tells the user; the request stays small.
func TestHugeAgentsFileIsCut(t *testing.T) {
	ws := fixedLengthDir(t)
	big := strings.Repeat("Use tabs, not spaces. ", 10000) // about 220 KB
	if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	body, mr, notices := instructionsRun(t, ws)
	sys := sentSystem(t, body)
	if !strings.Contains(sys, "[AGENTS.md is 220000 bytes; only its first 32768 are given here.]\n</project_instructions>") {
		t.Errorf("the prompt does not say it was cut:\n%s", sys[len(sys)-300:])
	}
	if len(body) > session.MaxInstructions+8<<10 {
		t.Errorf("the body is %d bytes: the file was not cut", len(body))
	}
	if in := mr.Instructions; in == nil || !in.Cut || in.Bytes != 220000 {
		t.Errorf("the request records %+v", in)
	}
	if len(notices) != 1 || notices[0].Code != "instructions_cut" || !strings.Contains(notices[0].Message, "215 KB") {
		t.Errorf("notices %+v, want one that it was cut", notices)
	}
}

// An AGENTS.md that cannot be read (a folder, a link out of the
// workspace, a file that is not text) is left out: the run goes on, and a notice says why and what
// to do.
func TestUnreadableAgentsFileIsLeftOut(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("SECRET NOTES"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, make := range map[string]func(path string) error{
		"folder":  func(p string) error { return os.Mkdir(p, 0o755) },
		"outside": func(p string) error { return os.Symlink(outside, p) },
		// An image or an archive saved under the name: its bytes would
		// reach the model as thousands of replacement characters.
		"binary": func(p string) error {
			return os.WriteFile(p, []byte("SECRET\x00\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			ws := fixedLengthDir(t)
			if err := make(filepath.Join(ws, "AGENTS.md")); err != nil {
				t.Fatal(err)
			}
			body, mr, notices := instructionsRun(t, ws)
			if mr.Instructions != nil || strings.Contains(sentSystem(t, body), "project_instructions") || bytes.Contains(body, []byte("SECRET")) {
				t.Errorf("an unreadable AGENTS.md was sent: %+v", mr.Instructions)
			}
			if len(notices) != 1 || notices[0].Code != "instructions_unreadable" || !strings.Contains(notices[0].Message, "AGENTS.md") {
				t.Errorf("notices %+v, want one saying AGENTS.md could not be read", notices)
			}
		})
	}
}
