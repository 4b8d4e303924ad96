// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PauseDraft } from '../state/pause.svelte';
import type { SessionState } from '../state/session.svelte';
import { Stepping } from '../state/stepping.svelte';
import type { Command, Pause } from '../types';
import PauseEditor from './PauseEditor.svelte';

afterEach(cleanup);

function show(pause: Pause, busy = false) {
  const draft = new PauseDraft(pause);
  const cb = { onapply: vi.fn(), onstep: vi.fn(), oncontinue: vi.fn(), onskip: vi.fn() };
  render(PauseEditor, { props: { draft, busy, ...cb } });
  return { draft, cb };
}

const request: Pause = {
  seq: 11,
  point: 'before_request',
  run: 2,
  round: 1,
  request: {
    model: 'm',
    system: 'Be helpful.',
    options: { num_ctx: 8192, temperature: 0.2 },
    tools: ['read_file', 'list_dir'],
    messages: [
      { seq: 1, role: 'user', content: 'first task' },
      { seq: 3, role: 'assistant', content: 'done' },
      { seq: 5, role: 'user', content: 'second task' },
    ],
  },
};

describe('PauseEditor', () => {
  it('edits the pending request: system prompt, options and every message', async () => {
    const { draft, cb } = show(request);
    expect(screen.getByTestId('pause-editor').getAttribute('data-point')).toBe('before_request');
    expect((screen.getByTestId('pause-system') as HTMLTextAreaElement).value).toBe('Be helpful.');
    expect((screen.getByTestId('pause-num-ctx') as HTMLInputElement).value).toBe('8192');
    expect((screen.getByTestId('pause-temperature') as HTMLInputElement).value).toBe('0.2');
    // Messages of earlier runs are folded away but still editable.
    const msgs = screen.getAllByTestId('pause-message') as HTMLTextAreaElement[];
    expect(msgs.map((m) => [m.dataset['seq'], m.value])).toEqual([
      ['1', 'first task'],
      ['3', 'done'],
      ['5', 'second task'],
    ]);
    expect((screen.getByTestId('pause-apply') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(msgs[2]!, { target: { value: 'a better task' } });
    await fireEvent.input(screen.getByTestId('pause-temperature'), { target: { value: '0' } });
    expect(draft.requestEdit()).toEqual({ options: { num_ctx: 8192, temperature: 0 }, messages: [{ seq: 5, content: 'a better task' }] });
    expect(screen.getByTestId('pause-dirty')).toBeTruthy();
    await fireEvent.click(screen.getByTestId('pause-apply'));
    await fireEvent.click(screen.getByTestId('pause-step'));
    await fireEvent.click(screen.getByTestId('pause-continue'));
    expect([cb.onapply.mock.calls.length, cb.onstep.mock.calls.length, cb.oncontinue.mock.calls.length]).toEqual([1, 1, 1]);
  });

  it('switches tools with a checklist and sends the change as a tools edit', async () => {
    const pause: Pause = {
      ...request,
      request: { ...request.request!, tools: ['read_file', 'list_dir'], offer: ['read_file', 'list_dir', 'run_command'], withheld: { run_command: 'set to never' } },
    };
    const draft = new PauseDraft(pause);
    const cur = { id: 's1', pauseDraft: draft } as unknown as SessionState;
    const sent: Command[] = [];
    const stepping = new Stepping(async (c) => (sent.push(c), {}), () => cur, vi.fn());
    render(PauseEditor, { props: { draft, onapply: () => stepping.applyEdits(cur), onstep: vi.fn(), oncontinue: vi.fn(), onskip: vi.fn() } });
    const box = (name: string) => screen.getAllByTestId('pause-tools-tool').find((l) => l.dataset.tool === name)!.querySelector('input')!;
    expect([box('read_file').checked, box('list_dir').checked, box('run_command').checked]).toEqual([true, true, false]);
    // A tool the run withholds cannot be switched on, and says why.
    expect(box('run_command').disabled).toBe(true);
    expect(screen.getAllByTestId('pause-tools-tool').find((l) => l.dataset.tool === 'run_command')!.textContent).toContain('set to never');
    await fireEvent.click(box('list_dir'));
    expect(screen.getByTestId('pause-dirty')).toBeTruthy();
    await fireEvent.click(screen.getByTestId('pause-apply'));
    await vi.waitFor(() => expect(sent).toEqual([{ do: 'edit_request', session: 's1', at: 11, request: { tools: ['read_file'] } }]));
    // Sent: the pause now offers what was left on, and nothing waits to be sent.
    expect(draft.pause.request?.tools).toEqual(['read_file']);
    expect(draft.dirty).toBe(false);
  });

  it('edits a call\u2019s arguments and shows the backend\u2019s validation error until they change', async () => {
    const { draft } = show({ seq: 12, point: 'before_tool', run: 1, round: 1, call_id: 'c1', tool: 'read_file', args: { path: 'a.go' } });
    const args = screen.getByTestId('pause-args') as HTMLTextAreaElement;
    expect(JSON.parse(args.value)).toEqual({ path: 'a.go' });
    draft.argsError = 'invalid arguments for read_file: missing required property "path"';
    await fireEvent.input(args, { target: { value: '{}' } });
    // Typing clears the old error; the next apply shows a new one.
    expect(screen.queryByTestId('pause-args-error')).toBeNull();
    draft.argsError = 'invalid arguments for read_file: missing required property "path"';
    expect((await screen.findByTestId('pause-args-error')).textContent).toContain('missing required property');
    expect(args.getAttribute('aria-invalid')).toBe('true');
  });

  it('skips a call with a written observation', async () => {
    const { draft, cb } = show({ seq: 13, point: 'before_tool', run: 1, round: 1, call_id: 'c1', tool: 'run_command', args: { command: 'rm -rf /' } });
    await fireEvent.input(screen.getByTestId('pause-skip-text'), { target: { value: 'Not allowed.' } });
    await fireEvent.click(screen.getByTestId('pause-skip'));
    expect(draft.skip).toBe('Not allowed.');
    expect(cb.onskip).toHaveBeenCalledTimes(1);
  });

  it('edits a result before it goes back', async () => {
    const { draft } = show({
      seq: 14,
      point: 'after_result',
      run: 1,
      round: 1,
      call_id: 'c1',
      tool: 'read_file',
      result: { call_id: 'c1', name: 'read_file', content: 'secret', is_error: false, truncated: false, bytes: 6, duration_ms: 1 },
    });
    const result = screen.getByTestId('pause-result') as HTMLTextAreaElement;
    expect(result.value).toBe('secret');
    await fireEvent.input(result, { target: { value: '[redacted]' } });
    expect(draft.resultChanged).toBe(true);
    expect((screen.getByTestId('pause-apply') as HTMLButtonElement).disabled).toBe(false);
  });

  it('has nothing to edit after a response, and does not resume while busy', () => {
    show({ seq: 15, point: 'after_response', run: 1, round: 1 }, true);
    expect(screen.queryByTestId('pause-apply')).toBeNull();
    expect((screen.getByTestId('pause-step') as HTMLButtonElement).disabled).toBe(true);
  });
});
