//go:build linux

package attacks_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/realollama"
)

// usualPath is the PATH loupe runs with unless a test says otherwise: what a
// login shell on Debian gives.
const usualPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// binEnvVar names a loupe binary to attack instead of building this checkout.
const binEnvVar = "LOUPE_BIN"

// runTimeout bounds one `loupe run` unless a test says otherwise.
const runTimeout = 2 * time.Minute

// mode is how loupe is run: without a terminal, anything that asks is
// denied; with --auto, everything runs without asking but what Loupe
// protects in every mode (which is then denied too).
type mode struct {
	name string
	auto bool
}

var modes = []mode{{"default", false}, {"auto", true}}

// built is the loupe binary, built once per test binary.
var built struct {
	once sync.Once
	path string
	dir  string // removed by TestMain
	err  error
}

// loupeBinary returns the loupe binary to attack, building it the first time.
func loupeBinary(t testing.TB) string {
	t.Helper()
	built.once.Do(func() { built.path, built.err = buildLoupe() })
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

func buildLoupe() (string, error) {
	if p := os.Getenv(binEnvVar); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", binEnvVar, p, err)
		}
		return p, nil
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(root, "frontend", "dist", "index.html")); err != nil {
		return "", errors.New("frontend/dist is missing and main.go embeds it: run `cd frontend && npm run build` first")
	}
	dir, err := os.MkdirTemp("", "loupe-attacks-bin-")
	if err != nil {
		return "", err
	}
	built.dir = dir
	out := filepath.Join(dir, "loupe")
	cmd := exec.Command("go", "build", "-tags", "desktop,production", "-o", out, ".")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building loupe (go build -tags desktop,production .): %v\n%s", err, b)
	}
	return out, nil
}

// repoRoot is the folder holding go.mod, two levels above this file.
func repoRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cannot locate the repository")
	}
	root := filepath.Join(filepath.Dir(file), "..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return "", fmt.Errorf("no go.mod above %s: %w", file, err)
	}
	return filepath.Abs(root)
}

// lab is one test's world: a real Ollama server, a home folder that every
// loupe run and every command the "user" runs sees as $HOME, and a database.
type lab struct {
	t      *testing.T
	bin    string
	srv    *realollama.Server
	dir    string // everything of this lab lives here
	home   string
	db     string // the --db of runs that do not name one
	models map[string]bool
	n      int // numbers fresh folders
}

// newLab skips unless the real Ollama tier was asked for, and fails the test
// when the binary or the server cannot be had.
func newLab(t *testing.T) *lab {
	t.Helper()
	realollama.Require(t)
	bin := loupeBinary(t)
	srv := realollama.Start(t)
	dir := t.TempDir()
	l := &lab{t: t, bin: bin, srv: srv, dir: dir, home: filepath.Join(dir, "home"),
		db: filepath.Join(dir, "state", "loupe.db"), models: map[string]bool{}}
	mkdirs(t, l.home, filepath.Dir(l.db))
	writeFile(t, filepath.Join(l.home, ".gitconfig"), "[user]\n\tname = Alice\n\temail = alice@example.com\n[init]\n\tdefaultBranch = main\n")
	return l
}

// fresh returns a new empty folder of the lab named after name.
func (l *lab) fresh(name string) string {
	l.n++
	d := filepath.Join(l.dir, fmt.Sprintf("%s-%d", name, l.n))
	mkdirs(l.t, d)
	return d
}

// elsewhere returns a new folder outside both $HOME and /tmp (in the test
// user's cache folder; loupe's $HOME is the lab's), removed when the test
// ends: where users keep projects on another disk.
func (l *lab) elsewhere(t *testing.T) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	base = filepath.Join(base, "loupe-attacks")
	mkdirs(t, base)
	dir, err := os.MkdirTemp(base, "lab-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.RemoveAll(dir)
		os.Remove(base) // when no other test uses it
	})
	if strings.HasPrefix(dir, os.TempDir()) || strings.HasPrefix(dir, l.home) {
		t.Fatalf("%s is not outside $TMPDIR and the lab's home", dir)
	}
	return dir
}

// env is the environment of loupe and of the user's own commands: $HOME is
// the lab's, PATH the usual one; extra entries (NAME=value) replace those.
func (l *lab) env(extra ...string) []string {
	env := []string{"HOME=" + l.home, "PATH=" + usualPath, "LANG=C.UTF-8", "USER=" + userName()}
	for _, kv := range extra {
		name, _, _ := strings.Cut(kv, "=")
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, name+"=") })
		env = append(env, kv)
	}
	return env
}

