// @vitest-environment jsdom
// Learning mode that never misleads (issue 11): what a newcomer stepping
// through a run was told wrong, each on a replay of the Go engine's
// recordings (backend/session/recordings_test.go).
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recording } from '../lib/replay/recordings';
import { ended, finish, key, openSession, pausedAt, play, played, send, slow } from './testing';

afterEach(finish);

const inPause = () => screen.getByTestId('pause-editor').contains(document.activeElement);
const explainOf = (card: HTMLElement) => within(card).getByTestId('explain-text').textContent ?? '';
const lit = () =>
  screen
    .getAllByTestId('loop-step')
    .filter((s) => s.getAttribute('data-lit') === 'true')
    .map((s) => s.getAttribute('data-step'));

describe('Esc at a pause', slow, () => {
  it('keeps the keyboard in the pause card after Apply edits, and Esc there never stops the run', async () => {
    const replay = play('step_edits');
    await openSession();
    await fireEvent.click(screen.getByTestId('step-toggle'));
    await send('Read missing.txt');
    const ed = await pausedAt('before_request');
    await fireEvent.input(within(ed).getByTestId('pause-system'), { target: { value: 'Answer in one word.' } });
    await fireEvent.input(within(ed).getByTestId('pause-num-ctx'), { target: { value: '4096' } });
    await fireEvent.input(within(ed).getAllByTestId('pause-message').at(-1)!, { target: { value: 'Read README.md' } });
    const apply = within(ed).getByTestId('pause-apply');
    apply.focus();
    await fireEvent.click(apply);
    await waitFor(() => expect(replay.commandsOf('edit_request')).toHaveLength(1));
    // The edits came back as events and the button is disabled: the keyboard stayed in the card.
    await waitFor(() => expect(screen.getAllByTestId('edit-card')).toHaveLength(3));
    await waitFor(() => expect(inPause()).toBe(true));
    await key('Escape');
    await key('Escape');
    expect(inPause()).toBe(true);
    expect(screen.queryByTestId('stop-confirm')).toBeNull();
    // Esc on the card says what it does instead of nothing (issue 20).
    expect(screen.getByTestId('pause-esc-note').textContent).toMatch(/keeps the run paused.*Stop/s);
    // From a field too: Esc leaves the field for the card.
    const system = within(screen.getByTestId('pause-editor')).getByTestId('pause-system');
    system.focus();
    await key('Escape');
    expect(document.activeElement).toBe(screen.getByTestId('pause-editor'));
    await key('Escape');
    expect(replay.commandsOf('stop')).toEqual([]);
    // And the run goes on from the same pause with the applied edits.
    await key('s');
    await pausedAt('after_response');
    expect(replay.commandsOf('step')).toEqual([{ do: 'step', session: 'session-1', at: 2 }]);
  });

  it('asks before Esc elsewhere stops a paused run, and says edits not sent are lost', async () => {
    const replay = play('stop_paused');
    await openSession();
    await fireEvent.click(screen.getByTestId('step-toggle'));
    await send('Say hi');
    const ed = await pausedAt('before_request');
    await fireEvent.input(within(ed).getByTestId('pause-system'), { target: { value: 'Be brief.' } });
    (document.activeElement as HTMLElement | null)?.blur();
    await key('Escape');
    const ask = await screen.findByTestId('stop-confirm');
    expect(ask.textContent).toContain('edits you typed there and did not send are lost');
    // Esc in the question keeps the run paused, with the edit still typed.
    await key('Escape');
    expect(screen.queryByTestId('stop-confirm')).toBeNull();
    expect(replay.commandsOf('stop')).toEqual([]);
    expect((within(screen.getByTestId('pause-editor')).getByTestId('pause-system') as HTMLTextAreaElement).value).toBe('Be brief.');
    // The toolbar's Stop asks too; yes stops.
    await fireEvent.click(screen.getByTestId('step-stop-button'));
    await fireEvent.click(await screen.findByTestId('stop-confirm-stop'));
    await played(replay);
    expect(replay.commandsOf('stop')).toEqual([{ do: 'stop', session: 'session-1' }]);
    await waitFor(() => expect(within(screen.getByTestId('card-end')).getByTestId('stop-reason').getAttribute('data-reason')).toBe('cancelled'));
  });

  it('stops a run that is not paused at once', async () => {
    const replay = play('stop_streaming');
    await openSession();
    await send('Greet me');
    await waitFor(() => expect(screen.getByTestId('response-text').textContent).toBe('Hello there'));
    (document.activeElement as HTMLElement | null)?.blur();
    await key('Escape');
    await played(replay);
    expect(screen.queryByTestId('stop-confirm')).toBeNull();
  });
});

