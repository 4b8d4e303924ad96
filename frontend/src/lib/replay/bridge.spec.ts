import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../types';
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
    expect(replay.waitingFor).toBe('send("session-1", "Write hello.txt with a command")');
    await replay.send('session-1', 'Write hello.txt with a command');
    await settle();
    // Up to the approval: the question is an event, and the call waits for the user.
    expect(got.map((e) => e.kind)).toEqual(['user_message', 'model_request', 'model_response', 'tool_call', 'permission']);
    expect(replay.waitingFor).toBe('answerFor("ask-1", true, "once")');
    const snap = await replay.openSession('session-1');
    expect(snap.approvals.map((a) => a.id)).toEqual(['ask-1']);
    expect(snap.summary.running).toBe(true);
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
    await replay.send('session-1', 'Write hello.txt with a command');
    await expect(replay.answerFor('ask-1', false, 'once')).rejects.toThrow(/recording has answerFor\("ask-1", true, "once"\)/);
    expect(() => replay.check()).toThrow(/the UI sent answerFor\("ask-1", false, "once"\)/);
  });

  it('fails the spec when the UI sends a command the recording does not have at all', async () => {
    const { replay } = replayOf('approve_command');
    await expect(replay.stop('session-1')).rejects.toThrow();
    expect(() => replay.check()).toThrow(/stop\("session-1"\) where the recording has send/);
  });

  it('fails expectDone while a recorded command was not sent', async () => {
    const { replay } = replayOf('stop_paused');
    await replay.setStepping('session-1', true);
    await replay.send('session-1', 'Say hi');
    expect(() => replay.expectDone()).toThrow(/still waits for stop\("session-1"\)/);
    await replay.stop('session-1');
    expect(() => replay.expectDone()).not.toThrow();
  });

  it('answers a failed command with the backend’s error', async () => {
    const replay = new ReplayBridge(recording('step_edits'), { from: 'paused before_tool' });
    await expect(replay.editArgs('session-1', '{"file": "README.md"}')).rejects.toThrow(/missing required property "path"/);
    expect(replay.problems).toEqual([]);
  });

  it('starts from a mark with what came before as stored history, paused where the run waited', async () => {
    const replay = new ReplayBridge(recording('step_through'), { from: 'paused before_tool' });
    const snap = await replay.openSession('session-1');
    expect(snap.summary.paused?.point).toBe('before_tool');
    expect(snap.events.at(-1)?.kind).toBe('checkpoint');
    expect(replay.waitingFor).toBe('step("session-1")');
    expect(() => new ReplayBridge(recording('step_through'), { from: 'nowhere' })).toThrow(/no mark "nowhere"/);
  });

  it('answers reads with the last answer before where it is, and outside changes happen when the spec says', async () => {
    const replay = new ReplayBridge(recording('workspace'));
    await replay.send('session-1', 'Hi');
    expect((await replay.workspace('/home/me/project')).trusted).toBe(false);
    await replay.trustWorkspace('/home/me/project', true);
    expect((await replay.workspace('/home/me/project')).trusted).toBe(true);
    replay.outside();
    expect((await replay.workspace('/home/me/project')).trusted).toBe(false);
    expect(() => replay.outside()).toThrow(/not an outside change/);
    await expect(replay.workspace('/elsewhere')).rejects.toThrow(/no answer to workspace/);
  });

  it('rejects a call on request without using up the recording', async () => {
    const replay = new ReplayBridge(recording('step_through'));
    replay.reject('setStepping', 'not now');
    await expect(replay.setStepping('session-1', true)).rejects.toThrow('not now');
    await replay.setStepping('session-1', true);
    expect(replay.problems).toEqual([]);
  });

  it('takes any message when lenient, and says what comes next when the UI sends another command', async () => {
    const replay = new ReplayBridge(recording('approve_command'), { lenient: true });
    await replay.send('session-1', 'something else');
    await expect(replay.stop('session-1')).rejects.toThrow(/next it does "Approve once"/);
    await expect(replay.answerFor('ask-1', false, 'once')).rejects.toThrow(/next it does "Approve once"/);
    expect(replay.problems).toEqual([]);
    await replay.answerFor('ask-1', true, 'once');
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
