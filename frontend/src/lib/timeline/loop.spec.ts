import { describe, expect, it } from 'vitest';
import { EventLog } from '../testing/events';
import { buildTimeline } from './group';
import { breakpointForCard, callStep, checkpointStep, loopPosition, stepOfEvent } from './loop';
import { flattenCards } from './nav';
import { recording } from '../replay/recordings';
import { parseEvent, type TraceEvent } from '../types';
import { standingOf } from './standing';

describe('loop steps', () => {
  it('gives every event of a round its step', () => {
    const log = new EventLog();
    log.user('x');
    log.request();
    log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'read_file', args: { path: 'a' } }] });
    log.toolCall({ call_id: 'c1', name: 'read_file', args: { path: 'a' } });
    log.permission('c1', 'read_file', 'allow');
    log.result({ call_id: 'c1', name: 'read_file', content: 'A' });
    log.notice('loop_detected', 'again');
    log.end('answered');
    expect(log.events.map(stepOfEvent)).toEqual(['append', 'send', 'respond', 'validate', 'execute', 'append', null, 'stop']);
  });

  it('puts a refused call at permission, and checkpoints and edits where they happen', () => {
    const log = new EventLog();
    expect(stepOfEvent(log.permission('c1', 'run_command', 'deny'))).toBe('permission');
    expect(stepOfEvent(log.checkpoint({ point: 'before_tool', state: 'paused' }))).toBe('permission');
    expect(stepOfEvent(log.edit({ target: 'args', call_id: 'c1', before: {}, after: {} }))).toBe('validate');
    expect(stepOfEvent(log.edit({ target: 'result', call_id: 'c1', before: 'a', after: 'b' }))).toBe('append');
    expect(stepOfEvent(log.edit({ target: 'system', before: 'a', after: 'b' }))).toBe('send');
    expect(checkpointStep('after_response')).toEqual({ step: 'respond', when: 'after' });
    expect(checkpointStep('before_request')).toEqual({ step: 'send', when: 'before' });
    expect(checkpointStep('after_result')).toEqual({ step: 'append', when: 'before' });
  });

  it('tags a call card with the furthest step it reached', () => {
    const log = new EventLog();
    log.user('x');
    log.request();
    log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'run_command', args: {} }] });
    const at = () => callStep(buildTimeline(log.events).calls.get('c1')!);
    expect(at()).toBe('validate');
    log.toolCall({ call_id: 'c1', name: 'run_command' });
    expect(at()).toBe('permission');
    log.permission('c1', 'run_command', 'allow');
    expect(at()).toBe('execute');
  });
});

describe('loopPosition', () => {
  it('is nowhere before anything happened', () => {
    expect(loopPosition([])).toBeNull();
  });

  it('follows the last event that is a step, skipping notices', () => {
    const log = new EventLog();
    log.user('x');
    log.request();
    expect(loopPosition(log.events)).toEqual({ step: 'send', paused: false, seq: 2 });
    log.response({ content: 'hi' });
    log.notice('x', 'y');
    expect(loopPosition(log.events)).toEqual({ step: 'respond', paused: false, seq: 3 });
  });

  it('is paused at a paused checkpoint, and not once it resumed', () => {
    const log = new EventLog();
    log.user('x');
    log.checkpoint({ point: 'before_request', state: 'paused' });
    expect(loopPosition(log.events)).toEqual({ step: 'send', paused: true, when: 'before', seq: 2 });
    log.checkpoint({ point: 'before_request', state: 'resumed', action: 'step' });
    expect(loopPosition(log.events)).toEqual({ step: 'send', paused: false, seq: 3 });
  });

  it('takes a live pause over the events', () => {
    const log = new EventLog();
    log.user('x');
    expect(loopPosition(log.events, { seq: 4, point: 'after_result', run: 1, round: 1 })).toEqual({ step: 'append', paused: true, when: 'before' });
  });
});

