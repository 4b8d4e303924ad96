// Text streaming in from token deltas, per (session, loop, run, round), until
// the committed model_response replaces it. A sub-agent's nested run shares
// its parent's run number and counts rounds of its own: its loop (the
// delta's and the event's agent, "" for the session's own) is part of the
// key, or its text would stream into its parent's round of that number.
import type { Delta, TraceEvent } from '../types';

export interface LiveText {
  content: string;
  thinking: string;
}

export type LiveMap = ReadonlyMap<string, LiveText>;

export function liveKey(sessionId: string, run: number, round: number, agent = ''): string {
  return `${sessionId}\u0000${agent}\u0000${run}\u0000${round}`;
}

/** Appends deltas to the live text of their rounds. Returns a new map. */
export function applyDeltas(map: LiveMap, deltas: readonly Delta[]): Map<string, LiveText> {
  const next = new Map(map);
  for (const d of deltas) {
    // A call's output is kept apart (output.ts).
    if (d.call_id) continue;
    const k = liveKey(d.session_id, d.run, d.round, d.agent);
    const cur = next.get(k) ?? { content: '', thinking: '' };
    next.set(k, { content: cur.content + (d.content ?? ''), thinking: cur.thinking + (d.thinking ?? '') });
  }
  return next;
}

/**
 * Drops live text that committed events made obsolete: a round whose
 * model_response arrived, and every round of a run that ended. Returns the
 * same map when nothing changed.
 */
export function settleLive(map: LiveMap, events: readonly TraceEvent[]): LiveMap {
  if (map.size === 0) return map;
  let next: Map<string, LiveText> | null = null;
  for (const e of events) {
    if (e.kind === 'model_response') {
      const k = liveKey(e.session_id, e.run, e.round, e.agent);
      if (map.has(k)) {
        next ??= new Map(map);
        next.delete(k);
      }
    } else if (e.kind === 'run_end') {
      const prefix = `${e.session_id}\u0000${e.agent ?? ''}\u0000${e.run}\u0000`;
      for (const k of map.keys()) {
        if (k.startsWith(prefix)) {
          next ??= new Map(map);
          next.delete(k);
        }
      }
    }
  }
  return next ?? map;
}
