package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
)

// Options are how a Pool runs its servers.
type Options struct {
	// Dir is the folder stdio servers start in (the workspace).
	Dir string
	// LogDir is where each server's stderr is kept (Loupe's data folder).
	LogDir string
	// CallTimeout bounds one tool call; a server that does not answer in
	// time is stopped and started again for the next call.
	CallTimeout time.Duration
	// StartTimeout bounds starting a server and listing its tools.
	StartTimeout time.Duration
	// HTTPClient reaches URL servers: Loupe's counted dials
	// (ollama.Dials), so that every connection Loupe opens is one it
	// knows of. A URL server cannot be reached without it.
	HTTPClient *http.Client
	// Start starts a stdio server's program confined: argv in dir with
	// env added to the environment commands get, granted g beyond what a
	// command may (sandbox.Confined.Start, with the workspace's
	// protections). Nil runs it as the user's own process: for tests
	// and tools that confine otherwise.
	Start func(ctx context.Context, argv []string, dir string, env []string, g Grant) (*sandbox.Process, error)
}

// Defaults.
const (
	DefaultCallTimeout  = 120 * time.Second
	DefaultStartTimeout = 30 * time.Second
)

// Notice codes.
const (
	CodeServerFailed = "mcp_server_failed"
	// CodeServerLeft: what a server granted paths left as it started
	// (a repository of its own) and Loupe disarmed.
	CodeServerLeft    = "mcp_server_left"
	CodeServerCrashed = "mcp_server_crashed"
	CodeServerHung    = "mcp_server_hung"
	CodeToolSkipped   = "mcp_tool_skipped"
)

// Pool is the servers of one run: started together when the run starts,
// each started again after a crash or a hang, all stopped by Close with
// everything they started.
type Pool struct {
	opts    Options
	order   []string
	servers map[string]*server

	mu     sync.Mutex
	closed bool
}

type server struct {
	p    *Pool
	name string
	cfg  Server

	mu       sync.Mutex
	conn     *conn
	tools    []*sdk.Tool
	err      error
	startDur time.Duration
	starts   int
}

// NewPool makes a pool of the enabled servers; nothing starts until Start
// or the first call.
func NewPool(servers Servers, o Options) *Pool {
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	p := &Pool{opts: o, servers: map[string]*server{}}
	for _, name := range servers.Names() {
		cfg := servers[name]
		if cfg.Disabled {
			continue
		}
		p.order = append(p.order, name)
		p.servers[name] = &server{p: p, name: name, cfg: cfg}
	}
	return p
}

// Start starts every server at once and lists its tools. A server that
// cannot start is a notice (with its log's tail); the others go on.
func (p *Pool) Start(ctx context.Context) []trace.Notice {
	var wg sync.WaitGroup
	errs := make([]error, len(p.order))
	for i, name := range p.order {
		wg.Go(func() {
			s := p.servers[name]
			s.mu.Lock()
			errs[i] = s.ensure(ctx)
			s.mu.Unlock()
		})
	}
	wg.Wait()
	var out []trace.Notice
	for i, err := range errs {
		s := p.servers[p.order[i]]
		if err != nil {
			out = append(out, trace.Notice{Code: CodeServerFailed, Message: s.failure(err)})
			continue
		}
		// What a server granted paths did as it started.
		s.mu.Lock()
		c := s.conn
		s.mu.Unlock()
		if c != nil {
			for _, note := range c.check(ctx) {
				out = append(out, trace.Notice{Code: CodeServerLeft, Message: note})
			}
		}
	}
	return out
}

// ensure starts the server if it is not running. Called with s.mu held.
func (s *server) ensure(ctx context.Context) error {
	if s.conn != nil && s.conn.alive() {
		return nil
	}
	if s.conn != nil {
		s.conn.close()
		s.conn = nil
	}
	s.p.mu.Lock()
	closed := s.p.closed
	s.p.mu.Unlock()
	if closed {
		return errors.New("Loupe has stopped its MCP servers")
	}
	start := time.Now()
	sctx, cancel := context.WithTimeout(ctx, s.p.opts.StartTimeout)
	defer cancel()
	c, err := dial(sctx, s.name, s.cfg, s.p.opts, s.refresh)
	if err != nil {
		s.err = err
		if sctx.Err() != nil && ctx.Err() == nil {
			s.err = fmt.Errorf("it did not start within %v", s.p.opts.StartTimeout)
		}
		return s.err
	}
	ts, err := listTools(sctx, c.cs)
	if err != nil {
		c.close()
		s.err = fmt.Errorf("its tools could not be listed: %w", err)
		return s.err
	}
	// Ready: a server that may write the workspace runs from now on
	// only for its calls (sandbox.Process.Enter).
	c.leave()
	s.conn, s.tools, s.err = c, ts, nil
	s.startDur = time.Since(start)
	s.starts++
	return nil
}

func listTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// refresh lists the tools again (the server said they changed).
func (s *server) refresh() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.p.opts.StartTimeout)
	defer cancel()
	if err := s.conn.enter(ctx); err != nil {
		return
	}
	ts, err := listTools(ctx, s.conn.cs)
	s.conn.leave()
	if err == nil {
		s.tools = ts
	}
	// What it did meanwhile is checked with the next call's round, or
	// when it stops (sandbox.Process.Release).
}

// drop stops a connection that crashed or hung; the next call starts the
// server again.
func (s *server) drop(c *conn) {
	s.mu.Lock()
	if s.conn == c {
		s.conn = nil
	}
	s.mu.Unlock()
	c.close()
}

// failure says why the server could not start, with its log's tail.
func (s *server) failure(err error) string {
	msg := fmt.Sprintf("MCP server %s (%s) could not start: %v; its tools are not offered.", s.name, s.cfg.Describe(), err)
	return msg + s.tail()
}

// tail is the end of the server's log, for a notice.
func (s *server) tail() string {
	if s.p.opts.LogDir == "" || s.cfg.Transport() != TypeStdio {
		return ""
	}
	t := LogTail(LogPath(s.p.opts.LogDir, s.name), 2048)
	if t == "" {
		return " Its log is empty."
	}
	return "\nThe end of its log:\n" + t
}

// LogTail is the last n bytes of a log, from a line's start.
func LogTail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(fi.Size()-n, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, off, fi.Size()-off))
	if err != nil {
		return ""
	}
	s := string(b)
	if off > 0 {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	return strings.TrimRight(s, "\n")
}

// Tools are the servers' tools as tools.Tool, server by server in name
// order, each server's in its own order. A tool whose schema Loupe cannot
// check is left out, with a notice saying why.
func (p *Pool) Tools() ([]tools.Tool, []trace.Notice) {
	var out []tools.Tool
	var notices []trace.Notice
	for _, name := range p.order {
		s := p.servers[name]
		s.mu.Lock()
		ts := s.tools
		s.mu.Unlock()
		for _, t := range ts {
			mt, err := newTool(s, t)
			if err == nil {
				_, err = tools.NewRegistry(mt)
			}
			if err != nil {
				notices = append(notices, trace.Notice{Code: CodeToolSkipped,
					Message: fmt.Sprintf("MCP tool %s%s%s is not offered: %v", name, Sep, t.Name, err)})
				continue
			}
			out = append(out, mt)
		}
	}
	return out, notices
}

// call runs one tool of a server. A crash or a hang is answered with an
// error result for the model and a notice for the user; the server starts
// again for the next call.
func (s *server) call(ctx context.Context, tool string, args json.RawMessage) (tools.Result, error) {
	s.mu.Lock()
	err := s.ensure(ctx)
	c := s.conn
	s.mu.Unlock()
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		msg := fmt.Sprintf("MCP server %s could not be started: %v", s.name, err)
		return tools.Result{Content: msg, IsError: true,
			Notice: &trace.Notice{Code: CodeServerFailed, Message: s.failure(err)}}, nil
	}
	timeout := s.p.opts.CallTimeout
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if err := c.enter(cctx); err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		msg := fmt.Sprintf("MCP server %s could not run %s%s%s within %v: Loupe was changing the workspace meanwhile (an undo or a restore), or the server could not be woken (%v)", s.name, s.name, Sep, tool, timeout, err)
		return tools.Result{Content: msg, IsError: true}, nil
	}
	res, err := c.cs.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	hung := err != nil && cctx.Err() != nil
	c.leave()
	// What it left in the workspace is checked once no call of the round
	// runs (or now, outside a round); what the check did is said with the
	// round's last result, as for commands.
	notes := tools.AfterRound(ctx, c.check)
	r, err := s.answer(ctx, c, tool, res, err, hung)
	for _, n := range notes {
		r.Content += "\n[loupe: " + n + "]"
	}
	return r, err
}

// answer is the result of a call that returned res or err.
// hung: it did not answer within the call's time.
func (s *server) answer(ctx context.Context, c *conn, tool string, res *sdk.CallToolResult, err error, hung bool) (tools.Result, error) {
	if err == nil {
		return resultOf(res), nil
	}
	timeout := s.p.opts.CallTimeout
	full := s.name + Sep + tool
	switch {
	case ctx.Err() != nil:
		// The run or the call was stopped: the agent says so. The
		// server may be busy with the call still; it starts afresh.
		s.drop(c)
		return tools.Result{}, err
	case hung:
		s.drop(c)
		msg := fmt.Sprintf("%s did not answer within %v; MCP server %s was stopped and will be started again for the next call", full, timeout, s.name)
		return tools.Result{Content: msg, IsError: true,
			Notice: &trace.Notice{Code: CodeServerHung, Message: msg + "." + s.tail()}}, nil
	}
	if crashed(c, err) {
		s.drop(c)
		msg := fmt.Sprintf("MCP server %s stopped while running %s (it crashed or exited): the call has no result; the server will be started again for the next call", s.name, full)
		return tools.Result{Content: msg, IsError: true,
			Notice: &trace.Notice{Code: CodeServerCrashed, Message: msg + "." + s.tail()}}, nil
	}
	// The server answered with a protocol error (an unknown tool, bad
	// arguments): the model reads it.
	return tools.Result{Content: fmt.Sprintf("%s failed: %v", full, err), IsError: true}, nil
}

