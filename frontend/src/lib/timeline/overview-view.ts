// The overview's view window: which rounds are shown (zoom, pan, reveal).
/** The rounds shown: `count` rounds from index `first`. */
export interface View {
  first: number;
  count: number;
}

/** The view kept within 0..total: at least one round, at most all. */
export function clampView(v: View, total: number): View {
  if (total <= 0) return { first: 0, count: 0 };
  const count = Math.min(total, Math.max(1, Math.round(Number.isFinite(v.count) ? v.count : total)));
  const first = Math.min(total - count, Math.max(0, Math.round(Number.isFinite(v.first) ? v.first : 0)));
  return { first, count };
}

export const wholeView = (total: number): View => clampView({ first: 0, count: total }, total);

/**
 * Zooms in (factor > 1) or out (< 1) around a round: the round at `anchor`
 * stays where it was in the window, as far as the ends allow.
 */
export function zoomView(v: View, total: number, factor: number, anchor?: number): View {
  const cur = clampView(v, total);
  if (cur.count === 0 || !(factor > 0)) return cur;
  const at = Math.min(cur.first + cur.count - 1, Math.max(cur.first, anchor ?? cur.first + (cur.count - 1) / 2));
  const frac = cur.count > 1 ? (at - cur.first) / (cur.count - 1) : 0.5;
  let count = Math.round(cur.count / factor);
  // A zoom always moves by at least one round, unless it is at its end.
  if (factor > 1 && count >= cur.count) count = cur.count - 1;
  if (factor < 1 && count <= cur.count) count = cur.count + 1;
  count = Math.min(total, Math.max(1, count));
  return clampView({ first: Math.round(at - frac * (count - 1)), count }, total);
}

/** Moves the window by `delta` rounds (negative: earlier). */
export function panView(v: View, total: number, delta: number): View {
  const cur = clampView(v, total);
  return clampView({ first: cur.first + delta, count: cur.count }, total);
}

/** The window moved as little as it takes to show round `index`. */
export function revealView(v: View, total: number, index: number): View {
  const cur = clampView(v, total);
  if (index < cur.first) return clampView({ first: index, count: cur.count }, total);
  if (index >= cur.first + cur.count) return clampView({ first: index - cur.count + 1, count: cur.count }, total);
  return cur;
}
