import { describe, expect, it } from 'vitest';
import { EventLog } from '../testing/events';
import { applyDeltas, liveKey, settleLive } from './live';

const d = (run: number, round: number, content: string, thinking = '', session_id = 's1') => ({
  session_id,
  run,
  round,
  content,
  thinking,
});

describe('live text', () => {
  it('appends deltas per (session, run, round)', () => {
    let m = applyDeltas(new Map(), [d(1, 1, 'Hel'), d(1, 1, 'lo'), d(1, 2, 'x'), d(1, 1, '', 'hmm', 's2')]);
    m = applyDeltas(m, [d(1, 1, ' world', 'because')]);
    expect(m.get(liveKey('s1', 1, 1))).toEqual({ content: 'Hello world', thinking: 'because' });
    expect(m.get(liveKey('s1', 1, 2))?.content).toBe('x');
    expect(m.get(liveKey('s2', 1, 1))).toEqual({ content: '', thinking: 'hmm' });
  });

  it('does not change the map it was given', () => {
    const m0 = new Map();
    applyDeltas(m0, [d(1, 1, 'a')]);
    expect(m0.size).toBe(0);
  });

  it('drops a round once its response is committed', () => {
    const log = new EventLog('s1');
    log.user('x');
    log.request();
    const m = applyDeltas(new Map(), [d(1, 1, 'partial'), d(1, 2, 'other')]);
    const settled = settleLive(m, [log.response({ content: 'partial answer' })]);
    expect(settled.has(liveKey('s1', 1, 1))).toBe(false);
    expect(settled.has(liveKey('s1', 1, 2))).toBe(true);
  });

  it('drops every round of a run that ended', () => {
    const log = new EventLog('s1');
    log.user('x');
    const m = applyDeltas(new Map(), [d(1, 1, 'a'), d(1, 2, 'b'), d(2, 1, 'c')]);
    const settled = settleLive(m, [log.end('cancelled')]);
    expect([...settled.keys()]).toEqual([liveKey('s1', 2, 1)]);
  });

  it('returns the same map when nothing settles', () => {
    const m = applyDeltas(new Map(), [d(1, 1, 'a')]);
    const log = new EventLog('s1');
    expect(settleLive(m, [log.user('x')])).toBe(m);
  });
});
