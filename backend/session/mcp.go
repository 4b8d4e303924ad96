package session

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"

	"github.com/loupe-dev/loupe/backend/llm"
	"github.com/loupe-dev/loupe/backend/mcp"
	"github.com/loupe-dev/loupe/backend/ollama"
	"github.com/loupe-dev/loupe/backend/permission"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/tools"
	"github.com/loupe-dev/loupe/backend/trace"
	"github.com/loupe-dev/loupe/backend/workspace"
)

// MCPLogDir is where the MCP servers' stderr is kept: beside the database,
// in Loupe's data folder.
func MCPLogDir(dbPath string) string { return filepath.Join(filepath.Dir(dbPath), "mcp-logs") }

// MCPCallTimeout bounds one MCP tool call (a var so tests can shorten it).
var MCPCallTimeout = mcp.DefaultCallTimeout

// mcpServers are the servers a run in dir uses: the global ones, and the
// workspace's own when it is trusted (a workspace server replaces a global
// one of the same name).
func (m *Manager) mcpServers(ctx context.Context, dir string) (mcp.Servers, []trace.Notice, error) {
	global, err := settings.LoadMCP(ctx, m.store)
	if err != nil {
		return nil, nil, err
	}
	local, notices, err := m.ws.MCPServers(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	return mcp.Merge(global, local), notices, nil
}

// mcpOptions is how the servers of a run in dir run: stdio ones in the
// sandbox of runner, the workspace's runner of commands (its exposed
// paths, what the rules hide), but with the workspace read-only and no
// network unless their entry grants it.
func (m *Manager) mcpOptions(dir string, runner sandbox.Runner) mcp.Options {
	return mcp.Options{Dir: dir, LogDir: MCPLogDir(m.store.Path()), CallTimeout: MCPCallTimeout, HTTPClient: m.mcpHTTP(), Start: m.mcpStart(runner)}
}

func (m *Manager) mcpStart(runner sandbox.Runner) func(context.Context, []string, string, []string, mcp.Grant) (*sandbox.Process, error) {
	return func(ctx context.Context, argv []string, dir string, env []string, g mcp.Grant) (*sandbox.Process, error) {
		// What a server may read beyond its view is held to the rule of
		// the paths shown to commands: never the home folder or what holds it.
		for _, p := range g.Read {
			if err := m.ws.CheckShown(filepath.Clean(p), "an MCP server"); err != nil {
				return nil, fmt.Errorf("its \"read\" grant: %w", err)
			}
		}
		c, ok := runner.(sandbox.Confined)
		if !ok {
			return nil, errors.New("MCP servers run only in the sandbox of the workspace's commands")
		}
		// The workspace's network setting is for commands: a server
		// has its own.
		c.AllowNetwork = g.Network
		c.Expose = append(slices.Clone(c.Expose), g.Read...)
		return c.Start(ctx, argv, dir, env, g.Paths)
	}
}

// mcpRunner is the sandbox a run in dir would run commands in (as
// Assemble makes it, with the user's rules). dir "" (the global servers,
// listed outside any workspace): an empty folder of their own, which
// cleanup removes.
func (m *Manager) mcpRunner(ctx context.Context, dir string) (runner sandbox.Runner, workDir string, cleanup func(), err error) {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "loupe-mcp-")
		if err != nil {
			return nil, "", nil, err
		}
		c := sandbox.Confined{Workspace: tmp, Hide: m.ws.Hidden(), BestEffort: !sandbox.Probe().Sandboxed()}
		return c, tmp, func() { _ = os.RemoveAll(tmp) }, nil
	}
	set, err := settings.Load(ctx, m.store)
	if err != nil {
		return nil, "", nil, err
	}
	_, runner, _, err = m.ws.Assemble(ctx, dir, workspace.Run{Mode: permission.ModeAsk, Tools: set.Tools, Rules: set.Rules})
	if err != nil {
		return nil, "", nil, err
	}
	return runner, dir, func() {}, nil
}

// startMCP starts the MCP servers of a run in dir (in workDir, confined
// by runner: mcpRunner) and returns their pool
// (nil when there are none; Close it when the run ends), their tools and
// the notices of what could not start or be offered.
func (m *Manager) startMCP(ctx context.Context, dir, workDir string, runner sandbox.Runner) (*mcp.Pool, []tools.Tool, []trace.Notice, error) {
	servers, notices, err := m.mcpServers(ctx, dir)
	if err != nil || len(servers) == 0 {
		return nil, nil, notices, err
	}
	pool := mcp.NewPool(servers, m.mcpOptions(workDir, runner))
	notices = append(notices, pool.Start(ctx)...)
	ts, skipped := pool.Tools()
	return pool, ts, append(notices, skipped...), nil
}

// withMCP is the run's registry: the built-in tools the session offers,
// then the MCP servers' tools.
func withMCP(builtins *tools.Registry, extra []tools.Tool) (*tools.Registry, error) {
	if len(extra) == 0 {
		return builtins, nil
	}
	return tools.NewRegistry(append(builtins.Tools(), extra...)...)
}

