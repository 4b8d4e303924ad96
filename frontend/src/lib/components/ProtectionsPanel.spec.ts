// @vitest-environment jsdom
// Protections lists, beside what commands can reach, what each MCP server
// can: a stdio server sandboxed with what its entry grants, a URL server
// as running elsewhere.
import { cleanup, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxedProtections } from '../replay/machine';
import type { MCPReach } from '../types';
import ProtectionsPanel from './ProtectionsPanel.svelte';

afterEach(cleanup);

const protections = sandboxedProtections();

const servers: MCPReach[] = [
  {
    name: 'fs',
    scope: 'workspace',
    confined: true,
    detail: 'sandboxed as commands are; reads the workspace, writes out; no network',
    grant: { paths: ['out'] },
  },
  { name: 'remote', scope: 'global', confined: false, detail: 'runs at https://h/mcp, not on this machine', grant: {} },
];

describe('ProtectionsPanel', () => {
  it('lists what each MCP server was granted', () => {
    render(ProtectionsPanel, { protections, servers });
    const rows = screen.getAllByTestId('mcp-reach');
    expect(rows.map((r) => r.dataset.name)).toEqual(['fs', 'remote']);
    expect(rows[0]!.dataset.confined).toBe('true');
    expect(rows[0]!.textContent).toContain('(this workspace)');
    expect(rows[0]!.textContent).toContain('writes out; no network');
    expect(rows[1]!.dataset.confined).toBe('false');
  });

  it('has no MCP section without servers', () => {
    render(ProtectionsPanel, { protections, servers: [] });
    expect(screen.queryByText('What MCP servers can reach')).toBeNull();
  });
});
