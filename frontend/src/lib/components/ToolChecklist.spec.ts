// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import ToolChecklist from './ToolChecklist.svelte';

afterEach(cleanup);

const tools = [
  { name: 'read_file', summary: 'Read a file.' },
  { name: 'list_dir', summary: 'List a folder.' },
] as never;

const box = (name: string) => screen.getAllByTestId('t-tool').find((l) => l.dataset.tool === name)!.querySelector('input')!;

describe('ToolChecklist', () => {
  it('lists MCP tools with their server and cost, and switches one off by server.tool', async () => {
    const onchange = vi.fn();
    render(ToolChecklist, {
      props: {
        tools,
        selected: undefined,
        costs: [{ name: 'read_file', tokens: 200 }, { name: 'list_dir', tokens: 90 }, { name: 'fault.echo', server: 'fault', tokens: 61 }],
        off: [{ name: 'fault.hang', server: 'fault', tokens: 40 }],
        testid: 't',
        onchange,
      },
    });
    const echo = screen.getAllByTestId('t-tool').find((l) => l.dataset.tool === 'fault.echo')!;
    expect(echo.textContent).toContain('MCP server fault · ≈61 tokens (estimated)');
    expect(box('fault.echo').checked).toBe(true);
    await fireEvent.click(box('fault.echo'));
    expect(onchange).toHaveBeenLastCalledWith(['read_file', 'list_dir', 'fault.hang']);
  });

  it("labels each cost as Ollama's count or Loupe's estimate", () => {
    render(ToolChecklist, {
      props: {
        tools,
        selected: undefined,
        costs: [
          { name: 'read_file', tokens: 180, measured: true },
          { name: 'list_dir', tokens: 90, measured: false },
          { name: 'fault.echo', server: 'fault', tokens: 55, measured: true },
        ],
        testid: 't',
        onchange: vi.fn(),
      },
    });
    const label = (name: string) => screen.getAllByTestId('t-tool').find((l) => l.dataset.tool === name)!.textContent;
    expect(label('read_file')).toContain('read a file · 180 tokens (measured by Ollama)');
    expect(label('list_dir')).toContain('list a folder · ≈90 tokens (estimated)');
    expect(label('fault.echo')).toContain('MCP server fault · 55 tokens (measured by Ollama)');
  });

  it('keeps every MCP tool on when the choice names built-ins alone', async () => {
    const onchange = vi.fn();
    render(ToolChecklist, {
      props: { tools, selected: ['read_file'], costs: [{ name: 'fault.echo', server: 'fault', tokens: 61 }], testid: 't', onchange },
    });
    expect(box('fault.echo').checked).toBe(true);
    expect(box('list_dir').checked).toBe(false);
    await fireEvent.click(box('list_dir'));
    expect(onchange).toHaveBeenLastCalledWith(undefined);
  });
});
