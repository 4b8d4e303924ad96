package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/tools"
)

func startPool(t *testing.T, servers Servers, o Options) *Pool {
	t.Helper()
	if o.LogDir == "" {
		o.LogDir = t.TempDir()
	}
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	p := NewPool(servers, o)
	t.Cleanup(p.Close)
	if ns := p.Start(context.Background()); len(ns) > 0 {
		t.Fatalf("start: %+v", ns)
	}
	return p
}

func toolNamed(t *testing.T, p *Pool, name string) tools.Tool {
	t.Helper()
	ts, _ := p.Tools()
	for _, tl := range ts {
		if tl.Spec().Name == name {
			return tl
		}
	}
	var names []string
	for _, tl := range ts {
		names = append(names, tl.Spec().Name)
	}
	t.Fatalf("no tool %s among %v", name, names)
	return nil
}

func run(t *testing.T, tl tools.Tool, args string) tools.Result {
	t.Helper()
	res, err := tl.Run(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s: %v", tl.Spec().Name, err)
	}
	return res
}

// groupGone waits until no process of the group led by pid is left.
func groupGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := syscall.Kill(-pid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a process of server group %d is still running (kill 0: %v)", pid, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestEverythingServerTools(t *testing.T) {
	p := startPool(t, Servers{"everything": {Command: "node", Args: []string{npmServer(t, "server-everything"), "stdio"}}}, Options{})
	ts, notices := p.Tools()
	if len(notices) > 0 {
		t.Fatalf("notices: %+v", notices)
	}
	reg, err := tools.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(reg.Names(), "everything.echo") || !slices.Contains(reg.Names(), "everything.get-sum") {
		t.Fatalf("tools %v", reg.Names())
	}
	for _, n := range reg.Names() {
		if !strings.HasPrefix(n, "everything.") {
			t.Fatalf("tool %s is not namespaced", n)
		}
	}
	// The registry checks the server's schema before anything runs.
	if _, cerr := reg.Check("everything.get-sum", json.RawMessage(`{"a": "one", "b": 2}`)); cerr == nil {
		t.Fatal("a string for a number passed the check")
	}
	if res := run(t, toolNamed(t, p, "everything.echo"), `{"message": "hello from loupe"}`); res.IsError || !strings.Contains(res.Content, "hello from loupe") {
		t.Fatalf("echo: %+v", res)
	}
	if res := run(t, toolNamed(t, p, "everything.get-sum"), `{"a": 2, "b": 40}`); res.IsError || !strings.Contains(res.Content, "42") {
		t.Fatalf("get-sum: %+v", res)
	}
	pid := p.PIDs()["everything"]
	p.Close()
	groupGone(t, pid)
}

func TestFilesystemServerReadsAFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the answer is 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startPool(t, Servers{"fs": {Command: "node", Args: []string{npmServer(t, "server-filesystem"), dir}}}, Options{Dir: dir})
	res := run(t, toolNamed(t, p, "fs.read_text_file"), `{"path": "`+filepath.Join(dir, "notes.txt")+`"}`)
	if res.IsError || !strings.Contains(res.Content, "the answer is 42") {
		t.Fatalf("read: %+v", res)
	}
	// Outside its folder the server refuses: an error result, not a failure.
	res = run(t, toolNamed(t, p, "fs.read_text_file"), `{"path": "/etc/hostname"}`)
	if !res.IsError {
		t.Fatalf("a read outside the folder passed: %+v", res)
	}
}

func faultPool(t *testing.T, o Options) *Pool {
	return startPool(t, Servers{"fault": {Command: faultBin, Env: map[string]string{"MCPFAULT_SECRET": "hunter2"}}}, o)
}

func TestServerDiesMidCall(t *testing.T) {
	logs := t.TempDir()
	p := faultPool(t, Options{LogDir: logs})
	pid := p.PIDs()["fault"]
	res := run(t, toolNamed(t, p, "fault.crash"), `{}`)
	if !res.IsError || !strings.Contains(res.Content, "stopped while running fault.crash") {
		t.Fatalf("result: %+v", res)
	}
	if res.Notice == nil || res.Notice.Code != CodeServerCrashed || !strings.Contains(res.Notice.Message, "mcpfault: crashing now") {
		t.Fatalf("notice: %+v", res.Notice)
	}
	// The server and the child it started are gone.
	groupGone(t, pid)
	// The next call starts it again.
	if res := run(t, toolNamed(t, p, "fault.echo"), `{"text": "back"}`); res.IsError || res.Content != "back" {
		t.Fatalf("after the crash: %+v", res)
	}
	if np := p.PIDs()["fault"]; np == pid || np == 0 {
		t.Fatalf("not started again: pid %d, was %d", np, pid)
	}
	// The secret reached the server, not its log.
	b, _ := os.ReadFile(LogPath(logs, "fault"))
	if strings.Contains(string(b), "hunter2") || !strings.Contains(string(b), "got a secret of 7 bytes") {
		t.Fatalf("log: %s", b)
	}
}

