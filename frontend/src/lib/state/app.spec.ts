// @vitest-environment jsdom
// LoupeApp with its parts wired together, on replays of the engine's
// recordings: what goes through more than one part (events into the list
// and the open session, a command's summary, Ollama's status and a refused
// send). Each part's own behaviour is in its spec (status, summaries,
// settings, live, raws, toasts).
// jsdom: the state classes compile for the browser, as in the window
// (under node they compile for the server, where a derived value such as
// a pause's draft is computed afresh on every read).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReplayBridge, type ReplayOptions } from '../replay/bridge';
import { recording } from '../replay/recordings';
import type { SessionSnapshot } from '../types';
import { LoupeApp } from './app.svelte';
import { STATUS_RETRY_MS, STATUS_WATCH_MS } from './status.svelte';

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

  it('forgets a send refused while Ollama was away once it is back', async () => {
    vi.useFakeTimers();
    const { app, replay, stop } = setup('approve_command');
    await vi.advanceTimersByTimeAsync(0);
    await app.openSession('session-1');
    // Ollama stops: the next check says so, without a click, and a send is refused meanwhile.
    replay.statusInfo = { ...replay.statusInfo, reachable: false, message: 'Start Ollama with "ollama serve".' };
    await vi.advanceTimersByTimeAsync(STATUS_WATCH_MS);
    expect(app.status?.reachable).toBe(false);
    app.current!.sendError = 'could not reach Ollama';
    await vi.advanceTimersByTimeAsync(STATUS_RETRY_MS);
    expect(app.current!.sendError).toBe('could not reach Ollama');
    // It is back.
    replay.statusInfo = { ...replay.statusInfo, reachable: true, message: '' };
    await vi.advanceTimersByTimeAsync(STATUS_RETRY_MS);
    expect(app.status?.reachable).toBe(true);
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

  it("shows the open session's streaming text until the response is committed", async () => {
    const { app, replay, stop } = setup('stop_streaming');
    await settle();
    // Before the session is open, its streaming text is nobody's.
    await replay.do({ do: 'send', session: 'session-1', text: 'Greet me' });
    await settle();
    expect(app.liveText(1, 1)).toBeUndefined();
    await app.openSession('session-1');
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

});