func userName() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "user"
}

// runOpts is one `loupe run`.
type runOpts struct {
	workspace string
	db        string // "" means the lab's database
	auto      bool
	// calls are what the scripted model asks for at its first turn; at its
	// second it answers "I am done.". With no calls it answers at once.
	calls   []gguf.Call
	prompt  string        // "" means "Do the task."
	env     []string      // added to lab.env
	timeout time.Duration // 0 means runTimeout
	// started, when set, is called with loupe's pid as soon as it runs.
	started func(pid int)
	// vocab are texts the command is expected to print many times: the
	// model gets a token for each (see lab.model).
	vocab []string
}

// outcome is what a run left: its exit code, its output and the events it
// printed (--json).
type outcome struct {
	code    int
	stdout  string
	stderr  string
	events  []trace.Event
	session string
}

// run runs loupe with one scripted step and waits for it to end.
func (l *lab) run(t testing.TB, o runOpts) outcome {
	t.Helper()
	model := l.model(t, o.calls, o.vocab)
	db := o.db
	if db == "" {
		db = l.db
	}
	prompt := o.prompt
	if prompt == "" {
		prompt = "Do the task."
	}
	args := []string{"run", "--workspace", o.workspace, "--model", model, "--host", l.srv.URL(), "--db", db, "--json"}
	if o.auto {
		args = append(args, "--auto")
	}
	args = append(args, prompt)
	timeout := o.timeout
	if timeout == 0 {
		timeout = runTimeout
	}
	code, stdout, stderr := l.exec(t, timeout, o.env, o.started, args...)
	out := outcome{code: code, stdout: stdout, stderr: stderr}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e trace.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Errorf("loupe printed a line that is not an event: %.200q", sc.Text())
			continue
		}
		out.events = append(out.events, e)
		out.session = e.SessionID
	}
	return out
}

// exec runs the loupe binary with args in its own process group, killing
// the group if it outlives timeout.
func (l *lab) exec(t testing.TB, timeout time.Duration, env []string, started func(int), args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, l.bin, args...)
	cmd.Dir = l.dir
	cmd.Env = l.env(env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start loupe: %v", err)
	}
	if started != nil {
		started(cmd.Process.Pid)
	}
	err := cmd.Wait()
	if ctx.Err() != nil {
		t.Errorf("loupe %s did not end within %v; killed. stderr:\n%s", args[0], timeout, tail(stderr.String(), 2000))
	}
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("loupe: %v", err)
	}
	return code, stdout.String(), stderr.String()
}

// model returns the name of a scripted model that makes calls at its first
// turn and answers at its second, creating it the first time.
//
// The model reads its prompt one token per byte, except for texts that are
// tokens of its vocabulary, and prompt evaluation is slow: a prompt of 16 K
// tokens takes minutes, and one longer than num_ctx loses the model's own
// first message, so that it starts its script again. The long command (made
// of padding) and the vocab texts a command prints over and over get a
// token of their own, never emitted, so the next turn's prompt stays small.
func (l *lab) model(t testing.TB, calls []gguf.Call, vocab []string) string {
	t.Helper()
	key, _ := json.Marshal(struct {
		Calls []gguf.Call
		Vocab []string
	}{calls, vocab})
	sum := sha256.Sum256(key)
	name := "attack-" + hex.EncodeToString(sum[:6])
	if l.models[name] {
		return name
	}
	sc := gguf.Script{
		CompactTools: true, // see testkit/realscenarios createModel: keeps prompts short
		Steps:        []gguf.Step{{Call: calls}, {Answer: "I am done."}},
	}
	if len(calls) == 0 {
		sc.Steps = []gguf.Step{{Answer: "I am done."}}
	}
	if strings.Contains(string(key), padding) {
		vocab = append(vocab, padding)
	}
	if len(vocab) > 0 {
		// A step past the last one the run reaches.
		sc.Steps = append(sc.Steps, gguf.Step{Raw: vocab})
	}
	l.srv.CreateModel(t, name, sc)
	l.models[name] = true
	return name
}

