// @vitest-environment jsdom
// Learning mode in the whole UI, against the FakeBridge and its scripted
// loop: Step mode, the editors at each pause, breakpoints, the keyboard,
// playback, Explain and "What the model saw".
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeBridge, makeSummary } from '../lib/bridge/fake';
import { argOf, FakeLoop } from '../lib/bridge/fakeloop';
import { EventLog } from '../lib/bridge/fixtures';
import { ThemeState } from '../lib/state';
import type { ModelInfo, Summary } from '../lib/types';
import AppShell from './AppShell.svelte';

afterEach(cleanup);

// Whole-app flows with many renders: generous on a busy 2-core machine.
const slow = { timeout: 20_000 };

const qwen: ModelInfo = {
  name: 'qwen3:0.6b',
  size: 1,
  family: '',
  parameter_size: '',
  quantization: '',
  capabilities: ['tools'],
  context_length: 8192,
  modified_at: '',
};

/** A session whose scripted agent reads a file in round 1 and answers in round 2. */
function setup(summary: Partial<Summary> = {}, opts: ConstructorParameters<typeof FakeBridge>[0] = {}) {
  const fake = new FakeBridge({ models: [qwen], sessions: [makeSummary({ id: 's1', title: 'One', ...summary })], ...opts });
  const loop = new FakeLoop(fake, {
    reply: ({ round, results }) =>
      round === 1
        ? { content: 'Reading it.', calls: [{ name: 'read_file', args: { path: 'README.md' }, readOnly: true, result: (a) => `text of ${argOf(a, 'path')}` }] }
        : { content: `Done: ${results[0]?.content ?? ''}` },
  });
  render(AppShell, { props: { bridge: fake, theme: new ThemeState({ storage: null, matchMedia: null }) } });
  return { fake, loop };
}

async function open() {
  const item = await screen.findByTestId('session-item');
  await fireEvent.click(within(item).getByRole('button', { name: /^One/ }));
  await screen.findByTestId('learn-bar');
}

async function send(text: string) {
  const input = screen.getByTestId('composer-input');
  await fireEvent.input(input, { target: { value: text } });
  await fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true });
}

/** Waits for the pause editor at a checkpoint. */
async function pausedAt(point: string): Promise<HTMLElement> {
  return waitFor(() => {
    const ed = screen.getByTestId('pause-editor');
    expect(ed.getAttribute('data-point')).toBe(point);
    return ed;
  });
}

const key = (k: string, init: KeyboardEventInit = {}) => fireEvent.keyDown(document.activeElement ?? window, { key: k, ...init });