func TestHungCallIsCutAtItsTimeout(t *testing.T) {
	p := faultPool(t, Options{CallTimeout: 700 * time.Millisecond})
	pid := p.PIDs()["fault"]
	start := time.Now()
	res := run(t, toolNamed(t, p, "fault.hang"), `{}`)
	took := time.Since(start)
	if took < 700*time.Millisecond || took > 5*time.Second {
		t.Fatalf("the hung call took %v", took)
	}
	if !res.IsError || !strings.Contains(res.Content, "did not answer within 700ms") {
		t.Fatalf("result: %+v", res)
	}
	if res.Notice == nil || res.Notice.Code != CodeServerHung || !strings.Contains(res.Notice.Message, "mcpfault: hanging") {
		t.Fatalf("notice: %+v", res.Notice)
	}
	groupGone(t, pid)
	if res := run(t, toolNamed(t, p, "fault.echo"), `{"text": "again"}`); res.Content != "again" {
		t.Fatalf("after the hang: %+v", res)
	}
}

func TestHugeResultIsCapped(t *testing.T) {
	p := faultPool(t, Options{})
	res := run(t, toolNamed(t, p, "fault.huge"), `{"bytes": 1000000}`)
	if !res.Truncated || len(res.Content) > tools.ResultCap+200 {
		t.Fatalf("truncated %v, %d bytes", res.Truncated, len(res.Content))
	}
	if !strings.HasPrefix(res.Content, "BEGIN") || !strings.HasSuffix(res.Content, "END") || !strings.Contains(res.Content, "[output was 1000008 bytes; the middle was left out]") {
		t.Fatalf("content: %.80s ... %s", res.Content, res.Content[len(res.Content)-80:])
	}
}

func TestContentKindsAndErrors(t *testing.T) {
	p := faultPool(t, Options{})
	res := run(t, toolNamed(t, p, "fault.mixed"), `{}`)
	for _, want := range []string{"here they are", "[image: image/png, 2.0 KB; not shown to the model]",
		"[resource link: report <file:///tmp/report.pdf> (application/pdf, 4.0 KB)]", "[resource <mem://notes>]\na note"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("mixed lacks %q:\n%s", want, res.Content)
		}
	}
	if res := run(t, toolNamed(t, p, "fault.structured"), `{}`); res.Content != `{"temperature":21,"unit":"C"}` {
		t.Errorf("structured: %q", res.Content)
	}
	if res := run(t, toolNamed(t, p, "fault.fail"), `{}`); !res.IsError || res.Content != "the widget is broken" {
		t.Errorf("isError: %+v", res)
	}
}

func TestBadSchemaIsLeftOut(t *testing.T) {
	p := faultPool(t, Options{})
	ts, notices := p.Tools()
	if _, err := tools.NewRegistry(ts...); err != nil {
		t.Fatalf("the tools offered do not make a registry: %v", err)
	}
	for _, tl := range ts {
		if tl.Spec().Name == "fault.bad_schema" {
			t.Fatal("the tool with a bad schema is offered")
		}
	}
	if len(notices) != 1 || notices[0].Code != CodeToolSkipped || !strings.Contains(notices[0].Message, "fault.bad_schema") {
		t.Fatalf("notices: %+v", notices)
	}
}

func TestToolListChanged(t *testing.T) {
	p := faultPool(t, Options{})
	run(t, toolNamed(t, p, "fault.grow"), `{}`)
	deadline := time.Now().Add(5 * time.Second)
	for {
		ts, _ := p.Tools()
		if slices.ContainsFunc(ts, func(tl tools.Tool) bool { return tl.Spec().Name == "fault.late" }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the list was not refreshed after tools/list_changed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if res := run(t, toolNamed(t, p, "fault.late"), `{}`); res.Content != "late answer" {
		t.Fatalf("late: %+v", res)
	}
}

func TestServerThatCannotStartIsANotice(t *testing.T) {
	logs := t.TempDir()
	p := NewPool(Servers{"nope": {Command: "/no/such/program"}, "fault": {Command: faultBin}}, Options{LogDir: logs, Dir: t.TempDir()})
	defer p.Close()
	ns := p.Start(context.Background())
	if len(ns) != 1 || ns[0].Code != CodeServerFailed || !strings.Contains(ns[0].Message, "MCP server nope") {
		t.Fatalf("notices: %+v", ns)
	}
	ts, _ := p.Tools()
	if len(ts) == 0 {
		t.Fatal("the other server's tools are missing")
	}
}

func TestCloseStopsEveryServer(t *testing.T) {
	p := startPool(t, Servers{"a": {Command: faultBin}, "b": {Command: faultBin}}, Options{})
	pids := p.PIDs()
	if len(pids) != 2 {
		t.Fatalf("pids %v", pids)
	}
	p.Close()
	for _, pid := range pids {
		groupGone(t, pid)
	}
	// A closed pool starts nothing.
	res := run(t, toolNamed(t, p, "a.echo"), `{"text": "x"}`)
	if !res.IsError || len(p.PIDs()) != 0 {
		t.Fatalf("a closed pool ran a call: %+v", res)
	}
}