// crashed reports whether err means the connection is gone.
func crashed(c *conn, err error) bool {
	if errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	select {
	case <-c.done:
		return true
	case <-time.After(300 * time.Millisecond):
		return false
	}
}

// Close stops every server and everything they started. The pool starts
// none after it.
func (p *Pool) Close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, name := range p.order {
		s := p.servers[name]
		wg.Go(func() {
			s.mu.Lock()
			c := s.conn
			s.conn = nil
			s.mu.Unlock()
			if c != nil {
				c.close()
			}
		})
	}
	wg.Wait()
}

// PIDs are the process ids of the running stdio servers (for tests and
// the window's status).
func (p *Pool) PIDs() map[string]int {
	out := map[string]int{}
	for _, name := range p.order {
		s := p.servers[name]
		s.mu.Lock()
		if s.conn != nil && s.conn.cmd != nil && s.conn.cmd.Process != nil {
			out[name] = s.conn.cmd.Process.Pid
		}
		s.mu.Unlock()
	}
	return out
}

// States of a server.
const (
	StateRunning  = "running"
	StateFailed   = "failed"
	StateStopped  = "stopped"
	StateDisabled = "disabled"
)

// ServerInfo is a server as the window lists it: never its env or header
// values, only their names.
type ServerInfo struct {
	Name      string   `json:"name"`
	Scope     string   `json:"scope"` // "global" or "workspace"
	Transport string   `json:"transport"`
	Describe  string   `json:"describe"`
	EnvKeys   []string `json:"env_keys"`
	Headers   []string `json:"header_keys"`
	// Granted is what a stdio server may do in the sandbox beyond
	// reading the workspace (Grant.Describe); "" for a URL server.
	Granted string `json:"granted"`
	State   string `json:"state"`
	Error   string `json:"error,omitempty"`
	StartMs int64  `json:"start_ms"`
	// Tokens is what the server's tool schemas add to every request.
	Tokens int `json:"tokens"`
	// Measured: Ollama counted every offered tool's Tokens; false: some
	// or all are Loupe's estimate.
	Measured bool       `json:"measured"`
	Tools    []ToolInfo `json:"tools"`
	// Log is the file its stderr goes to ("" for a URL server).
	Log string `json:"log"`
}

// ToolInfo is one of a server's tools, with its schema's cost.
type ToolInfo struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	Tokens  int    `json:"tokens"`
	// Measured: Ollama counted Tokens; false: Loupe's estimate.
	Measured bool `json:"measured"`
	// Offered is false for a tool Loupe leaves out (its schema cannot be
	// checked); Why says why.
	Offered bool   `json:"offered"`
	Why     string `json:"why,omitempty"`
}

// Info describes every configured server of the pool, enabled or not.
// cost measures one tool's schema in tokens, and says whether Ollama
// counted them (rather than the estimate).
func (p *Pool) Info(all Servers, cost func(llm.ToolSpec) (tokens int, measured bool)) []ServerInfo {
	out := []ServerInfo{}
	for _, name := range all.Names() {
		cfg := all[name]
		si := ServerInfo{Name: name, Scope: "global", Transport: cfg.Transport(), Describe: cfg.Describe(),
			EnvKeys: sortedKeys(cfg.Env), Headers: sortedKeys(cfg.Headers), Tools: []ToolInfo{}}
		if cfg.Transport() == TypeStdio {
			si.Granted = cfg.Loupe.Describe()
		}
		if cfg.Transport() == TypeStdio && p.opts.LogDir != "" {
			si.Log = LogPath(p.opts.LogDir, name)
		}
		s := p.servers[name]
		if s == nil {
			si.State = StateDisabled
			out = append(out, si)
			continue
		}
		s.mu.Lock()
		ts, err, c := s.tools, s.err, s.conn
		si.StartMs = s.startDur.Milliseconds()
		s.mu.Unlock()
		allMeasured, costed := true, 0
		switch {
		case err != nil:
			si.State, si.Error = StateFailed, err.Error()
		case c != nil && c.alive():
			si.State = StateRunning
		default:
			si.State = StateStopped
		}
		for _, t := range ts {
			ti := ToolInfo{Name: name + Sep + t.Name, Summary: firstLine(t.Description), Offered: true}
			mt, err := newTool(s, t)
			if err == nil {
				_, err = tools.NewRegistry(mt)
			}
			if err != nil {
				ti.Offered, ti.Why = false, err.Error()
			} else if cost != nil {
				ti.Tokens, ti.Measured = cost(mt.Spec())
				si.Tokens += ti.Tokens
				allMeasured = allMeasured && ti.Measured
				costed++
			}
			si.Tools = append(si.Tools, ti)
		}
		si.Measured = costed > 0 && allMeasured
		out = append(out, si)
	}
	return out
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
