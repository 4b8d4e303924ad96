import { describe, expect, it } from 'vitest';
import { EventLog } from '../testing/events';
import { buildTimeline } from './group';
import { flattenCards, neighbour } from './nav';

describe('flattenCards', () => {
  it('lists cards in display order, an observation after its call', () => {
    const log = new EventLog();
    log.user('x');
    log.request();
    log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'glob', args: {} }] });
    log.toolCall({ call_id: 'c1', name: 'glob' });
    log.result({ call_id: 'c1', name: 'glob' });
    log.notice('n', 'note');
    log.end('answered');
    expect(flattenCards(buildTimeline(log.events).runs).map((c) => c.kind)).toEqual([
      'user',
      'request',
      'response',
      'call',
      'observation',
      'notice',
      'end',
    ]);
  });
});

describe('neighbour', () => {
  const ids = ['a', 'b', 'c'];
  it('moves forward and back', () => {
    expect(neighbour(ids, 'a', 1)).toBe('b');
    expect(neighbour(ids, 'c', -1)).toBe('b');
  });
  it('stays at the ends', () => {
    expect(neighbour(ids, 'c', 1)).toBe('c');
    expect(neighbour(ids, 'a', -1)).toBe('a');
  });
  it('starts at the first (next) or last (previous) card without a current one', () => {
    expect(neighbour(ids, null, 1)).toBe('a');
    expect(neighbour(ids, null, -1)).toBe('c');
    expect(neighbour(ids, 'gone', 1)).toBe('a');
  });
  it('has nothing to move to in an empty timeline', () => {
    expect(neighbour([], null, 1)).toBeNull();
  });
});

describe('flattenCards with step-through', () => {
  it('lists checkpoint and edit cards where they happened', () => {
    const log = new EventLog();
    log.user('x');
    log.checkpoint({ point: 'before_request', state: 'paused' });
    log.edit({ target: 'system', before: 'a', after: 'b' });
    log.checkpoint({ point: 'before_request', state: 'resumed', action: 'step' });
    log.request();
    log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'glob', args: {} }] });
    log.toolCall({ call_id: 'c1', name: 'glob' });
    log.checkpoint({ point: 'before_tool', state: 'paused', call_id: 'c1', tool: 'glob' });
    log.edit({ target: 'args', call_id: 'c1', before: {}, after: { pattern: '*' } });
    log.checkpoint({ point: 'before_tool', state: 'resumed', call_id: 'c1', tool: 'glob', action: 'step' });
    log.result({ call_id: 'c1', name: 'glob' });
    log.checkpoint({ point: 'after_result', state: 'paused', call_id: 'c1', tool: 'glob' });
    expect(flattenCards(buildTimeline(log.events).runs).map((c) => c.kind)).toEqual([
      'user',
      'checkpoint',
      'edit',
      'request',
      'response',
      // in display order: the pause and edit before a call sit above its card
      'checkpoint',
      'edit',
      'call',
      'observation',
      'checkpoint',
    ]);
  });
});
