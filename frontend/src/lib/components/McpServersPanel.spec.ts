// @vitest-environment jsdom
// Settings → MCP servers: a pasted configuration is added, each server is
// listed with its tools and their schema cost, its log opens, and env
// values are never shown (the Go side sends their names only).
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Bridge } from '../bridge/types';
import type { MCPServerInfo } from '../types';
import McpServersPanel from './McpServersPanel.svelte';

afterEach(cleanup);

const everything: MCPServerInfo = {
  name: 'everything',
  scope: 'global',
  transport: 'stdio',
  describe: 'npx -y @modelcontextprotocol/server-everything',
  env_keys: ['API_KEY'],
  header_keys: null,
  granted: 'writes nothing of the workspace; no network',
  state: 'running',
  start_ms: 812,
  tokens: 130,
  measured: false,
  tools: [
    { name: 'everything.echo', summary: 'Echoes back the input string', tokens: 60, measured: false, offered: true },
    { name: 'everything.get-sum', summary: 'Returns the sum of two numbers', tokens: 70, measured: false, offered: true },
  ],
  log: '/data/mcp-logs/everything.log',
};

function fakeBridge() {
  let servers: MCPServerInfo[] = [];
  const b = {
    mcpServers: vi.fn(async () => servers),
    addMCPServers: vi.fn(async (pasted: string) => {
      const names = Object.keys((JSON.parse(pasted) as { mcpServers: Record<string, unknown> }).mcpServers);
      servers = [everything];
      return names;
    }),
    removeMCPServer: vi.fn(async () => {
      servers = [];
    }),
    mcpLog: vi.fn(async () => 'everything: started\n'),
  };
  return b;
}

describe('MCP servers in Settings', () => {
  it('adds pasted servers and lists their tools with their schema cost', async () => {
    const b = fakeBridge();
    render(McpServersPanel, { props: { bridge: b as unknown as Bridge, workspace: '/w' } });
    await waitFor(() => expect(screen.getByTestId('mcp-none')).toBeTruthy());
    const pasted = '{"mcpServers": {"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}}}';
    await fireEvent.input(screen.getByTestId('mcp-paste'), { target: { value: pasted } });
    await fireEvent.click(screen.getByTestId('mcp-add-pasted'));
    await waitFor(() => expect(screen.getAllByTestId('mcp-tool')).toHaveLength(2));
    expect(b.addMCPServers).toHaveBeenCalledWith(pasted);
    expect(b.mcpServers).toHaveBeenLastCalledWith('/w');
    // No model loaded in Ollama: Loupe's estimate, said to be one.
    expect(screen.getByTestId('mcp-server-tokens').textContent).toBe('≈130 tokens (estimated) per request');
    expect(screen.getAllByTestId('mcp-tool-tokens')[0]!.textContent).toBe('≈60 tokens (estimated)');
    expect(screen.getByTestId('mcp-server').textContent).toContain('API_KEY (values hidden)');
    expect(screen.getByTestId('mcp-granted').textContent).toBe('sandboxed: writes nothing of the workspace; no network');

    await fireEvent.click(screen.getByTestId('mcp-log-button'));
    await waitFor(() => expect(screen.getByTestId('mcp-log').textContent).toContain('everything: started'));

    await fireEvent.click(screen.getByTestId('mcp-remove'));
    await waitFor(() => expect(screen.getByTestId('mcp-none')).toBeTruthy());
    expect(b.removeMCPServer).toHaveBeenCalledWith('everything');
  });

  it("says when Ollama measured the costs, server and tool", async () => {
    const measured: MCPServerInfo = {
      ...everything,
      measured: true,
      tools: (everything.tools ?? []).map((t) => ({ ...t, measured: true })),
    };
    const b = { ...fakeBridge(), mcpServers: vi.fn(async () => [measured]) };
    render(McpServersPanel, { props: { bridge: b as unknown as Bridge, workspace: '/w' } });
    await waitFor(() => expect(screen.getAllByTestId('mcp-tool')).toHaveLength(2));
    expect(screen.getByTestId('mcp-server-tokens').textContent).toBe('130 tokens (measured by Ollama) per request');
    expect(screen.getAllByTestId('mcp-tool-tokens').map((c) => c.textContent)).toEqual([
      '60 tokens (measured by Ollama)',
      '70 tokens (measured by Ollama)',
    ]);
  });

  it('builds one server from the form', async () => {
    const b = fakeBridge();
    render(McpServersPanel, { props: { bridge: b as unknown as Bridge } });
    await fireEvent.input(screen.getByTestId('mcp-name'), { target: { value: 'fs' } });
    await fireEvent.input(screen.getByTestId('mcp-command'), { target: { value: 'npx' } });
    await fireEvent.input(screen.getByTestId('mcp-args'), { target: { value: '-y @modelcontextprotocol/server-filesystem /tmp' } });
    await fireEvent.click(screen.getByTestId('mcp-add-form'));
    await waitFor(() => expect(b.addMCPServers).toHaveBeenCalled());
    expect(JSON.parse(b.addMCPServers.mock.calls[0]![0])).toEqual({
      mcpServers: { fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] } },
    });
  });
});
