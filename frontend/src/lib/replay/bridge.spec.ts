import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../types';
import { standingOf } from '../timeline/standing';
import { ReplayBridge } from './bridge';
import { parseRecording } from './recording';
import { recording } from './recordings';

const settle = () => new Promise((r) => setTimeout(r, 0));

/** A replay whose delivered events are collected. */
function replayOf(name: string, opts: ConstructorParameters<typeof ReplayBridge>[1] = {}) {
  const replay = new ReplayBridge(recording(name), opts);
  const got: TraceEvent[] = [];
  replay.onEvents((b) => got.push(...b));
  return { replay, got };
}

describe('ReplayBridge', () => {
  it('plays nothing until the UI sends the first command, then the engine’s answer up to the next one', async () => {
    const { replay, got } = replayOf('approve_command');
    expect(replay.waitingFor).toBe('do({"do":"send","session":"session-1","text":"Write hello.txt with a command"})');
    expect(got).toEqual([]);
    const out = await replay.do({ do: 'send', session: 'session-1', text: 'Write hello.txt with a command' });
    // The engine's answer: the summary it returned, with the title the message gave.
    expect(out.summary).toMatchObject({ id: 'session-1', title: 'Write hello.txt with a command' });
    await settle();
    // Up to the approval: the question is an event, and the call waits for the user.
    expect(got.map((e) => e.kind)).toEqual(['user_message', 'model_request', 'model_response', 'tool_call', 'permission']);
    expect(replay.waitingFor).toBe('do({"do":"answer","session":"session-1","call_id":"call_1","allow":true,"scope":"once"})');
    replay.expectWaitingFor('answer');
    expect(() => replay.expectWaitingFor('stop')).toThrow(/not stop/);
    // A reopened window reads the same from the log: the question is open, the run goes.
    const snap = await replay.openSession('session-1');
    expect(standingOf(snap.events).asks.map((a) => a.id)).toEqual(['session-1/call_1']);
    expect(snap.summary).toMatchObject({ running: true, open_run: 1, standing: 'asking', event_count: 5 });
  });

  it("opens a session with the engine's answer once the replay has got there, never one from later", async () => {
    const early = new ReplayBridge(recording('long_read'));
    // Before the run: nothing played, so nothing to show (the recorded
    // answer, from after the run, would hold events not played yet).
    expect((await early.openSession('session-1')).events).toEqual([]);

    const reopened = new ReplayBridge(recording('long_read'), { from: 'reopened' });
    const snap = await reopened.openSession('session-1');
    const result = snap.events.find((e) => e.kind === 'tool_result')!;
    expect(result.preview?.['/content']).toEqual({ bytes: 18984, lines: 601 });
    const whole = JSON.parse(await reopened.eventPayload('session-1', result.seq)) as { content: string };
    expect(whole.content).toContain('release 1: fixes');
    // An event the recording has no fetch of: its payload as it streamed.
    const request = snap.events.find((e) => e.kind === 'model_request')!;
    expect(JSON.parse(await reopened.eventPayload('session-1', request.seq))).toEqual(request.payload);
    await expect(reopened.eventPayload('session-1', 99)).rejects.toThrow(/no event 99/);
  });

  it('fails the spec when the UI sends another command than the recorded one, and refuses it', async () => {
    const { replay } = replayOf('approve_command');
    await replay.do({ do: 'send', session: 'session-1', text: 'Write hello.txt with a command' });
    await expect(replay.do({ do: 'answer', session: 'session-1', call_id: 'call_1', allow: false, scope: 'once' })).rejects.toThrow(
      /recording has do\(\{"do":"answer","session":"session-1","call_id":"call_1","allow":true,"scope":"once"\}\)/,
    );
    expect(() => replay.check()).toThrow(/the UI sent do\(\{"do":"answer","session":"session-1","call_id":"call_1","scope":"once"\}\)/);
  });

  it('fails the spec when the UI sends a command the recording does not have at all', async () => {
    const { replay } = replayOf('approve_command');
    await expect(replay.do({ do: 'stop', session: 'session-1' })).rejects.toThrow();
    expect(() => replay.check()).toThrow(/do\(\{"do":"stop","session":"session-1"\}\) where the recording has do\(\{"do":"send"/);
  });

  it('fails expectDone while a recorded command was not sent', async () => {
    const { replay } = replayOf('stop_paused');
    await replay.do({ do: 'set_stepping', session: 'session-1', on: true });
    await replay.do({ do: 'send', session: 'session-1', text: 'Say hi' });
    expect(() => replay.expectDone()).toThrow(/still waits for do\(\{"do":"stop","session":"session-1"\}\)/);
    await replay.do({ do: 'stop', session: 'session-1' });
    expect(() => replay.expectDone()).not.toThrow();
    expect(replay.commandsOf('stop')).toEqual([{ do: 'stop', session: 'session-1' }]);
    expect(replay.commandsOf('set_stepping')).toEqual([{ do: 'set_stepping', session: 'session-1', on: true }]);
  });

  it('answers a failed command with the backend’s error', async () => {
    const replay = new ReplayBridge(recording('step_edits'), { from: 'paused before_tool' });
    await expect(replay.do({ do: 'edit_args', session: 'session-1', at: 12, text: '{"file": "README.md"}' })).rejects.toThrow(/missing required property "path"/);
    expect(replay.problems).toEqual([]);
  });

  it('wants a pause command for the pause it was recorded at', async () => {
    const replay = new ReplayBridge(recording('step_edits'), { from: 'paused before_tool' });
    await expect(replay.do({ do: 'edit_args', session: 'session-1', at: 9, text: '{"file": "README.md"}' })).rejects.toThrow();
    expect(() => replay.check()).toThrow(/"at":9/);
  });

  it('starts from a mark with what came before as stored history, paused where the run waited', async () => {
    const replay = new ReplayBridge(recording('step_through'), { from: 'paused before_tool' });
    const snap = await replay.openSession('session-1');
    expect(snap.summary).toMatchObject({ standing: 'paused', open_run: 1, stepping: true });
    const last = snap.events.at(-1);
    expect(last?.kind).toBe('checkpoint');
    expect(standingOf(snap.events).pause).toMatchObject({ seq: last?.seq, point: 'before_tool', tool: 'list_dir', args: { path: '.' } });
    expect(replay.waitingFor).toBe(`do({"do":"step","session":"session-1","at":${last?.seq}})`);
    expect(() => new ReplayBridge(recording('step_through'), { from: 'nowhere' })).toThrow(/no mark "nowhere"/);
  });

  it('answers reads with the last answer before where it is, and outside changes happen when the spec says', async () => {
    const replay = new ReplayBridge(recording('workspace'));
    await replay.do({ do: 'send', session: 'session-1', text: 'Hi' });
    const shown = await replay.workspace('/home/me/project');
    expect(shown.trusted).toBe(false);
    // A change answers with the workspace as it then is (trust names the file shown).
    expect((await replay.setWorkspace('/home/me/project', { trust: true, seen: shown.digest! })).trusted).toBe(true);
    expect((await replay.workspace('/home/me/project')).trusted).toBe(true);
    replay.outside();
    expect((await replay.workspace('/home/me/project')).trusted).toBe(false);
    expect(() => replay.outside()).toThrow(/not an outside change/);
    await expect(replay.workspace('/elsewhere')).rejects.toThrow(/no answer to workspace/);
  });

  it('rejects a call on request without using up the recording', async () => {
    const replay = new ReplayBridge(recording('step_through'));
    replay.reject('do', 'not now');
    await expect(replay.do({ do: 'set_stepping', session: 'session-1', on: true })).rejects.toThrow('not now');
    await replay.do({ do: 'set_stepping', session: 'session-1', on: true });
    expect(replay.problems).toEqual([]);
  });

  it('takes any message when lenient, and says what comes next when the UI sends another command', async () => {
    const replay = new ReplayBridge(recording('approve_command'), { lenient: true });
    await replay.do({ do: 'send', session: 'session-1', text: 'something else' });
    await expect(replay.do({ do: 'stop', session: 'session-1' })).rejects.toThrow(/next it does "Approve once"/);
    await expect(replay.do({ do: 'answer', session: 'session-1', call_id: 'call_1', allow: false, scope: 'once' })).rejects.toThrow(/next it does "Approve once"/);
    expect(replay.problems).toEqual([]);
    await replay.do({ do: 'answer', session: 'session-1', call_id: 'call_1', allow: true, scope: 'once' });
  });

  it('serves the request bodies the backend rebuilt, for requests it has played', async () => {
    const replay = new ReplayBridge(recording('approve_command'), { from: 'end' });
    const body = JSON.parse(await replay.rawRequest('session-1', 8));
    expect(body.messages.at(-1).role).toBe('tool');
    await expect(new ReplayBridge(recording('approve_command')).rawRequest('session-1', 8)).rejects.toThrow(/no request 8/);
  });

  it('refuses a file that is not a recording', () => {
    expect(() => parseRecording({ steps: [] })).toThrow('not a recording');
    expect(() => parseRecording({ scenario: 'x', steps: [{ event: {}, delta: {} }] })).toThrow('x step 0: has event, delta');
  });
});