describe('Explain at a pause', slow, () => {
  it('speaks of the change to come while paused before the edit, and of what happened after', async () => {
    const replay = play('breakpoint_skip', { from: 'breakpoint set' });
    await openSession();
    await fireEvent.click(screen.getByTestId('explain-toggle'));
    await send('Write x.txt');
    await pausedAt('before_tool');
    const call = () => screen.getByTestId('card-call');
    expect(explainOf(call())).not.toContain('Loupe changed');
    expect(explainOf(call())).toContain('When it runs, Loupe will change x.txt');
    expect(explainOf(call())).toContain('The run is paused before this call');
    const cp = screen.getByTestId('card-checkpoint');
    expect(explainOf(cp)).toContain('before the call runs');
    expect(explainOf(cp)).toContain('Nothing moves until you press Step');
    // Skipped: the card and its words say what happened.
    await fireEvent.input(within(screen.getByTestId('pause-editor')).getByTestId('pause-skip-text'), { target: { value: 'I wrote it myself.' } });
    await fireEvent.click(within(screen.getByTestId('pause-editor')).getByTestId('pause-skip'));
    await played(replay);
    await waitFor(() => expect(explainOf(call())).toContain('You skipped this call'));
    expect(explainOf(screen.getByTestId('card-checkpoint'))).toContain('before the call ran');
    expect(explainOf(screen.getByTestId('card-checkpoint'))).toContain('You skipped the call');
  });

  it('does not say the command ran while it waits for approval', async () => {
    const replay = play('approve_command');
    await openSession();
    await fireEvent.click(screen.getByTestId('explain-toggle'));
    await send('Write hello.txt with a command');
    await screen.findByTestId('approval-card');
    const text = explainOf(screen.getByTestId('card-call'));
    expect(text).not.toContain('Loupe ran the command');
    expect(text).toContain('Loupe is waiting for your answer');
    expect(text).toContain('If you approve, Loupe will run it');
    await waitFor(() => expect(document.activeElement?.getAttribute('data-testid')).toBe('card-call'));
    await fireEvent.keyDown(window, { key: 'a' });
    await ended();
    expect(replay.commandsOf('answer')).toHaveLength(1);
    await waitFor(() => expect(explainOf(screen.getByTestId('card-call'))).toContain('Loupe ran the command'));
  });

  it('says a result waits at an after_result pause', async () => {
    play('step_through', { from: 'paused after_result' });
    await openSession();
    await fireEvent.click(screen.getByTestId('explain-toggle'));
    await pausedAt('after_result');
    expect(explainOf(screen.getByTestId('card-call'))).toContain('The result waits at the pause');
    expect(explainOf(screen.getByTestId('card-observation'))).toContain('the run is paused before it goes back');
  });
});

describe('The loop diagram in the window', slow, () => {
  it('lights one step, Permission, while a call waits for approval', async () => {
    play('approve_command');
    await openSession();
    await send('Write hello.txt with a command');
    await screen.findByTestId('approval-card');
    expect(lit()).toEqual(['permission']);
    expect(screen.getByTestId('loop-caption').textContent).toContain('Now: Permission');
  });

  it('lights Respond while the answer streams', async () => {
    const replay = play('stop_streaming');
    await openSession();
    await send('Greet me');
    await waitFor(() => expect(screen.getByTestId('streaming')).toBeTruthy());
    replay.expectWaitingFor('stop');
    expect(lit()).toEqual(['respond']);
    await fireEvent.click(screen.getByTestId('stop-button'));
    await played(replay);
    await waitFor(() => expect(lit()).toEqual(['stop']));
  });
});

