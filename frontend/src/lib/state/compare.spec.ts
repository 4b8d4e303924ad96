// @vitest-environment jsdom
// The compare view's state: the pick in the list, which two it asks Go to
// compare and in which order, an answer that comes late never replacing a
// newer one, and reading again when either session's events arrive. The
// figures themselves are Go's (backend/trace/compare_test.go,
// backend/session/compare_test.go, e2e/compare.test.mjs): the bridge here
// only says which pair it was asked for.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Bridge } from '../bridge/types';
import { comparisonOf, type StoredSession, type TraceEvent } from '../types';
import type { Comparison as WireComparison } from '../types/go';
import { CompareState } from './compare.svelte';
import { Router } from './routing.svelte';

/** Go's comparison of two sessions with no rounds yet. */
function comparison(ids: string[], diverge: number): WireComparison {
  const side = { rounds: null, totals: { runs: 0, rounds: 0, calls: 0, prompt_tokens: 0, output_tokens: 0, model_ms: 0, tool_ms: 0, wall_ms: 0, denials: 0, errors: 0, end: '' }, open: false };
  return { sessions: ids.map((id) => ({ id }) as StoredSession), a: side, b: side, rows: null, diverge };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

function setup() {
  const asked: [string, string][] = [];
  const answers: ((v: WireComparison) => void)[] = [];
  const fails: ((e: Error) => void)[] = [];
  const bridge = {
    compareSessions: (a: string, b: string) => {
      asked.push([a, b]);
      return new Promise((res, rej) => {
        answers.push((v) => res(comparisonOf(v)));
        fails.push(rej);
      });
    },
  } as unknown as Bridge;
  const router = new Router(bridge, {} as never, {} as never);
  return { asked, answers, fails, router, cmp: new CompareState(bridge, router) };
}

const ev = (session_id: string) => ({ session_id, seq: 1, kind: 'notice', run: 1, round: 1, time: '', payload: {} }) as unknown as TraceEvent;

describe('CompareState', () => {
  afterEach(() => vi.useRealTimers());

  it('Compare with… then another row compares the two, the first as A; the same row again gives up', async () => {
    const { asked, router, cmp } = setup();
    expect(cmp.pick('b')).toBe(false); // nothing picked: the row just opens
    cmp.start('a');
    expect(cmp.picking).toBe('a');
    expect(cmp.pick('a')).toBe(true);
    expect(cmp.picking).toBeNull();
    expect(asked).toEqual([]);
    cmp.start('a');
    expect(cmp.pick('b')).toBe(true);
    await settle();
    expect(asked).toEqual([['a', 'b']]);
    expect(router.view).toBe('compare');
    expect(cmp.picking).toBeNull();
  });

  it('an older answer never replaces a newer one; a refusal is shown in its words', async () => {
    const { asked, answers, fails, cmp } = setup();
    void cmp.open('a', 'b');
    void cmp.swap();
    expect(asked).toEqual([['a', 'b'], ['b', 'a']]);
    answers[1]!(comparison(['b', 'a'], 2));
    answers[0]!(comparison(['a', 'b'], 0));
    await settle();
    expect(cmp.result?.sessions.map((s) => s.id)).toEqual(['b', 'a']);
    expect(cmp.result?.diverge).toBe(2);
    expect(cmp.loading).toBe(false);
    void cmp.load();
    fails[2]!(new Error('choose two different sessions to compare'));
    await settle();
    expect(cmp.error).toBe('choose two different sessions to compare');
  });

  it("reads again once either session's events settle, and not for another session's", async () => {
    vi.useFakeTimers();
    const { asked, answers, cmp } = setup();
    void cmp.open('a', 'b');
    answers[0]!(comparison(['a', 'b'], -1));
    await vi.runAllTimersAsync();
    cmp.after([ev('c')]);
    await vi.runAllTimersAsync();
    expect(asked.length).toBe(1);
    cmp.after([ev('b')]);
    cmp.after([ev('a')]);
    await vi.runAllTimersAsync();
    expect(asked).toEqual([['a', 'b'], ['a', 'b']]);
  });
});
