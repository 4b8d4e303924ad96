// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recording } from '../replay/recordings';
import type { Hook, Tried } from '../types';
import HooksPanel from './HooksPanel.svelte';

// Settings → Hooks against what Go answered: the tries of the try_hooks
// recording (backend/session TestRecordingsTryHooks), looked up by the
// exact arguments the panel sends.

afterEach(cleanup);

interface Query {
  method: string;
  args: [string, Hook[]];
  result?: Tried[] | null;
  error?: string;
}
const queries = recording('try_hooks')
  .steps.map((s) => (s as { query?: Query }).query)
  .filter((q): q is Query => q?.method === 'tryHooks');
const session = queries[0]!.args[0];

/** App.TryHooks as recorded: only what Go was asked is answered. */
async function replayTry(id: string, hooks: Hook[]): Promise<Tried[]> {
  const q = queries.find((x) => isDeepStrictEqual(x.args, [id, JSON.parse(JSON.stringify(hooks))]));
  if (!q) throw new Error(`not recorded: tryHooks(${id}, ${JSON.stringify(hooks)})`);
  if (q.error !== undefined) throw new Error(q.error);
  return q.result ?? [];
}

describe('HooksPanel', () => {
  it('tries the hooks as typed on a recorded session and says what each would have decided', async () => {
    const ontry = vi.fn(replayTry);
    render(HooksPanel, { props: { hooks: queries[0]!.args[1], onchange: () => {}, sessions: [{ id: session, title: 'Tried session' }], current: session, ontry } });
    expect(screen.getAllByTestId('hook-row')).toHaveLength(2);
    await fireEvent.click(screen.getByTestId('hooks-try-button'));
    await waitFor(() => expect(screen.getAllByTestId('hooks-tried-call')).toHaveLength(3));
    expect(ontry).toHaveBeenCalledTimes(1);
    const calls = screen.getAllByTestId('hooks-tried-call');
    expect(calls.map((c) => c.getAttribute('data-decision'))).toEqual(['allow', 'deny', '']);
    expect(calls[1]!.textContent).toMatch(/no rm \(before_tool\): blocked, exit 2/);
    expect(calls[1]!.querySelector('[data-testid="hooks-tried-stderr"]')!.textContent).toBe('stderr: no rm');
    // The hook that writes after an edit found the workspace read-only.
    expect(calls[2]!.textContent).toMatch(/scribble \(after_edit\): failed_continued, exit 1/);
    expect(calls[2]!.textContent).toMatch(/README\.md is read-only/);
    expect(screen.queryByTestId('hooks-try-error')).toBeNull();
  });

  it('shows Go\u2019s refusal of a hook as it said it', async () => {
    render(HooksPanel, { props: { hooks: queries[1]!.args[1], onchange: () => {}, sessions: [{ id: session, title: 'Tried session' }], ontry: replayTry } });
    await fireEvent.click(screen.getByTestId('hooks-try-button'));
    const alert = await screen.findByTestId('hooks-try-error');
    expect(alert.textContent).toMatch(/hook 1: no command: set "command" to the shell command to run/);
    expect(screen.queryByTestId('hooks-tried')).toBeNull();
  });

  it('adds, edits and removes hooks through onchange', async () => {
    const onchange = vi.fn();
    const { rerender } = render(HooksPanel, { props: { hooks: [], onchange } });
    expect(screen.getByTestId('hooks-none')).toBeTruthy();
    expect(screen.queryByTestId('hooks-try')).toBeNull();
    await fireEvent.click(screen.getByTestId('hook-add'));
    const added = onchange.mock.calls[0]![0] as Hook[];
    expect(added).toEqual([{ name: '', event: 'after_edit', matcher: '', command: '', on_failure: 'block' }]);
    await rerender({ hooks: added, onchange });
    await fireEvent.input(screen.getByTestId('hook-command-input'), { target: { value: 'go vet ./...' } });
    expect(onchange.mock.calls.at(-1)![0]).toEqual([{ ...added[0], command: 'go vet ./...' }]);
    await fireEvent.change(screen.getByTestId('hook-event'), { target: { value: 'run_end' } });
    expect((onchange.mock.calls.at(-1)![0] as Hook[])[0]!.event).toBe('run_end');
    await fireEvent.click(screen.getByTestId('hook-remove'));
    expect(onchange.mock.calls.at(-1)![0]).toEqual([]);
  });

  it('says there is nothing to try on before any session is stored', () => {
    render(HooksPanel, { props: { hooks: queries[0]!.args[1], onchange: () => {}, sessions: [], ontry: replayTry } });
    expect(screen.getByTestId('hooks-try-none').textContent).toMatch(/no stored session/);
  });
});