describe('A pause is shown once', slow, () => {
  it('on its own checkpoint card, at every checkpoint, and no card contradicts it', async () => {
    const replay = play('step_through');
    await openSession();
    await fireEvent.click(screen.getByTestId('step-toggle'));
    await send('What is here?');
    const points = ['before_request', 'after_response', 'before_tool', 'after_result', 'before_request', 'after_response'];
    for (const [i, point] of points.entries()) {
      const ed = await pausedAt(point);
      expect(screen.getAllByTestId('pause-editor')).toHaveLength(1);
      const waiting = screen.getAllByTestId('card-checkpoint').filter((c) => within(c).getByTestId('checkpoint-state').getAttribute('data-state') === 'paused');
      expect(waiting).toHaveLength(1);
      expect(waiting[0]!.contains(ed)).toBe(true);
      if (point === 'before_request') expect(waiting[0]!.getAttribute('aria-label')).toBe('Paused before the request is sent');
      const call = screen.queryByTestId('card-call');
      const status = call ? within(call).getByTestId('call-status') : null;
      if (i === 1) {
        // Its one call has not run: no call shows a spinner.
        expect(within(ed).getByText(/asks for one tool call, which has not run/)).toBeTruthy();
        expect(status?.getAttribute('data-status')).toBe('queued');
        expect(within(status!).queryByRole('status')).toBeNull();
      }
      if (i === 5) {
        // The final answer asks for nothing: the pause says so, never "the first call" (issue 20).
        expect(within(ed).getByTestId('pause-answer').textContent).toMatch(/asks for no tool call: it is the final answer/);
        expect(within(ed).getByTestId('pause-answer').textContent).not.toMatch(/first call/);
      }
      if (point === 'after_result') {
        // The result has not gone back: the call is not "Done" yet.
        expect(status?.textContent).not.toMatch(/^\s*Done/);
        expect(status?.getAttribute('data-status')).toBe('paused');
      }
      await fireEvent.click(screen.getByTestId('step-button'));
    }
    await played(replay);
    await waitFor(() => expect(within(screen.getByTestId('card-call')).getByTestId('call-status').getAttribute('data-status')).toBe('done'));
    expect(screen.getAllByTestId('card-checkpoint')[0]!.getAttribute('aria-label')).toBe('Paused before the request was sent');
  });
});

describe('What the model saw at a pause', slow, () => {
  it('is there at the first pause, before any request was sent, and shows what the model will see with the edits', async () => {
    play('step_edits');
    await openSession();
    await fireEvent.click(screen.getByTestId('step-toggle'));
    await send('Read missing.txt');
    const ed = await pausedAt('before_request');
    // One message of history, said so.
    expect(ed.textContent).toContain('History: 1 message, all sent again');
    const button = screen.getByTestId('model-saw-button') as HTMLButtonElement;
    expect(button.disabled).toBe(false);
    await fireEvent.click(button);
    const view = await screen.findByTestId('model-saw');
    expect(within(view).getByTestId('model-saw-pending').textContent).toContain('Not sent yet');
    await waitFor(() => expect(within(view).getByTestId('model-saw-system').textContent).toContain('You are a coding agent'));
    expect(within(view).getAllByTestId('model-saw-message').map((m) => m.textContent).join(' ')).toContain('Read missing.txt');
    expect(within(view).getByTestId('model-saw-tools').textContent).toContain('read_file');
    expect(within(view).getByTestId('model-saw-summary').textContent).toContain('first request');
  });
});

