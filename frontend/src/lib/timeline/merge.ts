import type { TraceEvent } from '../types';

/**
 * Merges newly received events into a session's log, in seq order, without
 * duplicates. The snapshot from OpenSession and live events can overlap and
 * arrive in either order. Returns `existing` itself when nothing is new, so
 * callers can skip work.
 */
export function mergeEvents(existing: readonly TraceEvent[], incoming: readonly TraceEvent[]): TraceEvent[] {
  if (incoming.length === 0) return existing as TraceEvent[];
  const last = existing.length ? existing[existing.length - 1]!.seq : -Infinity;
  // Fast path: live events normally arrive in order after what we have.
  let inOrder = true;
  let prev = last;
  for (const e of incoming) {
    if (e.seq <= prev) {
      inOrder = false;
      break;
    }
    prev = e.seq;
  }
  if (inOrder) return [...existing, ...incoming];

  const bySeq = new Map<number, TraceEvent>();
  for (const e of existing) bySeq.set(e.seq, e);
  let added = false;
  for (const e of incoming) {
    if (!bySeq.has(e.seq)) {
      bySeq.set(e.seq, e);
      added = true;
    }
  }
  if (!added) return existing as TraceEvent[];
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}
