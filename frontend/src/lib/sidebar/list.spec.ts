import { describe, expect, it } from 'vitest';
import { makeSummary } from '../testing/events';
import type { SearchResults } from '../types';
import { dayLabel, dayRange, groupSessions, hitOrder, indexProgress, listOrder, step, stepHit } from './list';

// Local times, so that the day boundaries are the user's.
const at = (y: number, m: number, d: number, h = 12) => new Date(y, m - 1, d, h).toISOString();
const now = new Date(2026, 2, 10, 9, 0).getTime(); // 10 March 2026, 09:00

describe('groupSessions', () => {
  const list = [
    makeSummary({ id: 'old', updated_at: at(2025, 12, 31) }),
    makeSummary({ id: 'today-early', updated_at: at(2026, 3, 10, 0) }),
    makeSummary({ id: 'yesterday-late', updated_at: at(2026, 3, 9, 23) }),
    makeSummary({ id: 'pinned-old', updated_at: at(2026, 1, 2), pinned: true }),
    makeSummary({ id: 'today', updated_at: at(2026, 3, 10, 8) }),
    makeSummary({ id: 'march-3', updated_at: at(2026, 3, 3) }),
    makeSummary({ id: 'pinned-new', updated_at: at(2026, 3, 10, 7), pinned: true }),
    makeSummary({ id: 'bad', updated_at: 'not a time' }),
  ];
  const groups = groupSessions(list, now);

  it('puts the pinned on top, then one group per local day, newest first', () => {
    expect(groups.map((g) => [g.label, g.sessions.map((s) => s.id)])).toEqual([
      ['Pinned', ['pinned-new', 'pinned-old']],
      ['Today', ['today', 'today-early']],
      ['Yesterday', ['yesterday-late']],
      [dayLabel(Date.parse(at(2026, 3, 3)), now), ['march-3']],
      [dayLabel(Date.parse(at(2025, 12, 31)), now), ['old']],
      ['Earlier', ['bad']],
    ]);
  });

  it('names other days by date, with the year when it is not this one', () => {
    expect(dayLabel(Date.parse(at(2026, 3, 3)), now)).not.toMatch(/2026/);
    expect(dayLabel(Date.parse(at(2025, 12, 31)), now)).toMatch(/2025/);
  });

  it('walks the rows in the order drawn, staying put at the ends', () => {
    const ids = listOrder(groups);
    expect(ids).toEqual(['pinned-new', 'pinned-old', 'today', 'today-early', 'yesterday-late', 'march-3', 'old', 'bad']);
    expect(step(ids, null, 1)).toBe('pinned-new');
    expect(step(ids, null, -1)).toBe('bad');
    expect(step(ids, 'pinned-old', 1)).toBe('today'); // across a group's head
    expect(step(ids, 'today', -1)).toBe('pinned-old');
    expect(step(ids, 'pinned-new', -1)).toBe('pinned-new');
    expect(step(ids, 'bad', 1)).toBe('bad');
    expect(step(ids, 'gone', 1)).toBe('pinned-new');
    expect(step([], null, 1)).toBeNull();
  });
});

describe('search results', () => {
  const results: SearchResults = {
    query: 'abc', more: false, order: 'best', partial: false, status: { indexed: 1, total: 1 },
    sessions: [
      { session_id: 's1', title: '', model: '', workspace: '', last_reason: '', updated_at: '', hits: [
        { seq: 3, kind: 'tool_result', run: 1, round: 1, time: '', snippet: [] },
        { seq: 9, kind: 'model_response', run: 1, round: 2, time: '', snippet: [] },
      ] },
      { session_id: 's2', title: '', model: '', workspace: '', last_reason: '', updated_at: '', hits: [
        { seq: 1, kind: 'user_message', run: 1, round: 0, time: '', snippet: [] },
      ] },
    ],
  };

  it('walks hits across sessions; ↑ from the first goes back to the box', () => {
    const hits = hitOrder(results);
    expect(hits.map((h) => h.key)).toEqual(['s1:3', 's1:9', 's2:1']);
    expect(stepHit(hits, null, 1)).toBe('s1:3');
    expect(stepHit(hits, 's1:3', 1)).toBe('s1:9');
    expect(stepHit(hits, 's1:9', 1)).toBe('s2:1');
    expect(stepHit(hits, 's2:1', 1)).toBe('s2:1');
    expect(stepHit(hits, 's2:1', -1)).toBe('s1:9');
    expect(stepHit(hits, 's1:3', -1)).toBeNull();
    expect(stepHit(hits, null, -1)).toBeNull();
    expect(stepHit([], null, 1)).toBeNull();
    expect(hitOrder(null)).toEqual([]);
  });

  it('turns the days chosen into a half-open range of local time', () => {
    expect(dayRange('', '')).toEqual({});
    expect(dayRange('2026-03-01', '2026-03-01')).toEqual({
      from: new Date(2026, 2, 1).toISOString(),
      to: new Date(2026, 2, 2).toISOString(),
    });
    expect(dayRange('nonsense', '2026-12-31')).toEqual({ to: new Date(2027, 0, 1).toISOString() });
  });

  it('says how far the index of older events is, and nothing once it is done', () => {
    expect(indexProgress(null)).toBe('');
    expect(indexProgress({ indexed: 10, total: 10 })).toBe('');
    expect(indexProgress({ indexed: 0, total: 0 })).toBe('');
    expect(indexProgress({ indexed: 250, total: 1000 })).toContain('250 of 1,000 events (25%)');
  });
});
