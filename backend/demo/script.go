package demo

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/loupe-dev/loupe/backend/llm"
)

// The script is a pure function of the history the loop sends: what the
// demo asked for before and what came back. It keeps no state of its own,
// so a resumed, edited or replayed session gets the answer its history
// calls for, as a real model's would.

// step is one answer of the demo: a text, and the calls it asks for (none
// ends the run).
type step struct {
	text  string
	calls []ask
}

// ask is a call the demo asks for; args is its JSON object, in the order
// a model would write it.
type ask struct {
	name string
	args string
}

// seen is one call the demo asked for, as the history holds it, with the
// observation that came back.
type seen struct {
	name    string
	path    string
	command string
	result  string
	// answered is false for a call the history holds no result for.
	answered bool
	// turn is the user message (1 for the first) the call answered.
	turn int
}

// state is what the history says so far.
type state struct {
	calls []seen
	// turn counts the user's messages; last is the latest one.
	turn int
	last string
}

// read walks the history: the demo's calls with their results, in order.
func read(msgs []llm.Message) state {
	var s state
	at := map[string]int{} // call id -> index in s.calls
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			s.turn++
			s.last = m.Content
		case llm.RoleAssistant:
			for _, c := range m.ToolCalls {
				var a struct {
					Path    string `json:"path"`
					Command string `json:"command"`
				}
				_ = json.Unmarshal(c.Args, &a) // a call the user made unreadable names nothing
				at[c.ID] = len(s.calls)
				s.calls = append(s.calls, seen{name: c.Name, path: cleanPath(a.Path), command: a.Command, turn: s.turn})
			}
		case llm.RoleTool:
			if i, ok := at[m.ToolCallID]; ok {
				s.calls[i].result, s.calls[i].answered = m.Content, true
			}
		}
	}
	return s
}

func cleanPath(p string) string {
	p = strings.TrimPrefix(strings.TrimSpace(p), "./")
	if p == "" {
		return "."
	}
	return p
}

// outcome is how a call went, as the demo reads its observation.
type outcome int

const (
	outOK     outcome = iota
	outDenied         // the user (or a rule) said no
	outFailed         // the tool failed, was cancelled, or the command exited non-zero
)

var exitCode = regexp.MustCompile(`exit code (-?\d+)\s*$`)

func (c seen) outcome() outcome {
	r := c.result
	switch {
	case !c.answered:
		return outFailed
	case strings.HasPrefix(r, "denied:"):
		return outDenied
	case strings.HasPrefix(r, c.name+" failed:"), strings.HasPrefix(r, "cancelled:"),
		strings.HasPrefix(r, "interrupted:"), strings.HasPrefix(r, "stopped by the user"):
		return outFailed
	}
	if c.name == "run_command" {
		m := exitCode.FindStringSubmatch(r)
		if m == nil {
			return outFailed
		}
		if n, _ := strconv.Atoi(m[1]); n != 0 {
			return outFailed
		}
	}
	return outOK
}

// latest is the index of the last call that matches, or -1.
func (s state) latest(match func(seen) bool) int {
	for i := len(s.calls) - 1; i >= 0; i-- {
		if match(s.calls[i]) {
			return i
		}
	}
	return -1
}

// settled says whether call i stands: it went well, or it went badly in
// this turn (a no from the user counts until their next message). A call
// refused or failed in an earlier turn is asked for again.
func (s state) settled(i int) bool {
	return i >= 0 && (s.calls[i].outcome() == outOK || s.calls[i].turn == s.turn)
}

func isList(c seen) bool    { return c.name == "list_dir" && c.path == "." }
func isTestRun(c seen) bool { return c.name == "run_command" && strings.Contains(c.command, "test.sh") }
func isEdit(c seen) bool    { return c.name == "edit_file" && c.path == "slug.sh" }
func reads(name string) func(seen) bool {
	return func(c seen) bool { return c.name == "read_file" && c.path == name }
}

// The calls the demo makes. The fix adds the one expression slugify lacks.
var (
	listCall = ask{"list_dir", `{"path":"."}`}
	testCall = ask{"run_command", `{"command":"sh test.sh"}`}
	editCall = ask{"edit_file", `{"path":"slug.sh","old_string":"-e 's/^-//'","new_string":"-e 's/^-//' -e 's/-$//'"}`}
)

func readCall(path string) ask { return ask{"read_file", fmt.Sprintf(`{"path":%q}`, path)} }

const notAI = "(This is Loupe's scripted demo, not an AI: whatever the message, it plays one task, fixing this project's failing test.) "

