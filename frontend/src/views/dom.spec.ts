import { describe, expect, it } from 'vitest';
import { inView } from './dom';

describe('inView', () => {
  const view = { top: 100, bottom: 500 };
  it('holds for a box wholly inside the view, give or take a pixel of rounding', () => {
    expect(inView({ top: 100, bottom: 500 }, view)).toBe(true);
    expect(inView({ top: 99.5, bottom: 300 }, view)).toBe(true);
    expect(inView({ top: 200, bottom: 500.6 }, view)).toBe(true);
  });
  it('fails for a box cut by either edge: the card just off screen', () => {
    expect(inView({ top: 80, bottom: 200 }, view)).toBe(false);
    expect(inView({ top: 450, bottom: 560 }, view)).toBe(false);
    expect(inView({ top: 510, bottom: 600 }, view)).toBe(false);
  });
  it('holds for a box taller than the view only when its top is at the view top', () => {
    expect(inView({ top: 100, bottom: 900 }, view)).toBe(true);
    expect(inView({ top: 60, bottom: 900 }, view)).toBe(false);
    expect(inView({ top: 140, bottom: 900 }, view)).toBe(false);
    // Its scroll-margin below the top is its top at the top.
    expect(inView({ top: 116, bottom: 900 }, view, 16)).toBe(true);
    expect(inView({ top: 140, bottom: 900 }, view, 16)).toBe(false);
  });
});