describe('Step mode', slow, () => {
  it('pauses at every checkpoint and steps through them with the buttons', async () => {
    const { fake, loop } = setup();
    await open();
    await fireEvent.click(screen.getByTestId('step-toggle'));
    await waitFor(() => expect(fake.callsOf('setStepping')).toEqual([['s1', true]]));
    expect((screen.getByTestId('step-button') as HTMLButtonElement).disabled).toBe(true);
    await send('what does it say?');

    for (const point of ['before_request', 'after_response', 'before_tool', 'after_result', 'before_request', 'after_response']) {
      await pausedAt(point);
      const diagram = screen.getByTestId('loop-diagram');
      expect(diagram.getAttribute('data-paused')).toBe('true');
      await fireEvent.click(screen.getByTestId('step-button'));
    }
    await loop.done.get('s1');
    await waitFor(() => expect(screen.getByTestId('card-end')).toBeTruthy());
    expect(screen.queryByTestId('pause-editor')).toBeNull();
    // Each pause shows as one card, with how it ended.
    const cps = screen.getAllByTestId('card-checkpoint');
    expect(cps).toHaveLength(6);
    expect(cps.map((c) => within(c).getByTestId('checkpoint-state').getAttribute('data-action'))).toEqual(Array(6).fill('step'));
    expect(screen.getByTestId('loop-diagram').getAttribute('data-step')).toBe('stop');
  });

  it('lights the loop step of the pause and tags every card with its step', async () => {
    const { fake } = setup();
    await open();
    await fake.setStepping('s1', true);
    await send('go');
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
    const { fake, loop } = setup();
    await open();
    await fake.setStepping('s1', true);
    await send('what does it say?');
    const ed = await pausedAt('before_request');
    await fireEvent.input(within(ed).getByTestId('pause-system'), { target: { value: 'Answer in one word.' } });
    await fireEvent.input(within(ed).getByTestId('pause-num-ctx'), { target: { value: '4096' } });
    const msg = within(ed).getAllByTestId('pause-message').at(-1)!;
    await fireEvent.input(msg, { target: { value: 'what does it really say?' } });
    expect(within(ed).getByTestId('pause-dirty')).toBeTruthy();
    await fireEvent.click(within(ed).getByTestId('pause-step'));
    await pausedAt('after_response');
    expect(fake.callsOf('editRequest')).toEqual([
      [
        's1',
        {
          system: 'Answer in one word.',
          options: { num_ctx: 4096, temperature: 0.2 },
          messages: [{ seq: Number(msg.getAttribute('data-seq')), content: 'what does it really say?' }],
        },
      ],
    ]);
    // The edit went before the step.
    const order = fake.calls.map((c) => c.method).filter((m) => m === 'editRequest' || m === 'step');
    expect(order).toEqual(['editRequest', 'step']);
    const edits = screen.getAllByTestId('edit-card').map((e) => e.getAttribute('data-target'));
    expect(edits).toEqual(['system', 'options', 'message']);
    const system = screen.getAllByTestId('card-edit')[0]!;
    expect(within(system).getByTestId('edit-diff').querySelector('ins')?.textContent).toBe('Answer in one word.');
    expect(within(system).getByTestId('edit-after').textContent).toBe('Answer in one word.');
    // What was really sent (the Raw view's source) has the edits.
    const req = fake.events.get('s1')!.find((e) => e.kind === 'model_request')!;
    const body = JSON.parse(await fake.rawRequest('s1', req.seq));
    expect(body.messages[0].content).toBe('Answer in one word.');
    expect(body.messages.at(-1).content).toBe('what does it really say?');
    expect(body.options.num_ctx).toBe(4096);
    await fireEvent.click(screen.getByTestId('continue-button'));
    await loop.done.get('s1');
  });

  it('says what is wrong with an option before sending anything', async () => {
    const { fake } = setup();
    await open();
    await fake.setStepping('s1', true);
    await send('go');
    const ed = await pausedAt('before_request');
    await fireEvent.input(within(ed).getByTestId('pause-num-ctx'), { target: { value: 'lots' } });
    await fireEvent.click(within(ed).getByTestId('pause-step'));
    expect((await screen.findByTestId('pause-error')).textContent).toContain('num_ctx');
    expect(fake.callsOf('editRequest')).toEqual([]);
    expect(fake.callsOf('step')).toEqual([]);
  });

  it('edits a call\u2019s arguments with the keyboard only, shows the backend\u2019s validation error, and the edited value', async () => {
    const { fake, loop } = setup();
    await open();
    // A new session puts the cursor in the composer; Esc leaves it.
    expect(document.activeElement?.getAttribute('data-testid')).toBe('composer-input');
    await key('Escape');
    expect(document.activeElement?.getAttribute('data-testid')).not.toBe('composer-input');
    await key('t');
    await waitFor(() => expect(fake.sessions.get('s1')?.stepping).toBe(true));
    await send('what does it say?');
    await pausedAt('before_request');
    // The pause took the keyboard from the (now empty) composer.
    await waitFor(() => expect(document.activeElement?.getAttribute('data-testid')).toBe('pause-editor'));
    await key('s');
    await pausedAt('after_response');
    await key('s');
    const ed = await pausedAt('before_tool');
    await key('i');
    const args = within(ed).getByTestId('pause-args') as HTMLTextAreaElement;
    expect(document.activeElement).toBe(args);
    await fireEvent.input(args, { target: { value: '{"file": "main.go"}' } });
    await key('F10');
    const problem = await screen.findByTestId('pause-args-error');
    expect(problem.textContent).toContain('missing required property "path"');
    expect(fake.callsOf('step')).toHaveLength(2);
    await fireEvent.input(args, { target: { value: '{"path": "main.go"}' } });
    expect(screen.queryByTestId('pause-args-error')).toBeNull();
    await key('F10');
    await pausedAt('after_result');
    expect(fake.callsOf('editArgs').map((c) => c[1])).toEqual(['{"file": "main.go"}', '{"path": "main.go"}']);
    const call = screen.getByTestId('card-call');
    expect(within(call).getByTestId('edited-args')).toBeTruthy();
    expect(within(call).getByTestId('tool-args').textContent).toContain('main.go');
    expect(within(screen.getByTestId('card-observation')).getByTestId('observation-content').textContent).toBe('text of main.go');
    // Continue with c: stepping goes off, the run ends, and round 2's request carries the edited call.
    (document.activeElement as HTMLElement | null)?.blur();
    await key('c');
    await loop.done.get('s1');
    await waitFor(() => expect((screen.getByTestId('step-toggle') as HTMLInputElement).checked).toBe(false));
    const second = fake.events.get('s1')!.filter((e) => e.kind === 'model_request')[1]!;
    expect(await fake.rawRequest('s1', second.seq)).toContain('"arguments":{"path":"main.go"}');
  });

  it('edits a result before it goes back', async () => {
    const { fake, loop } = setup({ breakpoints: { points: ['after_result'], tools: [] } });
    await open();
    await send('go');
    const ed = await pausedAt('after_result');
    expect((within(ed).getByTestId('pause-result') as HTMLTextAreaElement).value).toBe('text of README.md');
    await fireEvent.input(within(ed).getByTestId('pause-result'), { target: { value: 'text edited by me' } });
    await fireEvent.click(within(ed).getByTestId('pause-continue'));
    await loop.done.get('s1');
    expect(fake.callsOf('editResult')).toEqual([['s1', 'text edited by me']]);
    const obs = await screen.findByTestId('card-observation');
    await waitFor(() => expect(within(obs).getByTestId('observation-content').textContent).toBe('text edited by me'));
    expect(within(obs).getByTestId('edited-result')).toBeTruthy();
    const edit = screen.getByTestId('card-edit');
    expect(within(edit).getByTestId('edit-before').textContent).toBe('text of README.md');
    expect(within(edit).getByTestId('edit-after').textContent).toBe('text edited by me');
    // The breakpoint, not stepping, made it pause.
    expect(screen.getByTestId('checkpoint-breakpoint')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('card-end').textContent).toContain('Done: text edited by me'));
  });

  it('skips a call with a written observation', async () => {
    const { fake, loop } = setup({ breakpoints: { points: [], tools: ['read_file'] } });
    await open();
    await send('go');
    const ed = await pausedAt('before_tool');
    await fireEvent.click(within(ed).getByTestId('pause-skip'));
    expect((await screen.findByTestId('pause-error')).textContent).toContain('Write the observation');
    await fireEvent.input(within(ed).getByTestId('pause-skip-text'), { target: { value: 'The README is empty.' } });
    await fireEvent.click(within(ed).getByTestId('pause-skip'));
    await loop.done.get('s1');
    expect(fake.callsOf('skipCall')).toEqual([['s1', 'The README is empty.']]);
    const obs = await screen.findByTestId('card-observation');
    expect(within(obs).getByTestId('skipped')).toBeTruthy();
    expect(within(screen.getByTestId('card-call')).getByTestId('call-status').textContent).toContain('Skipped');
  });

  it('stops a paused run with Esc', async () => {
    const { fake, loop } = setup();
    await open();
    await fake.setStepping('s1', true);
    await send('go');
    await pausedAt('before_request');
    (document.activeElement as HTMLElement | null)?.blur();
    await key('Escape');
    await loop.done.get('s1');
    expect(fake.callsOf('stop')).toEqual([['s1']]);
    await waitFor(() => expect(within(screen.getByTestId('card-end')).getByTestId('stop-reason').getAttribute('data-reason')).toBe('cancelled'));
    expect(screen.queryByTestId('pause-editor')).toBeNull();
    expect(within(screen.getByTestId('card-checkpoint')).getByTestId('checkpoint-state').getAttribute('data-state')).toBe('ended');
  });

  it('leaves an editor field with Esc instead of stopping the run', async () => {
    const { fake } = setup();
    await open();
    await fake.setStepping('s1', true);
    await send('go');
    const ed = await pausedAt('before_request');
    const system = within(ed).getByTestId('pause-system');
    system.focus();
    await fireEvent.keyDown(system, { key: 'Escape' });
    expect(document.activeElement).not.toBe(system);
    expect(fake.callsOf('stop')).toEqual([]);
  });

  it('sets breakpoints from the menu and with b on the focused card', async () => {
    const log = new EventLog('s1');
    log.user('x');
    log.request();
    log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'run_command', args: { command: 'ls' } }] });
    log.toolCall({ call_id: 'c1', name: 'run_command', args: { command: 'ls' } });
    log.result({ call_id: 'c1', name: 'run_command', content: 'a' });
    log.end('answered');
    const { fake } = setup({}, { events: log.events });
    await open();
    await screen.findByTestId('card-call');
    const point = screen.getAllByTestId('breakpoint-point').find((p) => p.getAttribute('data-point') === 'after_response')!;
    await fireEvent.click(point);
    await waitFor(() => expect(fake.sessions.get('s1')?.breakpoints).toEqual({ points: ['after_response'], tools: [] }));
    await waitFor(() => expect(screen.getByTestId('breakpoint-count').textContent).toBe('1'));
    // j to the call card (user, request, response, call), then b.
    for (let i = 0; i < 4; i++) await key('j');
    expect(document.activeElement?.getAttribute('data-testid')).toBe('card-call');
    await key('b');
    await waitFor(() => expect(fake.sessions.get('s1')?.breakpoints).toEqual({ points: ['after_response'], tools: ['run_command'] }));
    const tool = screen.getAllByTestId('breakpoint-tool').find((t) => t.getAttribute('data-tool') === 'run_command') as HTMLInputElement;
    await waitFor(() => expect(tool.checked).toBe(true));
    await key('b');
    await waitFor(() => expect(fake.sessions.get('s1')?.breakpoints.tools).toEqual([]));
  });

  it('says so when the backend cannot step through yet', async () => {
    const { fake } = setup();
    fake.failures['setStepping'] = 'step-through is not available yet';
    await open();
    await fireEvent.click(screen.getByTestId('step-toggle'));
    expect((await screen.findByTestId('toast')).textContent).toContain('step-through is not available yet');
    expect((screen.getByTestId('step-toggle') as HTMLInputElement).checked).toBe(false);
  });

  it('shows a session that was paused when the app closed, ready to step', async () => {
    const log = new EventLog('s1');
    log.user('x');
    log.request();
    log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'read_file', args: { path: 'a' } }] });
    log.toolCall({ call_id: 'c1', name: 'read_file', args: { path: 'a' } });
    log.checkpoint({ point: 'before_tool', state: 'paused', call_id: 'c1', tool: 'read_file' });
    const { fake } = setup(
      { running: true, stepping: true, paused: { point: 'before_tool', run: 1, round: 1, call_id: 'c1', tool: 'read_file', args: { path: 'a' } } },
      { events: log.events },
    );
    await open();
    const ed = await pausedAt('before_tool');
    expect((within(ed).getByTestId('pause-args') as HTMLTextAreaElement).value).toContain('"path": "a"');
    expect(within(screen.getByTestId('card-checkpoint')).getByTestId('checkpoint-state').getAttribute('data-state')).toBe('paused');
    // The editor sits at the paused point, after the checkpoint card.
    expect(screen.getByTestId('card-checkpoint').compareDocumentPosition(ed) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    await fireEvent.click(screen.getByTestId('step-button'));
    await waitFor(() => expect(fake.callsOf('step')).toEqual([['s1']]));
    await waitFor(() => expect(screen.queryByTestId('pause-editor')).toBeNull());
  });
});

