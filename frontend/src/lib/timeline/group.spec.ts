import { describe, expect, it } from 'vitest';
import { EventLog } from '../testing/events';
import { buildTimeline, openRun, pendingRound, type CallItem } from './group';

function twoRounds() {
  const log = new EventLog();
  log.user('list and read');
  log.request();
  log.response({
    tool_calls: [
      { id: 'c1', index: 0, name: 'list_dir', args: { path: '.' } },
      { id: 'c2', index: 1, name: 'read_file', args: { path: 'a.go' } },
    ],
  });
  log.toolCall({ call_id: 'c1', name: 'list_dir', args: { path: '.' }, read_only: true });
  log.toolCall({ call_id: 'c2', name: 'read_file', args: { path: 'a.go' }, read_only: true });
  log.permission('c1', 'list_dir', 'allow', 'rule: read-only');
  log.permission('c2', 'read_file', 'allow', 'rule: read-only');
  // Results arrive out of call order: pairing is by id, not position.
  log.result({ call_id: 'c2', name: 'read_file', content: 'package a' });
  log.result({ call_id: 'c1', name: 'list_dir', content: 'a.go' });
  log.request();
  log.response({ content: 'done' });
  log.end('answered', 'done');
  return log;
}

const calls = (items: { kind: string }[]) => items.filter((i): i is CallItem => i.kind === 'call');

describe('buildTimeline', () => {
  it('groups events into runs and rounds', () => {
    const t = buildTimeline(twoRounds().events);
    expect(t.runs).toHaveLength(1);
    const run = t.runs[0]!;
    expect(run.user?.payload.text).toBe('list and read');
    expect(run.rounds.map((r) => r.round)).toEqual([1, 2]);
    expect(run.end?.payload.reason).toBe('answered');
    expect(run.rounds[0]!.items.map((i) => i.kind)).toEqual(['request', 'response', 'call', 'call']);
    expect(run.rounds[1]!.items.map((i) => i.kind)).toEqual(['request', 'response']);
  });

  it('pairs each call with its permission and result by call id, in the model order', () => {
    const t = buildTimeline(twoRounds().events);
    const [c1, c2] = calls(t.runs[0]!.rounds[0]!.items);
    expect(c1!.callId).toBe('c1');
    expect(c1!.permission?.payload.by).toBe('rule: read-only');
    expect(c1!.result?.payload.content).toBe('a.go');
    expect(c2!.callId).toBe('c2');
    expect(c2!.result?.payload.content).toBe('package a');
    expect(t.calls.get('c2')).toBe(c2);
  });

  it('shows the calls of a complete response before their events arrive', () => {
    const log = new EventLog();
    log.user('x');
    log.request();
    log.response({ tool_calls: [{ id: 'c9', index: 0, name: 'glob', args: { pattern: '*.go' } }] });
    const [c] = calls(buildTimeline(log.events).runs[0]!.rounds[0]!.items);
    expect(c!.name).toBe('glob');
    expect(c!.asked?.args).toEqual({ pattern: '*.go' });
    expect(c!.call).toBeUndefined();
  });

  it('never lists the calls of an incomplete response as calls', () => {
    const log = new EventLog();
    log.user('x');
    log.request();
    log.response({ incomplete: true, done_reason: 'length', tool_calls: [{ id: 'c1', index: 0, name: 'run_command', args: {} }] });
    log.end('truncated');
    const t = buildTimeline(log.events);
    expect(calls(t.runs[0]!.rounds[0]!.items)).toHaveLength(0);
    expect(t.calls.size).toBe(0);
  });

  it('keeps a result whose call event is missing (backfilled after a crash)', () => {
    const log = new EventLog();
    log.user('x');
    log.request();
    log.result({ call_id: 'lost', name: 'run_command', content: 'interrupted (app exited)', is_error: true, error_kind: 'interrupted' });
    const [c] = calls(buildTimeline(log.events).runs[0]!.rounds[0]!.items);
    expect(c!.callId).toBe('lost');
    expect(c!.result?.payload.error_kind).toBe('interrupted');
  });

  it('puts notices and errors in their round, in order', () => {
    const log = new EventLog();
    log.user('x');
    log.notice('retry', 'retrying');
    log.request();
    log.error('model', 'boom');
    const run = buildTimeline(log.events).runs[0]!;
    expect(run.rounds.map((r) => [r.round, r.items.map((i) => i.kind)])).toEqual([
      [0, ['notice']],
      [1, ['request', 'error']],
    ]);
  });

  it('splits several runs', () => {
    const log = twoRounds();
    log.user('again');
    log.request();
    const t = buildTimeline(log.events);
    expect(t.runs.map((r) => r.run)).toEqual([1, 2]);
    expect(openRun(t)?.run).toBe(2);
    expect(pendingRound(t)?.round).toBe(1);
  });

  it('has no open run or pending round when the last run ended', () => {
    const t = buildTimeline(twoRounds().events);
    expect(openRun(t)).toBeUndefined();
    expect(pendingRound(t)).toBeUndefined();
  });

  it('reuses unchanged runs from the previous timeline', () => {
    const log = twoRounds();
    const first = buildTimeline(log.events);
    log.user('again');
    const second = buildTimeline(log.events, first);
    expect(second.runs[0]).toBe(first.runs[0]);
    log.request();
    const third = buildTimeline(log.events, second);
    expect(third.runs[0]).toBe(first.runs[0]);
    expect(third.runs[1]).not.toBe(second.runs[1]);
    expect(third.runs[1]!.rounds).toHaveLength(1);
  });

  it('builds a run again when one of its events that came cut is there whole', () => {
    const log = twoRounds();
    const cut = log.events.map((e) => (e.kind === 'tool_result' ? { ...e, preview: { '/content': { bytes: 9000, lines: 300 } } } : e));
    const first = buildTimeline(cut);
    const whole = cut.map((e) => (e.preview ? { ...e, preview: undefined } : e));
    const second = buildTimeline(whole, first);
    expect(second.runs[0]).not.toBe(first.runs[0]);
    expect(buildTimeline(whole, second).runs[0]).toBe(second.runs[0]);
  });
});

