// @vitest-environment jsdom
// Settings → Hooks against what Go answered: the replay bridge plays the
// try_hooks recording (backend/session TestRecordingsTryHooks), whose
// tries it answers only for the exact hooks Go was asked about. The hooks
// are typed into the form and tried before they are saved.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReplayBridge } from '../replay/bridge';
import { recording } from '../replay/recordings';
import { goSettings } from '../testing/settings';
import { judged } from '../testing/judged';
import type { Hook, Settings } from '../types';
import HooksPanel from './HooksPanel.svelte';
import SettingsForm from './SettingsForm.svelte';

afterEach(cleanup);

interface Query {
  method: string;
  args: [string, Hook[]];
}
const rec = recording('try_hooks');
const tries = rec.steps.map((s) => s.query as unknown as Query | undefined).filter((q): q is Query => q?.method === 'tryHooks');
const session = tries[0]!.args[0];
const [guard, scribble] = tries[0]!.args[1] as [Hook, Hook];
const sessions = [{ id: session, title: 'Tried session' }];

function bridge() {
  const b = new ReplayBridge(rec);
  return { b, ontry: vi.fn((id: string, hs: Hook[]) => b.tryHooks(id, hs)) };
}

/** Types hook i of the panel as h. */
async function type(i: number, h: Hook) {
  const row = () => screen.getAllByTestId('hook-row')[i]!;
  const field = (id: string) => row().querySelector(`[data-testid="${id}"]`) as HTMLInputElement;
  await fireEvent.input(field('hook-name'), { target: { value: h.name ?? '' } });
  await fireEvent.change(field('hook-event'), { target: { value: h.event } });
  if (h.matcher) await fireEvent.input(field('hook-matcher'), { target: { value: h.matcher } });
  await fireEvent.input(field('hook-command-input'), { target: { value: h.command } });
  if (h.on_failure) await fireEvent.change(field('hook-on-failure'), { target: { value: h.on_failure } });
}