describe('Explain', slow, () => {
  it('adds plain sentences to every card when switched on', async () => {
    const log = new EventLog('s1');
    log.user('What is in README?');
    log.request();
    log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'read_file', args: { path: 'README.md' } }] });
    log.toolCall({ call_id: 'c1', name: 'read_file', args: { path: 'README.md' }, read_only: true });
    log.permission('c1', 'read_file', 'allow', 'rule: read-only');
    log.result({ call_id: 'c1', name: 'read_file', content: '# hi' });
    log.request();
    log.response({ content: 'It says hi.' });
    log.end('answered', 'It says hi.');
    setup({}, { events: log.events });
    await open();
    await screen.findByTestId('card-end');
    expect(screen.queryAllByTestId('explain-text')).toHaveLength(0);
    await fireEvent.click(screen.getByTestId('explain-toggle'));
    const texts = screen.getAllByTestId('explain-text');
    expect(texts.length).toBe(screen.getAllByTestId(/^card-/).length);
    expect(within(screen.getByTestId('card-call')).getByTestId('explain-text').textContent).toContain(
      'The model cannot read files itself: Loupe read README.md',
    );
    expect(within(screen.getAllByTestId('card-request')[0]!).getByTestId('explain-text').textContent).toContain('num_ctx');
    expect(within(screen.getByTestId('card-end')).getByTestId('explain-text').textContent).toContain('without asking for a tool');
    await key('e');
    expect(screen.queryAllByTestId('explain-text')).toHaveLength(0);
  });
});

