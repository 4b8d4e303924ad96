// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from 'vitest';
import { Tour, TOUR_SEEN_KEY, TOUR_STOPS } from './tour.svelte';

beforeEach(() => localStorage.clear());

describe('Tour', () => {
  it('has the five stops of the session view, in order', () => {
    expect(TOUR_STOPS.map((s) => s.id)).toEqual(['loop', 'step', 'saw', 'raw', 'playback']);
    expect(TOUR_STOPS.map((s) => s.target)).toEqual(['loop-diagram', 'step-controls', 'model-saw-button', 'raw-toggle', 'playback-toggle']);
  });

  it('offers itself until it was seen, then only when asked', () => {
    const t = new Tour();
    t.offer();
    expect(t.open).toBe(true);
    t.close();
    expect(localStorage.getItem(TOUR_SEEN_KEY)).toBe('1');
    t.offer();
    expect(t.open).toBe(false);
    t.start();
    expect([t.open, t.at]).toEqual([true, 0]);
  });

  it('goes forward and back within its stops and ends after the last', () => {
    const t = new Tour();
    t.start();
    t.back();
    expect(t.at).toBe(0);
    for (let i = 1; i < TOUR_STOPS.length; i++) {
      t.next();
      expect(t.at).toBe(i);
    }
    expect(t.last).toBe(true);
    t.back();
    expect(t.stop.id).toBe('raw');
    t.next();
    t.next();
    expect(t.open).toBe(false);
    expect(t.seen).toBe(true);
    // Closed, its keys do nothing.
    t.next();
    expect(t.open).toBe(false);
  });
});
