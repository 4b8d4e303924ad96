import { describe, expect, it } from 'vitest';
import { EventLog } from '../testing/events';
import { mergeEvents } from './merge';

function log5() {
  const log = new EventLog();
  log.user('a');
  log.request();
  log.response({ content: 'b' });
  log.end('answered', 'b');
  log.user('c');
  return log.events;
}

describe('mergeEvents', () => {
  it('appends live events after the snapshot', () => {
    const all = log5();
    const merged = mergeEvents(all.slice(0, 3), all.slice(3));
    expect(merged.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('handles live events that arrived before the snapshot, with overlap', () => {
    const all = log5();
    const live = mergeEvents([], all.slice(3));
    const merged = mergeEvents(live, all.slice(0, 4));
    expect(merged.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('returns the same array when nothing is new', () => {
    const all = log5();
    expect(mergeEvents(all, [])).toBe(all);
    expect(mergeEvents(all, [all[1]!, all[2]!])).toBe(all);
  });

  it('never duplicates a seq', () => {
    const all = log5();
    const merged = mergeEvents(all, [all[4]!, all[4]!]);
    expect(merged.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
  });
});