function twoRoundLog() {
  const log = new EventLog('s1');
  log.user('What is in README?'); // 1
  log.request(); // 2
  log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'read_file', args: { path: 'README.md' } }] }); // 3
  log.toolCall({ call_id: 'c1', name: 'read_file', args: { path: 'README.md' }, read_only: true }); // 4
  log.permission('c1', 'read_file', 'allow', 'rule: read-only'); // 5
  log.result({ call_id: 'c1', name: 'read_file', content: '# hi' }); // 6
  log.request(); // 7
  log.response({ content: 'It says hi.' }); // 8
  log.end('answered', 'It says hi.'); // 9
  return log;
}

describe('Playback', slow, () => {
  it('steps through a stored session with the arrow keys, the buttons and the slider, without calling the model', async () => {
    const { fake } = setup({ last_reason: 'answered' }, { events: twoRoundLog().events });
    await open();
    await screen.findByTestId('card-end');
    const before = fake.calls.length;
    await key('p');
    const pos = () => screen.getByTestId('playback-position').getAttribute('data-position');
    expect(pos()).toBe('1');
    expect(screen.getByTestId('playback-position').textContent).toBe('1 / 9');
    expect(screen.queryByTestId('card-request')).toBeNull();
    await key('ArrowRight');
    expect(pos()).toBe('2');
    expect(screen.getAllByTestId('card-request')).toHaveLength(1);
    expect(screen.getByTestId('loop-diagram').getAttribute('data-step')).toBe('send');
    await fireEvent.click(screen.getByTestId('playback-next'));
    expect(screen.getByTestId('loop-diagram').getAttribute('data-step')).toBe('respond');
    await key('ArrowRight', { shiftKey: true });
    expect(pos()).toBe('7');
    expect(screen.getAllByTestId('card-request')).toHaveLength(2);
    expect(screen.queryByTestId('card-end')).toBeNull();
    await fireEvent.input(screen.getByTestId('playback-slider'), { target: { value: '5' } });
    expect(pos()).toBe('5');
    expect(screen.getByTestId('loop-diagram').getAttribute('data-step')).toBe('execute');
    expect(screen.queryByTestId('card-observation')).toBeNull();
    await key('End');
    expect(pos()).toBe('9');
    expect(screen.getByTestId('card-end')).toBeTruthy();
    await key('Home');
    expect(pos()).toBe('1');
    await key('ArrowLeft');
    expect(pos()).toBe('1');
    await fireEvent.click(screen.getByTestId('playback-exit'));
    expect(screen.queryByTestId('playback-bar')).toBeNull();
    expect(screen.getByTestId('card-end')).toBeTruthy();
    // Playing back only read what was stored.
    const used = fake.calls.slice(before).map((c) => c.method);
    expect(used.filter((m) => !['rawRequest'].includes(m))).toEqual([]);
  });

  it('starts from the end with the left arrow', async () => {
    setup({}, { events: twoRoundLog().events });
    await open();
    await screen.findByTestId('card-end');
    await key('ArrowLeft');
    expect(screen.getByTestId('playback-position').getAttribute('data-position')).toBe('8');
  });
});