describe('Words that stay true', slow, () => {
  it('tells relative times again as time passes, instead of "just now" for ever', async () => {
    const end = recording('approve_command').steps.flatMap((s) => (s.event && (s.event as { kind?: string }).kind === 'run_end' ? [s.event as { time: string }] : []))[0]!;
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setInterval', 'clearInterval', 'Date'] });
    try {
      vi.setSystemTime(Date.parse(end.time) + 10_000);
      play('approve_command', { from: 'end' });
      const item = await screen.findByTestId('session-item');
      await waitFor(() => expect(item.textContent).toContain('just now'));
      vi.advanceTimersByTime(5 * 60_000);
      await waitFor(() => expect(screen.getByTestId('session-item').textContent).toContain('5 min ago'));
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not call the text of a stopped run a final answer', async () => {
    const replay = play('stop_streaming');
    await openSession();
    await send('Greet me');
    await waitFor(() => expect(screen.getByTestId('response-text').textContent).toBe('Hello there'));
    await fireEvent.click(screen.getByTestId('stop-button'));
    await played(replay);
    const card = await screen.findByTestId('card-end');
    expect(card.getAttribute('aria-label')).toBe('Run stopped');
    expect(card.textContent).not.toContain('Final answer');
    expect(within(card).getByTestId('end-partial').textContent).toContain('not a final answer');
  });

  it('defines run, round and turn once, in the help', async () => {
    play('step_through');
    await openSession();
    (document.activeElement as HTMLElement | null)?.blur();
    await key('?');
    const words = screen.getByTestId('help-words');
    expect([...words.querySelectorAll('dt')].map((t) => t.textContent)).toEqual(['Run (a turn)', 'Round', 'Checkpoint']);
    expect(words.textContent).toContain('One message of yours and everything the loop did for it');
  });
});

describe('Step mode is remembered', slow, () => {
  it('per session from the Settings default, and across Continue', async () => {
    const replay = play('step_default', { pick: '/home/me/project' });
    await fireEvent.click(await screen.findByTestId('open-settings'));
    const box = (await screen.findByTestId('settings-step-mode')) as HTMLInputElement;
    expect(box.checked).toBe(false);
    await fireEvent.click(box);
    await fireEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() => expect(replay.callsOf('saveSettings')).toHaveLength(1));
    expect((replay.callsOf('saveSettings')[0]![0] as { step_mode: boolean }).step_mode).toBe(true);
    // A new session starts in Step mode.
    await fireEvent.keyDown(window, { key: 'n', ctrlKey: true });
    await fireEvent.click(await screen.findByTestId('pick-workspace'));
    await waitFor(() => expect((screen.getByTestId('workspace-path') as HTMLInputElement).value).toBe('/home/me/project'));
    const qwen = screen.getAllByTestId('model-option').find((o) => o.textContent?.includes('qwen3:0.6b'))!;
    await fireEvent.click(within(qwen).getByRole('radio'));
    await fireEvent.click(screen.getByTestId('create-session'));
    await screen.findByTestId('empty-session');
    expect((screen.getByTestId('step-toggle') as HTMLInputElement).checked).toBe(true);
    await send('Hi');
    await pausedAt('before_request');
    await fireEvent.click(screen.getByTestId('continue-button'));
    await ended();
    // Continue let that run go; Step mode is still on, and the next run pauses again.
    expect((screen.getByTestId('step-toggle') as HTMLInputElement).checked).toBe(true);
    await send('Once more');
    await pausedAt('before_request');
    await fireEvent.click(screen.getByTestId('continue-button'));
    await played(replay);
    await ended(2);
    expect((screen.getByTestId('step-toggle') as HTMLInputElement).checked).toBe(true);
  });
});

describe('Between Step and the next pause', slow, () => {
  it('says the run goes on from the pause, not that it ended there', async () => {
    const replay = play('step_through', { from: 'paused before_request' });
    await openSession();
    await pausedAt('before_request');
    // Step's answer is held: the pause is being left, and no event says so yet.
    const answer = replay.do.bind(replay);
    let release: () => void = () => {};
    replay.do = async (c) => {
      if (c.do === 'step') await new Promise<void>((r) => (release = r));
      return answer(c);
    };
    await fireEvent.click(screen.getByTestId('explain-toggle'));
    await fireEvent.click(screen.getByTestId('step-button'));
    const cp = screen.getAllByTestId('card-checkpoint').at(-1)!;
    await waitFor(() => expect(within(cp).getByTestId('checkpoint-state').getAttribute('data-state')).toBe('going'));
    expect(cp.textContent).not.toContain('ended');
    release();
    await pausedAt('after_response');
    expect(within(screen.getAllByTestId('card-checkpoint')[0]!).getByTestId('checkpoint-state').getAttribute('data-action')).toBe('step');
  });
});
