package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/backend/sandbox"
)

// conn is one running connection to a server: for a stdio server, its
// process too.
type conn struct {
	cs  *sdk.ClientSession
	cmd *exec.Cmd // nil for a URL server
	// proc is the sandbox's hold of a confined stdio server: released
	// once it has gone.
	proc *sandbox.Process
	done chan struct{}
}

// Version is the client name and version Loupe gives servers.
var impl = &sdk.Implementation{Name: "loupe", Version: "1"}

// dial starts (stdio) or reaches (URL) the server and initializes the
// session. listChanged is called when the server says its tools changed.
func dial(ctx context.Context, name string, s Server, o Options, listChanged func()) (*conn, error) {
	client := sdk.NewClient(impl, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			if listChanged != nil {
				go listChanged()
			}
		},
	})
	c := &conn{done: make(chan struct{})}
	var t sdk.Transport
	switch s.Transport() {
	case TypeStdio:
		cmd, proc, err := command(ctx, name, s, o)
		if err != nil {
			return nil, err
		}
		c.cmd, c.proc = cmd, proc
		t = &sdk.CommandTransport{Command: cmd, TerminateDuration: 500 * time.Millisecond}
		if proc != nil {
			t = confirmed{t, name, proc}
		}
	case TypeSSE, TypeHTTP:
		if o.HTTPClient == nil {
			return nil, fmt.Errorf("MCP server %s: no HTTP client to reach %s with", name, s.URL)
		}
		hc := withHeaders(o.HTTPClient, s.Headers)
		if s.Transport() == TypeSSE {
			t = &sdk.SSEClientTransport{Endpoint: s.URL, HTTPClient: hc}
		} else {
			t = &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc, DisableStandaloneSSE: false}
		}
	}
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		if c.cmd != nil {
			killGroup(c.cmd)
			closeLog(c.cmd)
		}
		if c.proc != nil {
			c.proc.Release()
		}
		return nil, err
	}
	c.cs = cs
	go func() {
		_ = cs.Wait()
		close(c.done)
	}()
	return c, nil
}

// command is the server's process: in the workspace folder, with the
// environment commands get (no secrets of Loupe's own) plus the server's
// env, in a process group of its own, its stderr appended to its log.
// With o.Start it is confined (proc is the sandbox's hold of it).
func command(ctx context.Context, name string, s Server, o Options) (cmd *exec.Cmd, proc *sandbox.Process, err error) {
	var env []string
	for _, k := range sortedKeys(s.Env) {
		env = append(env, k+"="+s.Env[k])
	}
	if o.Start != nil {
		proc, err = o.Start(ctx, append([]string{s.Command}, s.Args...), o.Dir, env, s.Loupe)
		if err != nil {
			return nil, nil, fmt.Errorf("server %s cannot start in the sandbox: %w", name, err)
		}
		proc.Who = "MCP server " + name
		cmd = proc.Cmd
	} else {
		cmd = exec.Command(s.Command, s.Args...)
		cmd.Dir = o.Dir
		cmd.Env = append(sandbox.Environ(os.Environ()), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	if o.LogDir != "" {
		f, err := openLog(o.LogDir, name)
		if err != nil {
			if proc != nil {
				proc.Release()
			}
			return nil, nil, err
		}
		fmt.Fprintf(f, "\n--- %s: starting %s\n", time.Now().UTC().Format(time.RFC3339), s.Describe())
		if proc != nil && proc.NotConfined != "" {
			fmt.Fprintf(f, "--- not sandboxed: %s\n", proc.NotConfined)
		}
		cmd.Stderr = f
	}
	return cmd, proc, nil
}

func openLog(dir, name string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("the MCP log folder cannot be made: %w", err)
	}
	f, err := os.OpenFile(LogPath(dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the log of server %s cannot be opened: %w", name, err)
	}
	return f, nil
}

// confirmed is a confined server's transport: once its process started,
// the sandbox says whether the program runs confined, before any message
// is sent, so a server that could not be confined fails with the reason
// rather than as a server that exited.
type confirmed struct {
	sdk.Transport
	name string
	proc *sandbox.Process
}

func (t confirmed) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if err := t.proc.Confirm(); err != nil {
		t.proc.Release()
		_ = conn.Close()
		return nil, fmt.Errorf("server %s was not started: %w", t.name, err)
	}
	return conn, nil
}

// LogPath is where a server's stderr goes.
func LogPath(dir, server string) string { return filepath.Join(dir, server+".log") }

func closeLog(cmd *exec.Cmd) {
	if f, ok := cmd.Stderr.(*os.File); ok {
		_ = f.Close()
	}
}

// close ends the session and, for a stdio server, its process and
// everything it started.
func (c *conn) close() {
	if c.cmd == nil {
		_ = c.cs.Close()
		return
	}
	if c.proc != nil && c.proc.Held() {
		// Stopped between calls, it could not go by itself; let run
		// again, it would change the workspace after its last check.
		c.proc.Release()
	}
	// Closing stdin asks the server to go; what it started goes with the
	// group. A process that has not gone is killed with its group; one that
	// crashed has its group killed first (what it left behind).
	if !c.alive() {
		killGroup(c.cmd)
	}
	killed := make(chan struct{})
	go func() {
		_ = c.cs.Close()
		close(killed)
	}()
	select {
	case <-killed:
	case <-time.After(2 * time.Second):
	}
	killGroup(c.cmd)
	closeLog(c.cmd)
	if c.proc != nil {
		c.proc.Release()
	}
}

// enter, leave and check are the confined process's (sandbox.Process):
// a server granted paths of the workspace runs only between enter and
// leave; nothing for a URL or unconfined server.
func (c *conn) enter(ctx context.Context) error {
	if c.proc == nil {
		return nil
	}
	return c.proc.Enter(ctx)
}

func (c *conn) leave() {
	if c.proc != nil {
		c.proc.Leave()
	}
}

func (c *conn) check(ctx context.Context) []string {
	if c.proc == nil {
		return nil
	}
	return c.proc.Check(ctx)
}

// alive reports whether the session is still up.
func (c *conn) alive() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		_ = cmd.Process.Kill()
	}
}

// withHeaders is base sending the configured headers with every request.
func withHeaders(base *http.Client, h map[string]string) *http.Client {
	if len(h) == 0 {
		return base
	}
	c := *base
	c.Transport = headers{h: h, next: base.Transport}
	return &c
}

type headers struct {
	h    map[string]string
	next http.RoundTripper
}

func (t headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header.Set(k, v)
	}
	return t.next.RoundTrip(r)
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
