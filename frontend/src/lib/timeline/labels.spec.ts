import { describe, expect, it } from 'vitest';
import { countOf, errorBadge, ERROR_KIND_TEXT } from '.';

describe('countOf', () => {
  it('is singular for exactly one and plural for every other count', () => {
    expect(countOf(1, 'card')).toBe('1 card');
    for (const n of [0, 2, 3, 11, 1000]) expect(countOf(n, 'card')).toBe(`${n.toLocaleString('en-US')} cards`);
    expect(countOf(1452, 'token')).toBe('1,452 tokens');
    expect(countOf(1, 'match', 'matches')).toBe('1 match');
    expect(countOf(2, 'match', 'matches')).toBe('2 matches');
  });
});

describe('errorBadge', () => {
  // trace.ErrorKind's values (backend/trace/event.go), an unknown one, none, and "error".
  const goKinds = ['unknown_tool', 'invalid_args', 'failed', 'denied', 'cancelled', 'interrupted', 'skipped', 'stopped'];
  it('names every kind the backend records in words', () => {
    for (const k of goKinds) {
      expect(ERROR_KIND_TEXT[k], k).toBeTruthy();
      expect(errorBadge(k)).toBe(`Error: ${ERROR_KIND_TEXT[k]}`);
    }
    expect(errorBadge('rate_limited')).toBe('Error: rate limited');
  });
  it('never repeats the word: no kind, or the kind "error", is just Error', () => {
    for (const k of [undefined, null, '', ' ', 'error', 'Error']) expect(errorBadge(k)).toBe('Error');
    for (const k of [...goKinds, 'error', '', 'x']) expect(errorBadge(k)).not.toMatch(/error:\s*error/i);
  });
});