describe('Settings → Hooks', () => {
  it('tries the hooks as typed, not saved, on a recorded session, says what each would have decided, and saves them with Settings', async () => {
    const { ontry } = bridge();
    const onsave = vi.fn();
    const settings: Settings = goSettings({ hooks: [] });
    render(SettingsForm, {
      props: { builtinTools: judged.tools, ruleChecks: judged.checks, checkRule: judged.check, settings, onsave, oncancel: () => {}, sessions, currentSession: session, ontryhooks: ontry },
    });
    expect(screen.getByTestId('hooks-none')).toBeTruthy();
    await fireEvent.click(screen.getByTestId('hook-add'));
    await type(0, guard);
    await fireEvent.click(screen.getByTestId('hook-add'));
    await type(1, scribble);

    // What the try promises, as hooktry.go does it.
    const about = screen.getByTestId('hooks-try-about').textContent ?? '';
    expect(about).toMatch(/really run/);
    expect(about).toMatch(/whole workspace read-only, so no file in the workspace changes/);
    expect(about).toMatch(/No tool call runs again, nothing is sent to the model, and the\s+session is not changed/);

    await fireEvent.click(screen.getByTestId('hooks-try-button'));
    await waitFor(() => expect(screen.getAllByTestId('hooks-tried-call')).toHaveLength(3));
    expect(ontry).toHaveBeenCalledTimes(1);
    const calls = screen.getAllByTestId('hooks-tried-call');
    expect(calls.map((c) => c.getAttribute('data-decision'))).toEqual(['allow', 'deny', '']);
    expect(calls.map((c) => c.querySelector('[data-testid="hooks-tried-decision"]')!.textContent)).toEqual(['allow', 'deny', 'no decision']);
    expect(calls[0]!.textContent).toMatch(/no rm \(before_tool\): passed, exit 0/);
    expect(calls[0]!.querySelector('[data-testid="hooks-tried-stdout"]')!.textContent).toBe('stdout: {"decision":"allow"}');
    expect(calls[1]!.textContent).toMatch(/run_command/);
    expect(calls[1]!.textContent).toMatch(/no rm \(before_tool\): blocked, exit 2/);
    expect(calls[1]!.querySelector('[data-testid="hooks-tried-stderr"]')!.textContent).toBe('stderr: no rm');
    // The hook that writes after an edit found the workspace read-only.
    expect(calls[2]!.textContent).toMatch(/edit_file/);
    expect(calls[2]!.textContent).toMatch(/scribble \(after_edit\): failed_continued, exit 1/);
    expect(calls[2]!.querySelector('[data-testid="hooks-tried-stderr"]')!.textContent).toBe('stderr: README.md is read-only');
    expect(screen.queryByTestId('hooks-try-error')).toBeNull();
    expect(screen.queryByTestId('hooks-tried-stale')).toBeNull();
    expect(onsave).not.toHaveBeenCalled();

    await fireEvent.click(screen.getByTestId('settings-save'));
    expect(onsave).toHaveBeenCalledTimes(1);
    const saved = (onsave.mock.calls[0]![0] as Settings).hooks!;
    expect(saved.map((h) => [h.name, h.event, h.matcher, h.command, h.on_failure])).toEqual([
      ['no rm', 'before_tool', 'run_command', guard.command, 'block'],
      ['scribble', 'after_edit', '', scribble.command, 'continue'],
    ]);
    // Typed on after the try: the results say they are of the hooks as they were.
    await fireEvent.input(screen.getByLabelText('Command of hook 1'), { target: { value: 'true' } });
    expect(screen.getByTestId('hooks-tried-stale').textContent).toMatch(/changed since, so try again/);
  });

  it('shows Go\u2019s refusal of a hook as it said it, and no results', async () => {
    const { ontry } = bridge();
    render(HooksPanel, { props: { hooks: [{ event: 'before_tool', command: '' }], onchange: () => {}, sessions, ontry } });
    await fireEvent.click(screen.getByTestId('hooks-try-button'));
    const alert = await screen.findByTestId('hooks-try-error');
    expect(alert.getAttribute('role')).toBe('alert');
    expect(alert.textContent).toMatch(/hook 1: no command: set "command" to the shell command to run/);
    expect(screen.queryByTestId('hooks-tried')).toBeNull();
  });

  it('adds, edits and removes hooks; a hook moved to an event about no tool drops its matcher', async () => {
    const onchange = vi.fn();
    const { rerender } = render(HooksPanel, { props: { hooks: [], onchange } });
    expect(screen.getByTestId('hooks-none')).toBeTruthy();
    expect(screen.queryByTestId('hooks-try')).toBeNull();
    await fireEvent.click(screen.getByTestId('hook-add'));
    const added = onchange.mock.calls[0]![0] as Hook[];
    expect(added).toEqual([{ name: '', event: 'after_edit', matcher: '', command: '', on_failure: 'block' }]);
    await rerender({ hooks: [{ ...added[0]!, matcher: '*_file' }], onchange });
    await fireEvent.input(screen.getByLabelText('Command of hook 1'), { target: { value: 'go vet ./...' } });
    expect(onchange.mock.calls.at(-1)![0]).toEqual([{ ...added[0], matcher: '*_file', command: 'go vet ./...' }]);
    await fireEvent.input(screen.getByLabelText('Timeout of hook 1 in seconds'), { target: { value: '60' } });
    expect((onchange.mock.calls.at(-1)![0] as Hook[])[0]!.timeout_s).toBe(60);
    await fireEvent.change(screen.getByLabelText('When hook 1 runs'), { target: { value: 'run_end' } });
    expect(onchange.mock.calls.at(-1)![0]).toEqual([{ ...added[0], event: 'run_end', matcher: '' }]);
    await fireEvent.click(screen.getByRole('button', { name: 'Remove hook 1' }));
    expect(onchange.mock.calls.at(-1)![0]).toEqual([]);
  });

  it('says there is nothing to try on before any session is stored, and tries nothing without hooks', async () => {
    const { ontry } = bridge();
    render(HooksPanel, { props: { hooks: [guard], onchange: () => {}, sessions: [], ontry } });
    expect(screen.getByTestId('hooks-try-none').textContent).toMatch(/no stored session/);
    cleanup();
    render(HooksPanel, { props: { hooks: [], onchange: () => {}, sessions, ontry } });
    expect((screen.getByTestId('hooks-try-button') as HTMLButtonElement).disabled).toBe(true);
  });
});
