import { describe, expect, it } from 'vitest';
import { EventLog } from '../bridge/fixtures';
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
});