describe('buildTimeline with step-through', () => {
  function stepped() {
    const log = new EventLog();
    log.user('read it');
    log.checkpoint({ point: 'before_request', state: 'paused' }); // 2
    log.edit({ target: 'system', before: 'a', after: 'b' }); // 3
    log.checkpoint({ point: 'before_request', state: 'resumed', action: 'step' }); // 4
    log.request();
    log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'read_file', args: { path: 'a' } }] });
    log.toolCall({ call_id: 'c1', name: 'read_file', args: { path: 'a' } });
    log.checkpoint({ point: 'before_tool', state: 'paused', call_id: 'c1', tool: 'read_file' }); // 8
    log.edit({ target: 'args', call_id: 'c1', before: { path: 'a' }, after: { path: 'b' } }); // 9
    log.checkpoint({ point: 'before_tool', state: 'resumed', call_id: 'c1', tool: 'read_file', action: 'step' }); // 10
    log.permission('c1', 'read_file', 'allow');
    log.result({ call_id: 'c1', name: 'read_file', content: 'B' });
    log.checkpoint({ point: 'after_result', state: 'paused', call_id: 'c1' }); // 13
    log.edit({ target: 'result', call_id: 'c1', before: 'B', after: 'edited' }); // 14
    return log;
  }

  it('shows a pause and its end as one checkpoint item, with the edits made there after it', () => {
    const t = buildTimeline(stepped().events);
    // Before the request: in the round, in event order (the fixture numbers
    // them round 0, before request() counts the round).
    const items = t.runs[0]!.rounds.flatMap((g) => g.items);
    expect(items.map((i) => i.kind)).toEqual(['checkpoint', 'edit', 'request', 'response', 'call']);
    const first = items[0]!;
    expect(first.kind === 'checkpoint' && [first.event.seq, first.resumed?.seq]).toEqual([2, 4]);
    // Around a call: before it ran, and after its result.
    const c = t.calls.get('c1')!;
    expect(c.before.map((i) => [i.kind, i.event.seq])).toEqual([
      ['checkpoint', 8],
      ['edit', 9],
    ]);
    expect(c.before[0]!.kind === 'checkpoint' && c.before[0]!.resumed?.seq).toBe(10);
    expect(c.after.map((i) => [i.kind, i.event.seq])).toEqual([
      ['checkpoint', 13],
      ['edit', 14],
    ]);
    expect(c.after[0]!.kind === 'checkpoint' && c.after[0]!.resumed).toBeUndefined();
    expect(t.checkpointCards.get(4)).toBe('e:2');
    expect(t.checkpointCards.get(10)).toBe('e:8');
    expect(t.checkpointCards.get(13)).toBe('e:13');
  });

  it('puts an after_response pause right after the response, before its calls', () => {
    const log = new EventLog();
    log.user('x');
    log.request();
    log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'glob', args: {} }] });
    log.checkpoint({ point: 'after_response', state: 'paused' });
    log.checkpoint({ point: 'after_response', state: 'resumed', action: 'step' });
    log.toolCall({ call_id: 'c1', name: 'glob' });
    const g = buildTimeline(log.events).runs[0]!.rounds[0]!;
    expect(g.items.map((i) => i.kind)).toEqual(['request', 'response', 'checkpoint', 'call']);
  });

  it('gives a call its latest argument and result edits', () => {
    const c = buildTimeline(stepped().events).calls.get('c1')!;
    expect(c.argsEdit?.payload.after).toEqual({ path: 'b' });
    expect(c.resultEdit?.payload.after).toBe('edited');
  });

  it('leaves a pause open when the run ended without resuming it (stopped while paused)', () => {
    const log = new EventLog();
    log.user('x');
    log.checkpoint({ point: 'before_request', state: 'paused' });
    log.end('cancelled');
    log.user('y');
    log.checkpoint({ point: 'before_request', state: 'resumed', action: 'step' });
    const t = buildTimeline(log.events);
    const first = t.runs[0]!.rounds.flatMap((g) => g.items).find((i) => i.kind === 'checkpoint');
    expect(first?.kind === 'checkpoint' && first.resumed).toBeFalsy();
    // A resumed event with no open pause gets its own card.
    expect(t.checkpointCards.get(5)).toBe('e:5');
  });
});