describe('What the model saw', slow, () => {
  it('shows the exact request, the token counts and what is new since the previous one, and follows playback', async () => {
    setup({}, { events: twoRoundLog().events });
    await open();
    const second = (await screen.findAllByTestId('card-request'))[1]!;
    await fireEvent.click(within(second).getByTestId('model-saw-toggle'));
    const view = await screen.findByTestId('model-saw');
    expect(view.getAttribute('data-seq')).toBe('7');
    await waitFor(() => expect(within(view).getAllByTestId('model-saw-message')).toHaveLength(3));
    expect(within(view).getByTestId('model-saw-tokens').textContent).toMatch(/Ollama counted 512 prompt tokens; Loupe estimated 600/);
    expect(within(view).getByTestId('model-saw-system').textContent).toContain('You are a coding agent');
    expect(within(view).getByTestId('model-saw-tools').textContent).toContain('read_file');
    expect(within(view).getByTestId('model-saw-options').textContent).toContain('num_ctx 8192');
    const parts = within(view)
      .getAllByTestId('model-saw-message')
      .map((m) => `${m.getAttribute('data-part')}:${m.getAttribute('data-status')}`);
    expect(parts).toEqual(['history:same', 'new:added', 'new:added']);
    expect(within(view).getAllByTestId('model-saw-part').map((p) => p.getAttribute('data-part'))).toEqual(['system', 'tools', 'options', 'history', 'new']);
    expect(within(view).getByTestId('model-saw-summary').textContent).toContain('sends everything again');

    // In playback it follows the latest request at the position.
    await key('m');
    expect(screen.queryByTestId('model-saw')).toBeNull();
    await key('m');
    await key('p');
    await key('ArrowRight');
    const first = await screen.findByTestId('model-saw');
    expect(first.getAttribute('data-seq')).toBe('2');
    await waitFor(() => expect(within(first).getByTestId('model-saw-summary').textContent).toContain('first request'));
    await key('ArrowRight', { shiftKey: true });
    await waitFor(() => expect(screen.getByTestId('model-saw').getAttribute('data-seq')).toBe('7'));
  });
});

describe('Shortcuts', slow, () => {
  it('lists the step-through and playback keys in the help', async () => {
    setup();
    await open();
    (document.activeElement as HTMLElement | null)?.blur();
    await key('?');
    const help = screen.getByTestId('help-overlay').textContent ?? '';
    for (const what of ['Step mode on or off', 'Step to the next checkpoint (also F10)', 'Continue to a breakpoint or the end (also F8)', 'Breakpoint on the focused card', 'Explain on or off', 'What the model saw', 'Playback: previous event', 'Write a message']) {
      expect(help).toContain(what);
    }
  });

  it('writes, sends and steps with the keyboard alone', async () => {
    const { fake, loop } = setup();
    await open();
    await key('Escape');
    await key('t');
    await waitFor(() => expect(fake.sessions.get('s1')?.stepping).toBe(true));
    await key('/');
    expect(document.activeElement?.getAttribute('data-testid')).toBe('composer-input');
    await send('go');
    await pausedAt('before_request');
    await waitFor(() => expect(document.activeElement?.getAttribute('data-testid')).toBe('pause-editor'));
    await key('F8');
    await loop.done.get('s1');
    expect(fake.callsOf('continueRun')).toEqual([['s1']]);
  });
});
