// @vitest-environment jsdom
// Learning mode in the whole UI, on replays of the Go engine's recordings
// (backend/session/recordings_test.go): Step mode, the editors at each
// pause, breakpoints, the keyboard, playback, Explain and "What the model
// saw". At every pause the UI must send the command the recording has.
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { finish, key, openSession, pausedAt, play, played, send, slow } from './testing';

afterEach(finish);

describe('Step mode', slow, () => {
  it('pauses at every checkpoint and steps through them with the buttons', async () => {
    const replay = play('step_through');
    await openSession();
    await fireEvent.click(screen.getByTestId('step-toggle'));
    await waitFor(() => expect((screen.getByTestId('step-toggle') as HTMLInputElement).checked).toBe(true));
    expect((screen.getByTestId('step-button') as HTMLButtonElement).disabled).toBe(true);
    await send('What is here?');

    for (const point of ['before_request', 'after_response', 'before_tool', 'after_result', 'before_request', 'after_response']) {
      await pausedAt(point);
      expect(screen.getByTestId('loop-diagram').getAttribute('data-paused')).toBe('true');
      await fireEvent.click(screen.getByTestId('step-button'));
    }
    await played(replay);
    await waitFor(() => expect(screen.getByTestId('card-end')).toBeTruthy());
    expect(screen.queryByTestId('pause-editor')).toBeNull();
    // Each pause shows as one card, with how it ended.
    const cps = screen.getAllByTestId('card-checkpoint');
    expect(cps).toHaveLength(6);
    expect(cps.map((c) => within(c).getByTestId('checkpoint-state').getAttribute('data-action'))).toEqual(Array(6).fill('step'));
    expect(screen.getByTestId('loop-diagram').getAttribute('data-step')).toBe('stop');
  });

  it('lights the loop step of the pause and tags every card with its step', async () => {
    play('step_through');
    await openSession();
    await fireEvent.click(screen.getByTestId('step-toggle'));
    await send('What is here?');
    await pausedAt('before_request');
    const lit = () => screen.getAllByTestId('loop-step').filter((s) => s.getAttribute('data-lit') === 'true');
    expect(lit().map((s) => s.getAttribute('data-step'))).toEqual(['send']);
    await fireEvent.click(screen.getByTestId('step-button'));
    await pausedAt('after_response');
    expect(screen.getByTestId('loop-diagram').getAttribute('data-step')).toBe('respond');
    await fireEvent.click(screen.getByTestId('step-button'));
    await pausedAt('before_tool');
    expect(screen.getByTestId('loop-diagram').getAttribute('data-step')).toBe('permission');
    expect(within(screen.getByTestId('card-request')).getByTestId('step-tag').getAttribute('data-step')).toBe('send');
    expect(within(screen.getByTestId('card-response')).getByTestId('step-tag').getAttribute('data-step')).toBe('respond');
    expect(within(screen.getByTestId('card-call')).getByTestId('call-status').textContent).toContain('Paused before it runs');
  });

  it('sends edits of the pending request, shows them as cards, and the model gets them', async () => {
    const replay = play('step_edits');
    await openSession();
    await fireEvent.click(screen.getByTestId('step-toggle'));
    await send('Read missing.txt');
    const ed = await pausedAt('before_request');
    await fireEvent.input(within(ed).getByTestId('pause-system'), { target: { value: 'Answer in one word.' } });
    await fireEvent.input(within(ed).getByTestId('pause-num-ctx'), { target: { value: '4096' } });
    const msg = within(ed).getAllByTestId('pause-message').at(-1)!;
    await fireEvent.input(msg, { target: { value: 'Read README.md' } });
    expect(within(ed).getByTestId('pause-dirty')).toBeTruthy();
    // The recording has the edit, then the step: the replay checks both.
    await fireEvent.click(within(ed).getByTestId('pause-step'));
    await pausedAt('after_response');
    expect(replay.commandsOf('edit_request')).toEqual([
      {
        do: 'edit_request',
        session: 'session-1',
        at: 2,
        request: { system: 'Answer in one word.', options: { num_ctx: 4096, temperature: 0.2 }, messages: [{ seq: 1, content: 'Read README.md' }] },
      },
    ]);
    // Step goes to the same pause, after the edits.
    expect(replay.commandsOf('step')[0]).toEqual({ do: 'step', session: 'session-1', at: 2 });
    const edits = screen.getAllByTestId('edit-card').map((e) => e.getAttribute('data-target'));
    expect(edits).toEqual(['system', 'options', 'message']);
    const system = screen.getAllByTestId('card-edit')[0]!;
    expect(within(system).getByTestId('edit-diff').querySelector('ins')?.textContent).toContain('Answer in one word.');
    expect(within(system).getByTestId('edit-after').textContent).toBe('Answer in one word.');
    // What was really sent (the Raw view's source) has the edits.
    const req = replay.events.find((e) => e.kind === 'model_request')!;
    const body = JSON.parse(await replay.rawRequest(req.session_id, req.seq));
    expect(body.messages[0].content).toBe('Answer in one word.');
    expect(body.messages.at(-1).content).toBe('Read README.md');
    expect(body.options.num_ctx).toBe(4096);
  });

  it('says what is wrong with an option before sending anything', async () => {
    const replay = play('step_edits');
    await openSession();
    await fireEvent.click(screen.getByTestId('step-toggle'));
    await send('Read missing.txt');
    const ed = await pausedAt('before_request');
    await fireEvent.input(within(ed).getByTestId('pause-num-ctx'), { target: { value: 'lots' } });
    await fireEvent.click(within(ed).getByTestId('pause-step'));
    expect((await screen.findByTestId('pause-error')).textContent).toContain('num_ctx');
    expect(replay.commandsOf('edit_request')).toEqual([]);
    expect(replay.commandsOf('step')).toEqual([]);
    replay.expectWaitingFor('edit_request');
  });

  it('edits a call\u2019s arguments with the keyboard only, shows the backend\u2019s validation error, and the edited value', async () => {
    const replay = play('step_edits', { from: 'paused before_tool' });
    await openSession();
    const ed = await pausedAt('before_tool');
    (document.activeElement as HTMLElement | null)?.blur();
    await key('i');
    const args = within(ed).getByTestId('pause-args') as HTMLTextAreaElement;
    expect(document.activeElement).toBe(args);
    await fireEvent.input(args, { target: { value: '{"file": "README.md"}' } });
    await key('F10');
    // The backend's words, as the recording has them.
    const problem = await screen.findByTestId('pause-args-error');
    expect(problem.textContent).toContain('missing required property "path"');
    expect(replay.commandsOf('step')).toEqual([]);
    await fireEvent.input(args, { target: { value: '{"path": "README.md"}' } });
    expect(screen.queryByTestId('pause-args-error')).toBeNull();
    await key('F10');
    await pausedAt('after_result');
    expect(replay.commandsOf('edit_args').map((c) => [c['at'], c['text']])).toEqual([
      [12, '{"file": "README.md"}'],
      [12, '{"path": "README.md"}'],
    ]);
    expect(replay.commandsOf('step')).toEqual([{ do: 'step', session: 'session-1', at: 12 }]);
    const call = screen.getByTestId('card-call');
    expect(within(call).getByTestId('edited-args')).toBeTruthy();
    expect(within(call).getByTestId('tool-args').textContent).toContain('README.md');
    expect(within(screen.getByTestId('card-observation')).getByTestId('observation-content').textContent).toContain('hello from the workspace');
    replay.expectWaitingFor('edit_result');
  });

  it('edits a result before it goes back, and the model answers from it', async () => {
    const replay = play('step_edits', { from: 'paused after_result' });
    await openSession();
    const ed = await pausedAt('after_result');
    expect((within(ed).getByTestId('pause-result') as HTMLTextAreaElement).value).toContain('hello from the workspace');
    await fireEvent.input(within(ed).getByTestId('pause-result'), { target: { value: 'The README says: hello (edited)' } });
    await fireEvent.click(within(ed).getByTestId('pause-continue'));
    await played(replay);
    const obs = await screen.findByTestId('card-observation');
    await waitFor(() => expect(within(obs).getByTestId('observation-content').textContent).toBe('The README says: hello (edited)'));
    expect(within(obs).getByTestId('edited-result')).toBeTruthy();
    const edit = screen.getAllByTestId('card-edit').at(-1)!;
    expect(within(edit).getByTestId('edit-before').textContent).toContain('hello from the workspace');
    expect(within(edit).getByTestId('edit-after').textContent).toBe('The README says: hello (edited)');
    await waitFor(() => expect(screen.getByTestId('card-end').textContent).toContain('It says hello.'));
    // Continue let this run go to its end; Step mode stays on for the next run.
    expect((screen.getByTestId('step-toggle') as HTMLInputElement).checked).toBe(true);
  });

  it('skips a call with a written observation', async () => {
    const replay = play('breakpoint_skip', { from: 'breakpoint set' });
    await openSession();
    await send('Write x.txt');
    const ed = await pausedAt('before_tool');
    // The breakpoint, not stepping, made it pause.
    expect(screen.getByTestId('checkpoint-breakpoint')).toBeTruthy();
    await fireEvent.click(within(ed).getByTestId('pause-skip'));
    expect((await screen.findByTestId('pause-error')).textContent).toContain('Write the observation');
    await fireEvent.input(within(ed).getByTestId('pause-skip-text'), { target: { value: 'I wrote it myself.' } });
    await fireEvent.click(within(ed).getByTestId('pause-skip'));
    await played(replay);
    const obs = await screen.findByTestId('card-observation');
    expect(within(obs).getByTestId('skipped')).toBeTruthy();
    expect(within(screen.getByTestId('card-call')).getByTestId('call-status').textContent).toContain('Skipped');
  });

  it('stops a paused run with Esc, once you say yes', async () => {
    const replay = play('stop_paused');
    await openSession();
    await fireEvent.click(screen.getByTestId('step-toggle'));
    await send('Say hi');
    await pausedAt('before_request');
    (document.activeElement as HTMLElement | null)?.blur();
    await key('Escape');
    expect(replay.commandsOf('stop')).toEqual([]);
    await fireEvent.click(await screen.findByTestId('stop-confirm-stop'));
    await played(replay);
    await waitFor(() => expect(within(screen.getByTestId('card-end')).getByTestId('stop-reason').getAttribute('data-reason')).toBe('cancelled'));
    expect(screen.queryByTestId('pause-editor')).toBeNull();
    expect(within(screen.getByTestId('card-checkpoint')).getByTestId('checkpoint-state').getAttribute('data-state')).toBe('ended');
  });

  it('leaves an editor field with Esc instead of stopping the run', async () => {
    const replay = play('stop_paused');
    await openSession();
    await fireEvent.click(screen.getByTestId('step-toggle'));
    await send('Say hi');
    const ed = await pausedAt('before_request');
    const system = within(ed).getByTestId('pause-system');
    system.focus();
    await fireEvent.keyDown(system, { key: 'Escape' });
    expect(document.activeElement).not.toBe(system);
    expect(replay.commandsOf('stop')).toEqual([]);
  });

  it('sets breakpoints from the menu and with b on the focused card', async () => {
    const replay = play('approve_command', { from: 'end' });
    await openSession();
    await screen.findByTestId('card-call');
    const point = screen.getAllByTestId('breakpoint-point').find((p) => p.getAttribute('data-point') === 'after_response')!;
    await fireEvent.click(point);
    await waitFor(() => expect(screen.getByTestId('breakpoint-count').textContent).toBe('1'));
    // j to the call card (user, request, response, call), then b.
    (document.activeElement as HTMLElement | null)?.blur();
    for (let i = 0; i < 4; i++) await key('j');
    expect(document.activeElement?.getAttribute('data-testid')).toBe('card-call');
    await key('b');
    const tool = () => screen.getAllByTestId('breakpoint-tool').find((t) => t.getAttribute('data-tool') === 'run_command') as HTMLInputElement;
    await waitFor(() => expect(tool().checked).toBe(true));
    await key('b');
    await waitFor(() => expect(tool().checked).toBe(false));
    await played(replay);
  });

  it('says so when the backend cannot step through', async () => {
    const replay = play('step_through');
    replay.reject('do', 'step-through is not available');
    await openSession();
    await fireEvent.click(screen.getByTestId('step-toggle'));
    expect((await screen.findByTestId('toast')).textContent).toContain('step-through is not available');
    expect((screen.getByTestId('step-toggle') as HTMLInputElement).checked).toBe(false);
  });

  it('shows a session that was paused when the app closed, ready to step', async () => {
    const replay = play('step_through', { from: 'paused before_tool' });
    await openSession();
    const ed = await pausedAt('before_tool');
    expect((within(ed).getByTestId('pause-args') as HTMLTextAreaElement).value).toContain('"path": "."');
    const last = screen.getAllByTestId('card-checkpoint').at(-1)!;
    expect(within(last).getByTestId('checkpoint-state').getAttribute('data-state')).toBe('paused');
    // The editor sits at the paused point, after its checkpoint card.
    expect(last.compareDocumentPosition(ed) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    await fireEvent.click(screen.getByTestId('step-button'));
    await waitFor(() => expect(replay.commandsOf('step')).toEqual([{ do: 'step', session: 'session-1', at: 9 }]));
    // The engine ran the call and paused again after it.
    await pausedAt('after_result');
  });
});

describe('Explain', slow, () => {
  it('adds plain sentences to every card when switched on', async () => {
    play('parallel_calls', { from: 'end' });
    await openSession();
    await screen.findByTestId('card-end');
    expect(screen.queryAllByTestId('explain-text')).toHaveLength(0);
    await fireEvent.click(screen.getByTestId('explain-toggle'));
    const texts = screen.getAllByTestId('explain-text');
    expect(texts.length).toBe(screen.getAllByTestId(/^card-/).length);
    expect(within(screen.getAllByTestId('card-call')[0]!).getByTestId('explain-text').textContent).toContain(
      'The model cannot read files itself: Loupe read README.md',
    );
    expect(within(screen.getAllByTestId('card-request')[0]!).getByTestId('explain-text').textContent).toContain('num_ctx');
    expect(within(screen.getByTestId('card-end')).getByTestId('explain-text').textContent).toContain('without asking for a tool');
    (document.activeElement as HTMLElement | null)?.blur();
    await key('e');
    expect(screen.queryAllByTestId('explain-text')).toHaveLength(0);
  });
});

// approve_command's run: user 1, request 2, response 3, call 4, question 5,
// permission 6, result 7, request 8, response 9, end 10.
describe('Playback', slow, () => {
  it('steps through a stored session with the arrow keys, the buttons and the slider, without calling the model', async () => {
    const replay = play('approve_command', { from: 'end' });
    await openSession();
    await screen.findByTestId('card-end');
    const before = replay.calls.length;
    (document.activeElement as HTMLElement | null)?.blur();
    await key('p');
    const pos = () => screen.getByTestId('playback-position').getAttribute('data-position');
    expect(pos()).toBe('1');
    expect(screen.getByTestId('playback-position').textContent).toBe('1 / 10');
    expect(screen.queryByTestId('card-request')).toBeNull();
    await key('ArrowRight');
    expect(pos()).toBe('2');
    expect(screen.getAllByTestId('card-request')).toHaveLength(1);
    expect(screen.getByTestId('loop-diagram').getAttribute('data-step')).toBe('send');
    await fireEvent.click(screen.getByTestId('playback-next'));
    expect(screen.getByTestId('loop-diagram').getAttribute('data-step')).toBe('respond');
    await key('ArrowRight', { shiftKey: true });
    expect(pos()).toBe('8');
    expect(screen.getAllByTestId('card-request')).toHaveLength(2);
    expect(screen.queryByTestId('card-end')).toBeNull();
    await fireEvent.input(screen.getByTestId('playback-slider'), { target: { value: '6' } });
    expect(pos()).toBe('6');
    expect(screen.getByTestId('loop-diagram').getAttribute('data-step')).toBe('execute');
    expect(screen.queryByTestId('card-observation')).toBeNull();
    await key('End');
    expect(pos()).toBe('10');
    expect(screen.getByTestId('card-end')).toBeTruthy();
    await key('Home');
    expect(pos()).toBe('1');
    await key('ArrowLeft');
    expect(pos()).toBe('1');
    await fireEvent.click(screen.getByTestId('playback-exit'));
    expect(screen.queryByTestId('playback-bar')).toBeNull();
    expect(screen.getByTestId('card-end')).toBeTruthy();
    // Playing back only read what was stored.
    const used = replay.calls.slice(before).map((c) => c.method);
    expect(used.filter((m) => m !== 'rawRequest')).toEqual([]);
  });

  it('starts from the end with the left arrow', async () => {
    play('approve_command', { from: 'end' });
    await openSession();
    await screen.findByTestId('card-end');
    (document.activeElement as HTMLElement | null)?.blur();
    await key('ArrowLeft');
    expect(screen.getByTestId('playback-position').getAttribute('data-position')).toBe('9');
  });
});

const n = (v: number) => new Intl.NumberFormat('en-US').format(v);

describe('What the model saw', slow, () => {
  it('shows the exact request, the token counts and what is new since the previous one, and follows playback', async () => {
    const replay = play('approve_command', { from: 'end' });
    await openSession();
    const second = (await screen.findAllByTestId('card-request'))[1]!;
    await fireEvent.click(within(second).getByTestId('model-saw-toggle'));
    const view = await screen.findByTestId('model-saw');
    expect(view.getAttribute('data-seq')).toBe('8');
    await waitFor(() => expect(within(view).getAllByTestId('model-saw-message')).toHaveLength(3));
    // The counts the engine recorded: Ollama's for the answer, Loupe's estimate for the request.
    const req = replay.events.find((e) => e.seq === 8);
    const resp = replay.events.find((e) => e.seq === 9);
    if (req?.kind !== 'model_request' || resp?.kind !== 'model_response') throw new Error('approve_command changed shape');
    expect(within(view).getByTestId('model-saw-tokens').textContent).toContain(
      `Ollama counted ${n(resp.payload.metrics.prompt_eval_count)} prompt tokens; Loupe estimated ${n(req.payload.prompt_estimate)}`,
    );
    expect(within(view).getByTestId('model-saw-system').textContent).toContain('You are a coding agent');
    expect(within(view).getByTestId('model-saw-tools').textContent).toContain('read_file');
    expect(within(view).getByTestId('model-saw-options').textContent).toContain(`num_ctx ${req.payload.options.num_ctx}`);
    const parts = within(view)
      .getAllByTestId('model-saw-message')
      .map((m) => `${m.getAttribute('data-part')}:${m.getAttribute('data-status')}`);
    expect(parts).toEqual(['history:same', 'new:added', 'new:added']);
    expect(within(view).getAllByTestId('model-saw-part').map((p) => p.getAttribute('data-part'))).toEqual(['system', 'tools', 'options', 'history', 'new']);
    expect(within(view).getByTestId('model-saw-summary').textContent).toContain('sends everything again');

    // In playback it follows the latest request at the position.
    (document.activeElement as HTMLElement | null)?.blur();
    await key('m');
    expect(screen.queryByTestId('model-saw')).toBeNull();
    await key('m');
    await key('p');
    await key('ArrowRight');
    const first = await screen.findByTestId('model-saw');
    expect(first.getAttribute('data-seq')).toBe('2');
    await waitFor(() => expect(within(first).getByTestId('model-saw-summary').textContent).toContain('first request'));
    await key('ArrowRight', { shiftKey: true });
    await waitFor(() => expect(screen.getByTestId('model-saw').getAttribute('data-seq')).toBe('8'));
  });
});

describe('Shortcuts', slow, () => {
  it('lists the step-through and playback keys in the help', async () => {
    play('step_through');
    await openSession();
    (document.activeElement as HTMLElement | null)?.blur();
    await key('?');
    const help = screen.getByTestId('help-overlay').textContent ?? '';
    for (const what of ['Step mode on or off', 'Step to the next checkpoint (also F10)', 'Continue to a breakpoint or the end (also F8)', 'Breakpoint on the focused card', 'Explain on or off', 'What the model saw', 'Playback: previous event', 'Write a message']) {
      expect(help).toContain(what);
    }
  });

  it('writes, sends, pauses and stops with the keyboard alone', async () => {
    const replay = play('stop_paused');
    await openSession();
    // A new session puts the cursor in the composer; Esc leaves it.
    expect(document.activeElement?.getAttribute('data-testid')).toBe('composer-input');
    await key('Escape');
    expect(document.activeElement?.getAttribute('data-testid')).not.toBe('composer-input');
    await key('t');
    await waitFor(() => expect((screen.getByTestId('step-toggle') as HTMLInputElement).checked).toBe(true));
    await key('/');
    expect(document.activeElement?.getAttribute('data-testid')).toBe('composer-input');
    await send('Say hi');
    await pausedAt('before_request');
    // The pause took the keyboard from the (now empty) composer; Esc there does not stop the run.
    await waitFor(() => expect(document.activeElement?.getAttribute('data-testid')).toBe('pause-editor'));
    await key('Escape');
    expect(replay.commandsOf('stop')).toEqual([]);
    // Off the pause card (k to the card above), Esc is Stop, and asks; Tab and Enter answer it in a browser.
    await key('k');
    expect(screen.getByTestId('pause-editor').contains(document.activeElement)).toBe(false);
    await key('Escape');
    await waitFor(() => expect(document.activeElement?.getAttribute('data-testid')).toBe('stop-confirm-keep'));
    await fireEvent.click(screen.getByTestId('stop-confirm-stop'));
    await played(replay);
    expect(replay.commandsOf('stop')).toEqual([{ do: 'stop', session: 'session-1' }]);
  });
});