// decide is the demo's next answer to the history s.
func decide(s state) step {
	if s.doneBefore() {
		return step{text: "This is Loupe's scripted demo, not an AI, and its one task is done: `sh test.sh` passes. " +
			"To work with a real model, start Ollama (`ollama serve`), pull one that can use tools (`ollama pull qwen3`), " +
			"and start a new session with it."}
	}

	list := s.latest(isList)
	if !s.settled(list) {
		text := "I'll start by looking at what is in the project."
		if s.turn == 1 && strings.TrimSpace(s.last) != Task {
			text = notAI + text
		}
		return step{text: text, calls: []ask{listCall}}
	}
	switch l := s.calls[list]; {
	case l.outcome() == outDenied:
		return step{text: "You did not let me list the folder, so I cannot see the project. Send a message if you want me to try again."}
	case l.outcome() == outFailed:
		return step{text: "Listing the folder failed: " + firstLine(l.result) + "\n\nI cannot go on without seeing the project."}
	case !strings.Contains(l.result, "slug.sh") || !strings.Contains(l.result, "test.sh"):
		return step{text: "This folder does not hold the demo's project (`slug.sh` and `test.sh`), and the demo is a script that knows only that project, " +
			"so it cannot work here. Start the demo from Loupe's home page, or run `loupe run --model demo` without `--workspace`, to get a fresh copy of it."}
	}

	var need []ask
	for _, f := range []string{"slug.sh", "test.sh"} {
		i := s.latest(reads(f))
		if !s.settled(i) {
			need = append(need, readCall(f))
			continue
		}
		if c := s.calls[i]; c.outcome() != outOK {
			return step{text: fmt.Sprintf("I could not read `%s`: %s\n\nI need it to find the bug; send a message if you want me to try again.", f, firstLine(c.result))}
		}
	}
	if len(need) > 0 {
		text := "There is `slug.sh`, which holds the `slugify` function, and `test.sh`, its tests. I'll read both."
		if len(need) == 1 {
			text = "I'll read the file I still need."
		}
		return step{text: text, calls: need}
	}

	edit := s.latest(isEdit)
	if !s.settled(edit) {
		return s.beforeFix()
	}
	switch e := s.calls[edit]; e.outcome() {
	case outDenied:
		return step{text: "You did not let me change `slug.sh`, so nothing changed. The fix is one more expression for its `sed`: " +
			"`-e 's/-$//'`, which removes a \"-\" at the end. Send a message if you want me to try again."}
	case outFailed:
		return step{text: "My edit did not apply: " + firstLine(e.result) + "\n\n`slug.sh` may have changed since I read it. " +
			"The fix is one more expression for its `sed`: `-e 's/-$//'`."}
	}
	return s.afterFix(edit)
}

// beforeFix runs the tests once, then fixes the bug: by what the failing
// run showed, or by reading alone when the user would not let it run.
func (s state) beforeFix() step {
	run := s.latest(isTestRun)
	if !s.settled(run) {
		return step{text: "Before I change anything, I'll run the tests to see what fails.", calls: []ask{testCall}}
	}
	r := s.calls[run]
	const cause = "`slugify` removes a \"-\" at the start (`s/^-//`) but never one at the end, so a title that ends in punctuation or spaces gets a slug that ends in \"-\"."
	switch {
	case r.outcome() == outDenied:
		return step{text: "You did not let me run the tests, so I'll go by reading the code. In `test.sh`, \"Hello, World!\" must become `hello-world`. " + cause +
			" I'll add the missing expression to the same `sed`.", calls: []ask{editCall}}
	case r.outcome() == outOK:
		return step{text: "The tests pass already:\n\n```\n" + strings.TrimSpace(r.result) + "\n```\n\nThere is nothing to fix."}
	case !strings.Contains(r.result, "FAIL"):
		return step{text: "The tests did not run: " + firstLine(r.result) + "\n\nI cannot tell what fails without them."}
	}
	fails := failLines(r.result)
	return step{text: fmt.Sprintf("The tests fail (%s):\n\n```\n%s\n```\n\n%s I'll add the missing expression to the same `sed`.",
		summaryLine(r.result), strings.Join(fails, "\n"), cause), calls: []ask{editCall}}
}

// afterFix checks the fix with the tests, unless the user said no to
// running them in this turn.
func (s state) afterFix(edit int) step {
	const change = "its `sed` now also has `-e 's/-$//'`, which removes a \"-\" at the end"
	const fixed = "I fixed `slug.sh`: " + change + "."
	run := -1
	for i := edit + 1; i < len(s.calls); i++ {
		if isTestRun(s.calls[i]) {
			run = i
		}
	}
	refused := false
	for i := 0; i < edit; i++ {
		if isTestRun(s.calls[i]) && s.calls[i].turn == s.turn && s.calls[i].outcome() == outDenied {
			refused = true
		}
	}
	if !s.settled(run) {
		if refused {
			return step{text: fixed + " I did not run the tests, since you said no to that: run `sh test.sh` to check."}
		}
		return step{text: "That should do it. I'll run the tests again to check.", calls: []ask{testCall}}
	}
	r := s.calls[run]
	switch r.outcome() {
	case outDenied:
		return step{text: fixed + " You did not let me run the tests to check: run `sh test.sh` to see them pass."}
	case outFailed:
		return step{text: "The tests still fail after my change:\n\n```\n" + strings.TrimSpace(r.result) + "\n```\n\n" +
			"This demo's script knows only the one bug it fixed; a real model would look further."}
	}
	return step{text: "Fixed. `slugify` removed a \"-\" at the start of a slug but not one at the end; in `slug.sh`, " + change +
		", so \"Hello, World!\" becomes `hello-world`. The tests pass:\n\n```\n" +
		strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(r.result), "exit code 0")) + "\n```"}
}

// doneBefore says whether the task was finished in an earlier turn: the
// tests passed after a fix, before the user's latest message.
func (s state) doneBefore() bool {
	edit := -1
	for i, c := range s.calls {
		if c.turn == s.turn {
			break
		}
		if isEdit(c) && c.outcome() == outOK {
			edit = i
		}
		if edit >= 0 && isTestRun(c) && c.outcome() == outOK {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func failLines(out string) []string {
	var fails []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "FAIL") {
			fails = append(fails, l)
		}
	}
	return fails
}

// summaryLine is the test script's last line before the exit code ("2 of
// 4 cases failed"), or the exit code when it has none.
func summaryLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	code := lines[len(lines)-1]
	for i := len(lines) - 2; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "FAIL") && !strings.HasPrefix(l, "ok") {
			return l + ", " + code
		}
	}
	return code
}
