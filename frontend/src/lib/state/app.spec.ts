// @vitest-environment jsdom
// jsdom: the state classes compile for the browser, as in the window
// (under node they compile for the server, where a derived value such as
// a pause's draft is computed afresh on every read).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReplayBridge, type ReplayOptions } from '../replay/bridge';
import { recording } from '../replay/recordings';
import { makeSummary } from '../testing/events';
import type { SessionSnapshot } from '../types';
import { LoupeApp } from './app.svelte';

const settle = () => new Promise((r) => setTimeout(r, 0));

/** The app's state on a replay of one of the engine's recordings. */
function setup(name: string, opts: ReplayOptions = {}) {
  const replay = new ReplayBridge(recording(name), opts);
  const app = new LoupeApp(replay);
  const stop = app.start();
  return { replay, app, stop };
}

describe('LoupeApp', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('loads status, sessions, settings and models on start', async () => {
    const { app, replay, stop } = setup('approve_command');
    await settle();
    expect(app.status?.reachable).toBe(true);
    expect(app.sessions.map((s) => s.id)).toEqual(['session-1']);
    expect(app.settings?.permission_mode).toBe('ask');
    expect(app.models.map((m) => m.name)).toEqual(replay.models.map((m) => m.name));
    expect(replay.callsOf('listModels')).toHaveLength(1);
    stop();
  });

  it('keeps checking an unreachable Ollama and loads models once it answers', async () => {
    vi.useFakeTimers();
    const { app, replay, stop } = setup('approve_command', { status: { reachable: false, message: 'Start Ollama with "ollama serve".' } });
    await vi.advanceTimersByTimeAsync(0);
    expect(app.status?.message).toContain('ollama serve');
    expect(app.modelsLoaded).toBe(true);
    expect(replay.callsOf('listModels')).toHaveLength(0);
    replay.statusInfo = { ...replay.statusInfo, reachable: true };
    await vi.advanceTimersByTimeAsync(5000);
    expect(app.status?.reachable).toBe(true);
    expect(replay.callsOf('listModels')).toHaveLength(1);
    stop();
  });

  it('watches Ollama both ways: a stop shows, and once it is back a new model appears and a refused send is forgotten', async () => {
    vi.useFakeTimers();
    const { app, replay, stop } = setup('approve_command');
    await vi.advanceTimersByTimeAsync(0);
    await app.openSession('session-1');
    expect(app.status?.reachable).toBe(true);
    const before = replay.models.map((m) => m.name);
    // Ollama stops: the next check says so, without a click.
    replay.statusInfo = { ...replay.statusInfo, reachable: false, message: 'Start Ollama with "ollama serve".' };
    app.current!.sendError = 'could not reach Ollama';
    await vi.advanceTimersByTimeAsync(15000);
    expect(app.status?.reachable).toBe(false);
    // It is back, with a model pulled meanwhile.
    replay.statusInfo = { ...replay.statusInfo, reachable: true, message: '' };
    replay.models = [...replay.models, { ...replay.models[0]!, name: 'pulled:latest' }];
    await vi.advanceTimersByTimeAsync(5000);
    expect(app.status?.reachable).toBe(true);
    expect(app.models.map((m) => m.name)).toEqual([...before, 'pulled:latest']);
    expect(app.current!.sendError).toBeNull();
    stop();
  });

  it('merges live events that arrive while the snapshot is loading', async () => {
    const { app, replay, stop } = setup('approve_command');
    await settle();
    // The snapshot is read before the run starts and arrives after it began.
    const snapshot = await replay.openSession('session-1');
    let resolve!: (s: SessionSnapshot) => void;
    replay.openSession = () => new Promise((r) => (resolve = r));
    const opening = app.openSession('session-1');
    await replay.do({ do: 'send', session: 'session-1', text: 'Write hello.txt with a command' });
    await settle();
    resolve(snapshot);
    await opening;
    expect(app.current?.events.map((e) => e.kind)).toEqual(['user_message', 'model_request', 'model_response', 'tool_call', 'permission']);
    expect(app.current?.loading).toBe(false);
    stop();
  });

  it('keeps the draft and shows why when Send is refused', async () => {
    const { app, replay, stop } = setup('new_session', { from: 'created' });
    await settle();
    await app.openSession('session-1');
    await app.setModel('llama3.2:1b');
    app.current!.draft = 'Hi';
    await app.send();
    expect(app.current!.draft).toBe('Hi');
    expect(app.current!.sendError).toContain('is not installed in Ollama');
    await app.setModel('qwen3:0.6b');
    await app.send();
    expect(app.current!.draft).toBe('');
    expect(app.current!.sendError).toBeNull();
    await settle();
    expect(replay.commandsOf('send')).toEqual([
      { do: 'send', session: 'session-1', text: 'Hi' },
      { do: 'send', session: 'session-1', text: 'Hi' },
    ]);
    replay.check();
    stop();
  });

  it('tracks approvals from the log and answers them once', async () => {
    const { app, replay, stop } = setup('approve_command');
    await settle();
    await app.openSession('session-1');
    app.current!.draft = 'Write hello.txt with a command';
    await app.send();
    await settle();
    const a = app.approvalForCall('call_1');
    expect(a).toMatchObject({ id: 'session-1/call_1', session_id: 'session-1', call_id: 'call_1', tool: 'run_command' });
    expect(a?.call).toMatchObject({ tool: 'run_command', command: 'echo hello > hello.txt' });
    expect(app.waiting.has('session-1')).toBe(true);
    // A second answer to the same question is not sent: the replay would fail it.
    await Promise.all([app.answer(a!, true), app.answer(a!, true)]);
    expect(replay.commandsOf('answer')).toEqual([{ do: 'answer', session: 'session-1', call_id: 'call_1', allow: true, scope: 'once' }]);
    await settle();
    // The answer is in the log: the question is closed, the sidebar no longer flags the session.
    expect(app.approvalForCall('call_1')).toBeUndefined();
    expect(app.waiting.has('session-1')).toBe(false);
    replay.check();
    stop();
  });

  it('flags a session that is not open as waiting for an answer, from its events alone', async () => {
    const { app, replay, stop } = setup('approve_command');
    await settle();
    expect(app.current).toBeNull();
    // The run was started elsewhere (the session is not open here): only its events arrive.
    await replay.do({ do: 'send', session: 'session-1', text: 'Write hello.txt with a command' });
    await settle();
    expect(app.sessions[0]).toMatchObject({ id: 'session-1', running: true, open_run: 1, standing: 'asking', event_count: 5 });
    expect(app.waiting.has('session-1')).toBe(true);
    await replay.do({ do: 'answer', session: 'session-1', call_id: 'call_1', allow: true, scope: 'once' });
    await settle();
    expect(app.waiting.has('session-1')).toBe(false);
    expect(app.sessions[0]).toMatchObject({ running: false, open_run: 0, standing: '', last_reason: 'answered', event_count: 10 });
    stop();
  });

  it('keeps what the events said when a command’s summary comes back after them', async () => {
    const { app, replay, stop } = setup('step_edits', { from: 'paused after_result' });
    await settle();
    await app.openSession('session-1');
    expect(app.current!.pause).toMatchObject({ seq: 17, point: 'after_result', call_id: 'call_1' });
    expect(app.sessions[0]!.standing).toBe('paused');
    // A bound method may return after the events it caused have arrived.
    const play = replay.do.bind(replay);
    replay.do = async (c) => {
      const out = await play(c);
      await settle();
      await settle();
      return out;
    };
    app.current!.pauseDraft!.result = 'The README says: hello (edited)';
    await app.resume('continue');
    expect(replay.commandsOf('edit_result')).toEqual([{ do: 'edit_result', session: 'session-1', at: 17, text: 'The README says: hello (edited)' }]);
    expect(replay.commandsOf('continue')).toEqual([{ do: 'continue', session: 'session-1', at: 17 }]);
    replay.expectDone();
    // Continue's summary was read while the run still waited; the run has ended since.
    for (const s of [app.current!.summary, app.sessions[0]!]) {
      expect(s).toMatchObject({ running: false, open_run: 0, standing: '', last_reason: 'answered', event_count: 22 });
      // What the command says of the session is taken: Continue leaves Step mode on, for the next run.
      expect(s.stepping).toBe(true);
    }
    expect(app.current!.pause).toBeNull();
    expect(app.current!.active).toBe(false);
    stop();
  });

  it('updates the open session from session events and run_end', async () => {
    const { app, stop } = setup('stop_paused');
    await settle();
    await app.openSession('session-1');
    await app.setStepping(true);
    app.current!.draft = 'Say hi';
    await app.send();
    await settle();
    expect(app.current!.summary.title).toBe('Say hi');
    expect(app.current!.running).toBe(true);
    await app.stop();
    await settle();
    expect(app.current!.running).toBe(false);
    expect(app.current!.summary.last_reason).toBe('cancelled');
    stop();
  });

  it('shows streaming text until the response is committed', async () => {
    const { app, replay, stop } = setup('stop_streaming');
    await settle();
    await app.openSession('session-1');
    await replay.do({ do: 'send', session: 'session-1', text: 'Greet me' });
    await settle();
    expect(app.liveText(1, 1)?.content).toBe('Hello there');
    await replay.do({ do: 'stop', session: 'session-1' });
    await settle();
    expect(app.liveText(1, 1)).toBeUndefined();
    expect(app.current?.events.find((e) => e.kind === 'model_response')).toBeTruthy();
    stop();
  });

  it('deletes a session and leaves it if it was open', async () => {
    const { app, replay, stop } = setup('new_session', { from: 'answered' });
    await settle();
    await app.openSession('session-1');
    await app.deleteSession('session-1');
    expect(app.sessions).toEqual([]);
    expect(app.current).toBeNull();
    expect(app.view).toBe('home');
    replay.expectDone();
    stop();
  });

  it('caches one Raw source per event, and loads what the backend rebuilt', async () => {
    const { app, replay, stop } = setup('approve_command', { from: 'end' });
    await settle();
    await app.openSession('session-1');
    const req = replay.events.find((e) => e.kind === 'model_request')!;
    const a = app.rawSource(req);
    expect(app.rawSource(req)).toBe(a);
    expect(a.exact).toBe(true);
    expect(await a.load()).toBe(replay.recording.raw_requests[String(req.seq)]);
    stop();
  });
});

describe('sortSessions', () => {
  it('puts the most recently updated first, whatever the time zone offset', async () => {
    const { sortSessions } = await import('./app.svelte');
    const list = sortSessions([
      makeSummary({ id: 'old', updated_at: '2026-01-05T10:00:00+02:00' }),
      makeSummary({ id: 'new', updated_at: '2026-01-05T09:30:00Z' }),
    ]);
    expect(list.map((s) => s.id)).toEqual(['new', 'old']);
  });
});