// MCPServers starts the MCP servers a run in dir would use (dir "" for the
// global ones alone), lists each with its state, its tools and what their
// schemas cost, and stops them: the window's Settings → MCP servers. The
// env and header values are never in it.
func (m *Manager) MCPServers(ctx context.Context, dir string) ([]mcp.ServerInfo, error) {
	global, err := settings.LoadMCP(ctx, m.store)
	if err != nil {
		return nil, err
	}
	var local mcp.Servers
	if dir != "" {
		if local, _, err = m.ws.MCPServers(ctx, dir); err != nil {
			return nil, err
		}
	}
	all := mcp.Merge(global, local)
	pool := m.runningPool(dir, all)
	if pool == nil {
		runner, workDir, cleanup, err := m.mcpRunner(ctx, dir)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		pool = mcp.NewPool(all, m.mcpOptions(workDir, runner))
		defer pool.Close()
		pool.Start(ctx)
	}
	infos := pool.Info(all, m.schemaCost(ctx))
	for i := range infos {
		if _, ok := local[infos[i].Name]; ok {
			infos[i].Scope = "workspace"
		}
	}
	return infos, nil
}

// MCPReach says what each MCP server a run in dir would use (dir "" for
// the global ones) can do on this machine, without starting any: for
// Protections.
func (m *Manager) MCPReach(ctx context.Context, dir string) ([]mcp.Reach, error) {
	global, err := settings.LoadMCP(ctx, m.store)
	if err != nil {
		return nil, err
	}
	var local mcp.Servers
	if dir != "" {
		if local, _, err = m.ws.MCPServers(ctx, dir); err != nil {
			return nil, err
		}
	}
	notSandboxed := ""
	if p := sandbox.Probe(); !p.Sandboxed() {
		notSandboxed = p.Report().Why
	}
	return mcp.Merge(global, local).Reach(local, notSandboxed), nil
}

// schemaCost costs a schema for the MCP servers' listing, which no model
// is picked for: Ollama counts it with the model it holds loaded (the one
// it keeps longest, the one in use), else the estimate stands in.
func (m *Manager) schemaCost(ctx context.Context) func(llm.ToolSpec) (int, bool) {
	var model string
	if m.model == nil {
		// A manager with no Ollama (a tool that lists servers only).
		return func(s llm.ToolSpec) (int, bool) { return SchemaTokens(s), false }
	}
	if ms, err := m.model.Running(ctx); err == nil && len(ms) > 0 {
		model = ms[0].Name
	}
	return func(s llm.ToolSpec) (int, bool) {
		if model == "" {
			return SchemaTokens(s), false
		}
		c, _ := m.costs.Measure(ctx, m.model, model, []llm.ToolSpec{s}, SchemaTokens)
		return c[s.Name].Tokens, c[s.Name].Measured
	}
}

// SchemaTokens is what one tool's schema adds to every request, by the
// estimate the context meter and the readiness check use.
func SchemaTokens(s llm.ToolSpec) int {
	rate := trace.DefaultRate()
	return rate.Tokens(trace.PromptBytesOf(llm.Request{Tools: []llm.ToolSpec{s}})) - rate.Tokens(trace.PromptBytesOf(llm.Request{}))
}

// MCPLog is the end of a server's log (its stderr), for the window.
func (m *Manager) MCPLog(name string) string {
	if !mcp.ValidName(name) {
		return ""
	}
	return mcp.LogTail(filepath.Join(MCPLogDir(m.store.Path()), name+".log"), 64<<10)
}

// MCPSpecs are the schemas of the MCP tools a run in dir would offer: the
// servers start to list them and stop again. A server that cannot start
// offers nothing (its notice is the run's, when one starts).
func (m *Manager) MCPSpecs(ctx context.Context, dir string) ([]llm.ToolSpec, error) {
	servers, _, err := m.mcpServers(ctx, dir)
	if err != nil {
		return nil, err
	}
	if pool := m.runningPool(dir, servers); pool != nil {
		ts, _ := pool.Tools()
		return specsOf(ts), nil
	}
	runner, workDir, cleanup, err := m.mcpRunner(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	pool, ts, _, err := m.startMCP(ctx, dir, workDir, runner)
	if err != nil {
		pool.Close()
		return nil, err
	}
	defer pool.Close()
	return specsOf(ts), nil
}

func specsOf(ts []tools.Tool) []llm.ToolSpec {
	specs := make([]llm.ToolSpec, len(ts))
	for i, t := range ts {
		specs[i] = t.Spec()
	}
	return specs
}

// mcpHTTP is the client MCP servers over HTTP are reached through: the
// model client's counted dials, or dials of their own for a Manager with
// no model client (`loupe mcp list`).
func (m *Manager) mcpHTTP() *http.Client {
	if m.model != nil {
		return m.model.HTTPClient()
	}
	return ollama.NewDials().HTTPClient()
}
