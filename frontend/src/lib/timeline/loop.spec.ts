import { describe, expect, it } from 'vitest';
import { EventLog } from '../testing/events';
import { buildTimeline } from './group';
import { breakpointForCard, callStep, checkpointStep, loopPosition, stepOfEvent } from './loop';
import { flattenCards } from './nav';

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
      ['call', { tool: 'read_file' }],
      ['checkpoint', { tool: 'read_file' }],
      ['edit', { tool: 'read_file' }],
      ['observation', { point: 'after_result' }],
      ['end', null],
    ]);
  });
});