// export is the session as `loupe export --format json` writes it from db:
// its text, and its events.
func (l *lab) export(t testing.TB, db, session string) (string, []trace.Event) {
	t.Helper()
	if session == "" {
		t.Fatal("export: the run printed no event, so there is no session to export")
	}
	code, out, stderr := l.exec(t, time.Minute, nil, nil, "export", session, "--format", "json", "--db", db)
	if code != 0 {
		t.Fatalf("loupe export %s: exit %d: %s", session, code, stderr)
	}
	var doc struct {
		Events []trace.Event `json:"events"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("loupe export: %v\n%s", err, tail(out, 2000))
	}
	return out, doc.Events
}

// --- what a run did, in words for failure messages -------------------------

// call is one tool call of a run with what became of it.
type call struct {
	name     string
	args     string
	decision string // allow, deny, … ("" when none was recorded)
	by       string
	reasons  []string
	result   *trace.ToolResult
}

// what is the call's main argument, for a message.
func (c call) what() string {
	var a struct{ Command, Path string }
	_ = json.Unmarshal([]byte(c.args), &a)
	switch {
	case a.Command != "":
		return clip(a.Command, 240)
	case a.Path != "":
		return clip(a.Path, 240)
	}
	return clip(c.args, 240)
}

// ran reports whether the call was executed (it was neither refused nor
// skipped before running).
func (c call) ran() bool {
	return c.result != nil && c.result.ErrorKind != trace.ErrDenied && c.result.ErrorKind != trace.ErrSkipped &&
		c.decision != "deny"
}

func (o outcome) calls() []call {
	var out []call
	idx := map[string]int{}
	for _, e := range o.events {
		switch e.Kind {
		case trace.KindToolCall:
			var p struct {
				CallID string          `json:"call_id"`
				Name   string          `json:"name"`
				Args   json.RawMessage `json:"args"`
			}
			_ = json.Unmarshal(e.Payload, &p)
			idx[p.CallID] = len(out)
			out = append(out, call{name: p.Name, args: string(p.Args)})
		case trace.KindPermission:
			if p, err := trace.Decode[trace.Permission](e); err == nil {
				if i, ok := idx[p.CallID]; ok {
					out[i].decision, out[i].by, out[i].reasons = p.Decision, p.By, p.Reasons
				}
			}
		case trace.KindToolResult:
			if p, err := trace.Decode[trace.ToolResult](e); err == nil {
				if i, ok := idx[p.CallID]; ok {
					out[i].result = &p
				}
			}
		}
	}
	return out
}

// summary says, for a failure message, how the run ended and what became of
// each call.
func (o outcome) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "loupe exit %d", o.code)
	for _, e := range o.events {
		if e.Kind == trace.KindRunEnd {
			if p, err := trace.Decode[trace.RunEnd](e); err == nil {
				fmt.Fprintf(&b, ", run ended %q", p.Reason)
			}
		}
	}
	for i, c := range o.calls() {
		fmt.Fprintf(&b, "\n  call %d %s %s\n    permission: %s (%s)", i+1, c.name, c.what(), c.decision, c.by)
		if len(c.reasons) > 0 {
			fmt.Fprintf(&b, " because %s", strings.Join(c.reasons, "; "))
		}
		if c.result != nil {
			fmt.Fprintf(&b, "\n    result: %s", clip(c.result.Content, 600))
		}
	}
	if len(o.events) == 0 {
		fmt.Fprintf(&b, "\n  no events; stderr: %s", clip(o.stderr, 600))
	}
	return b.String()
}

// results are the contents of the run's tool results, in order.
func (o outcome) results() []string {
	var out []string
	for _, c := range o.calls() {
		if c.result != nil {
			out = append(out, c.result.Content)
		}
	}
	return out
}

func (o outcome) ended(reason string) bool {
	for _, e := range o.events {
		if e.Kind == trace.KindRunEnd {
			p, err := trace.Decode[trace.RunEnd](e)
			return err == nil && p.Reason == reason
		}
	}
	return false
}

// --- the calls a scripted model makes -------------------------------------

// padding is the unit long commands are made of (see lab.model).
var padding = strings.Repeat("A", 4096)

func runCommand(command string) gguf.Call {
	return toolCall("run_command", map[string]any{"command": command})
}

func runCommandWithin(command string, ms int) gguf.Call {
	return toolCall("run_command", map[string]any{"command": command, "timeout_ms": ms})
}

func writeFileCall(path, content string) gguf.Call {
	return toolCall("write_file", map[string]any{"path": path, "content": content})
}

// toolCall writes the arguments as a model does: no HTML escapes.
func toolCall(name string, args map[string]any) gguf.Call {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(args); err != nil {
		panic(err)
	}
	return gguf.Call{Name: name, Args: strings.TrimSpace(b.String())}
}

// --- files ----------------------------------------------------------------

// fingerprint hashes every file under each root (and records symlinks,
// folders and absent roots), so that any change to them shows.
func fingerprint(t testing.TB, roots ...string) map[string]string {
	t.Helper()
	fp := map[string]string{}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					fp[p] = "absent"
					return nil
				}
				fp[p] = "unreadable: " + err.Error()
				return nil
			}
			switch {
			case d.Type()&fs.ModeSymlink != 0:
				target, _ := os.Readlink(p)
				fp[p] = "symlink to " + target
			case d.IsDir():
				fp[p] = "folder"
			case d.Type().IsRegular():
				b, err := os.ReadFile(p)
				if err != nil {
					fp[p] = "unreadable: " + err.Error()
					return nil
				}
				info, _ := d.Info()
				sum := sha256.Sum256(b)
				fp[p] = fmt.Sprintf("file %s mode %v", hex.EncodeToString(sum[:8]), info.Mode().Perm())
			default:
				fp[p] = "special " + d.Type().String()
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return fp
}

// changes lists, in words, how after differs from before.
func changes(before, after map[string]string) []string {
	var out []string
	for p, was := range before {
		if now, ok := after[p]; !ok {
			out = append(out, fmt.Sprintf("%s: was %s, now gone", p, was))
		} else if now != was {
			out = append(out, fmt.Sprintf("%s: was %s, now %s", p, was, now))
		}
	}
	for p, now := range after {
		if _, ok := before[p]; !ok {
			out = append(out, fmt.Sprintf("%s: new, %s", p, now))
		}
	}
	slices.Sort(out)
	return out
}

// markers is a folder outside every workspace where escaped code leaves
// files: the sandbox cannot write there, so any file in it means that
// something ran outside the sandbox.
type markers struct{ dir string }

func (l *lab) markers(name string) markers {
	return markers{dir: l.fresh("markers-" + name)}
}

// path is where marker name would appear.
func (m markers) path(name string) string { return filepath.Join(m.dir, name) }

// present lists the markers that appeared.
func (m markers) present() []string {
	ents, _ := os.ReadDir(m.dir)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// secret returns a string that must never reach the transcript; label says
// which file it came from.
func secret(label string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "loupe-secret-" + label + "-" + hex.EncodeToString(b)
}

// shell runs script with sh -c in dir as the user would, outside Loupe, with
// the lab's environment: the control experiments.
func (l *lab) shell(t testing.TB, dir, script string, env ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = l.env(env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// git runs git as the user in dir and returns its output; a failure is
// returned in the text, since the attacks may have broken the repository.
func (l *lab) git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = l.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Sprintf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// mustGit is git that fails the test when git fails (setting things up).
func (l *lab) mustGit(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = l.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// integrity opens a database file after loupe is done with it and returns
// PRAGMA integrity_check's answer ("ok" when intact) and its sessions.
func integrity(t testing.TB, path string) (string, int) {
	t.Helper()
	// mode=rw: a database that is gone is reported, not created.
	db, err := sql.Open("sqlite", "file:"+path+"?mode=rw")
	if err != nil {
		return err.Error(), 0
	}
	defer db.Close()
	var res string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil {
		return err.Error(), 0
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM sessions").Scan(&n); err != nil {
		return "sessions: " + err.Error(), 0
	}
	return res, n
}

func mkdirs(t testing.TB, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	mkdirs(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// clip shortens s for a message, keeping its start and its end.
func clip(s string, n int) string {
	if len(s) > n {
		return fmt.Sprintf("%q … %q (%d bytes)", s[:n*2/3], s[len(s)-n/3:], len(s))
	}
	return fmt.Sprintf("%q", s)
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// eventually polls cond every 50 ms until it holds, for up to d, and says
// whether it did. It is for waiting on what is bound to happen (a socket
// that starts accepting, processes that are being killed), never on what
// should not happen: polling for that only sleeps for d and hopes.
func eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}
