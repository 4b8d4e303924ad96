// What a shared replay's page reads: the session's JSON export, checked,
// and each request's body put back together from the shared pieces
// (session.RawBodies in Go), in any order it is asked for.
import { describe, expect, it } from 'vitest';
import { Bodies, parseShared, type RawBodies } from './data';

// Three requests: the second repeats the first's pieces 0..2 and adds its
// own, the third could not be rebuilt, the fourth keeps the second's first four.
const raw: RawBodies = {
  pieces: ['{"messages":[', '{"u":1}', ']}', ',', '{"a":2}', '{"u":3}'],
  bodies: [
    { seq: 2, keep: 0, add: [0, 1, 2] },
    { seq: 5, keep: 2, add: [3, 4, 2] },
    { seq: 7, keep: 0, add: [], error: 'no tool set 3' },
    { seq: 9, keep: 4, add: [3, 5, 2] },
  ],
};

describe('shared replay data', () => {
  it('puts each body back together, forwards and backwards', () => {
    const b = new Bodies(raw);
    const want = { 2: '{"messages":[{"u":1}]}', 5: '{"messages":[{"u":1},{"a":2}]}', 9: '{"messages":[{"u":1},{"a":2},{"u":3}]}' };
    for (const seq of [2, 5, 9, 5, 2, 9]) expect(b.body(seq)).toBe(want[seq as 2 | 5 | 9]);
    expect(() => b.body(7)).toThrow('no tool set 3');
    expect(() => b.body(3)).toThrow('not a request');
  });

  it('refuses a file that holds no Loupe session, or no bodies', () => {
    expect(() => parseShared('{"format":"other"}', '{}')).toThrow('no Loupe session');
    expect(() => parseShared('{"format":"loupe-session","session":{},"events":[]}', '{}')).toThrow('bodies');
    const ok = parseShared('{"format":"loupe-session","session":{"id":"s"},"events":[]}', JSON.stringify(raw));
    expect(ok.summary.id).toBe('s');
    expect(ok.raw.bodies).toHaveLength(4);
  });
});
