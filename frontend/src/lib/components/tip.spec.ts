import { describe, expect, it } from 'vitest';
import { EDGE, placeTip, pointBox } from './tip';

const view = { width: 1000, height: 700 };
const tip = { width: 260, height: 90 };
const inside = (p: { left: number; top: number }, t = tip, v = view) =>
  p.left >= EDGE && p.top >= EDGE && p.left + t.width <= v.width - EDGE && p.top + t.height <= v.height - EDGE;

describe('placeTip', () => {
  it('puts the tooltip below the anchor, aligned with it, when there is room', () => {
    expect(placeTip({ left: 100, top: 100, right: 110, bottom: 120 }, tip, view)).toEqual({ left: 100, top: 126 });
  });

  it('keeps it whole inside the window wherever the anchor is', () => {
    // Every anchor on a grid over the window, to its very edges and corners.
    for (let x = 0; x <= view.width; x += 25) {
      for (let y = 0; y <= view.height; y += 25) {
        const p = placeTip(pointBox(x, y), tip, view, 12);
        expect(inside(p), `anchor ${x},${y} → ${p.left},${p.top}`).toBe(true);
      }
    }
  });

  it('moves left at the right edge and above at the bottom edge, not over the anchor', () => {
    const a = { left: 950, top: 650, right: 960, bottom: 660 };
    const p = placeTip(a, tip, view);
    expect(p.left).toBe(view.width - EDGE - tip.width);
    expect(p.top + tip.height).toBeLessThanOrEqual(a.top);
  });

  it('shows the beginning of a tooltip taller or wider than the window', () => {
    expect(placeTip(pointBox(500, 300), { width: 2000, height: 2000 }, view)).toEqual({ left: EDGE, top: EDGE });
  });
});
