package session_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/backend/agent"
	"github.com/loupe-dev/loupe/backend/session"
)

// Every kind of command goes to JSON and back as itself, with "do" first:
// the window's JSON and the Go value are one command.
func TestEveryCommandKindReadsBackAsItself(t *testing.T) {
	tools := []string{"read_file"}
	system := "be brief"
	all := []session.Command{
		session.Create{Workspace: "/w", Model: "m", Host: "gpu", Tools: &tools}, session.Demo{}, session.Delete{Session: "s"},
		session.SetModel{Session: "s", Model: "m"}, session.SetTools{Session: "s", Tools: &tools}, session.Send{Session: "s", Text: "hi"},
		session.Stop{Session: "s"}, session.StopCall{Session: "s", CallID: "c"}, session.Answer{Session: "s", CallID: "c", Allow: true, Scope: "once"},
		session.SetStepping{Session: "s", On: true}, session.SetBreakpoints{Session: "s", Breakpoints: &session.Breakpoints{Points: []string{"before_tool"}, Tools: []string{}}},
		session.Step{Session: "s", At: 2}, session.Continue{Session: "s", At: 2},
		session.EditRequest{Session: "s", At: 2, Request: &agent.RequestEdit{System: &system}},
		session.EditArgs{Session: "s", At: 3, Args: `{"path":"a"}`}, session.Skip{Session: "s", At: 3, Observation: "no"},
		session.EditResult{Session: "s", At: 4, Content: "x"}, session.RestoreFiles{Session: "s", Seq: 5, Force: true},
		session.UndoRun{Session: "s", Run: 1}, session.Compact{Session: "s"},
	}
	seen := map[string]bool{}
	for _, c := range all {
		raw, err := session.EncodeCommand(c)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(raw), `{"do":"`+c.Kind()+`"`) {
			t.Errorf("%s is written %s", c.Kind(), raw)
		}
		back, err := session.DecodeCommand(raw)
		if err != nil || !reflect.DeepEqual(back, c) {
			t.Errorf("%s: %s read back as %#v (%v)", c.Kind(), raw, back, err)
		}
		seen[c.Kind()] = true
	}
	for _, k := range session.CommandKinds() {
		if !seen[k] {
			t.Errorf("kind %s is not in this test", k)
		}
	}
}

// What the window sends that is no command is refused with what is wrong.
func TestDecodeCommandSaysWhatIsWrong(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`[1]`, "a JSON object"},
		{`{}`, `says what to do in "do": create, demo`},
		{`{"do":""}`, `says what to do`},
		{`{"do":"fly","session":"s"}`, `unknown command "fly": use one of create,`},
		{`{"do":"send","session":"s","text":"hi","call_id":"c"}`, `send does not take "call_id": its fields are session, text`},
		{`{"do":"demo","session":"s"}`, `demo takes no fields, and got "session"`},
		{`{"do":"step","session":"s","at":"two"}`, `step: json: cannot unmarshal string`},
	} {
		if _, err := session.DecodeCommand([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.in, err, c.want)
		}
	}
}