describe('breakpointForCard', () => {
  it('names the checkpoint kind or the tool of a card', () => {
    const log = new EventLog();
    log.user('x');
    log.request();
    log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'read_file', args: {} }] });
    log.toolCall({ call_id: 'c1', name: 'read_file' });
    log.checkpoint({ point: 'before_tool', state: 'paused', call_id: 'c1', tool: 'read_file' });
    log.edit({ target: 'args', call_id: 'c1', before: {}, after: { path: 'a' } });
    log.checkpoint({ point: 'before_tool', state: 'resumed', call_id: 'c1', tool: 'read_file', action: 'step' });
    log.result({ call_id: 'c1', name: 'read_file' });
    log.end('answered');
    const t = buildTimeline(log.events);
    expect(flattenCards(t.runs).map((c) => [c.kind, breakpointForCard(t, c)])).toEqual([
      ['user', null],
      ['request', { point: 'before_request' }],
      ['response', { point: 'after_response' }],
      // A pause and an edit before a call are drawn above its card.
      ['checkpoint', { tool: 'read_file' }],
      ['edit', { tool: 'read_file' }],
      ['call', { tool: 'read_file' }],
      ['observation', { point: 'after_result' }],
      ['end', null],
    ]);
  });
});

// The lit step in each state a run passes through, on the Go engine's
// recordings: the log up to an event, read as the window reads it live.
describe('the lit step, from the log', () => {
  const logOf = (name: string) =>
    recording(name)
      .steps.map((s) => (s.event === undefined ? null : parseEvent(s.event)))
      .filter((e): e is TraceEvent => e != null);
  /** The position live after the events up to seq, with the pause the log shows there. */
  const liveAt = (name: string, seq: number) => {
    const events = logOf(name).filter((e) => e.seq <= seq);
    const st = standingOf(events);
    return loopPosition(events, st.pause, st.open);
  };

  // approve_command: user 1, request 2, response 3, call 4, question 5,
  // permission 6, result 7, request 8, response 9, end 10.
  it('is Send before the first request, and Respond while the model answers', () => {
    expect(liveAt('approve_command', 1)).toMatchObject({ step: 'send', paused: false });
    expect(liveAt('approve_command', 2)).toMatchObject({ step: 'respond', paused: false });
    expect(liveAt('approve_command', 8)).toMatchObject({ step: 'respond', paused: false });
  });

  it('is Validate once the calls are in, and Permission while it waits for your approval', () => {
    expect(liveAt('approve_command', 3)).toMatchObject({ step: 'validate' });
    expect(liveAt('approve_command', 4)).toMatchObject({ step: 'permission' });
    expect(liveAt('approve_command', 5)).toMatchObject({ step: 'permission', paused: false });
  });

  it('is Execute after you approved, then Append with the result', () => {
    expect(liveAt('approve_command', 6)).toMatchObject({ step: 'execute' });
    expect(liveAt('approve_command', 7)).toMatchObject({ step: 'append' });
  });

  it('is Stop when the run ended, whatever came before', () => {
    expect(liveAt('approve_command', 10)).toMatchObject({ step: 'stop', paused: false });
    expect(liveAt('stop_streaming', 4)).toMatchObject({ step: 'stop', paused: false });
  });

  // step_through pauses at 2, 6, 9, 13, 15 and 19.
  it('is the step of each checkpoint while paused there, and the next step once resumed', () => {
    expect([2, 6, 9, 13, 15, 19].map((seq) => liveAt('step_through', seq))).toEqual([
      { step: 'send', paused: true, when: 'before' },
      { step: 'respond', paused: true, when: 'after' },
      { step: 'permission', paused: true, when: 'before' },
      { step: 'append', paused: true, when: 'before' },
      { step: 'send', paused: true, when: 'before' },
      { step: 'respond', paused: true, when: 'after' },
    ]);
    expect([3, 7, 10, 11, 14].map((seq) => liveAt('step_through', seq)?.step)).toEqual(['send', 'validate', 'permission', 'execute', 'append']);
  });

  it('is the step of the event at the position in playback', () => {
    const events = logOf('approve_command');
    const at = (seq: number) => loopPosition(events.filter((e) => e.seq <= seq))?.step;
    expect([2, 3, 5, 6, 7].map(at)).toEqual(['send', 'respond', 'permission', 'execute', 'append']);
  });
});
