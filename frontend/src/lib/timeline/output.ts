// The output of running calls, from their deltas, per (session, call),
// until the committed tool_result replaces it. Live display only: the
// result is the record.
import type { Delta, OutputPiece, TraceEvent } from '../types';

/** Which stream of a running command a piece of its output came from: stdout or stderr (tools.OutputPiece). */
export type OutputStream = OutputPiece['stream'];

/** A run of output from one stream. */
export interface OutputSegment {
  stream: OutputStream;
  text: string;
}

export interface CallOutput {
  run: number;
  /** In the order it was written; consecutive pieces of one stream are joined. */
  segments: readonly OutputSegment[];
  /** Characters kept, at most OUTPUT_KEEP. */
  chars: number;
  /** Bytes written past what the backend streams (its running count). */
  omitted: number;
  /** Bytes that came past OUTPUT_KEEP, which this window did not keep. */
  dropped: number;
}

export type OutputMap = ReadonlyMap<string, CallOutput>;

/**
 * The most characters kept per call. The backend streams as much as the
 * model will get (32 KiB) and counts the rest; this only bounds what a
 * window holds if that ever changes.
 */
export const OUTPUT_KEEP = 64 * 1024;

const encoder = new TextEncoder();

/**
 * A running call's key: its session, its loop (the agent of its events, ""
 * for the session's own) and its id. Two loops' models may both name a
 * call call_1 (a task call and its sub-agent's first call do): by id
 * alone, the sub-agent's output would show on its parent's card.
 */
export function outputKey(sessionId: string, callId: string, agent = ''): string {
  return `${sessionId}\u0000${agent}\u0000${callId}`;
}

/** Appends the output deltas to their calls' output. Returns the same map when none is one. */
export function applyOutput(map: OutputMap, deltas: readonly Delta[]): OutputMap {
  let next: Map<string, CallOutput> | null = null;
  for (const d of deltas) {
    if (!d.call_id) continue;
    next ??= new Map(map);
    const k = outputKey(d.session_id, d.call_id, d.agent);
    const cur = next.get(k) ?? { run: d.run, segments: [], chars: 0, omitted: 0, dropped: 0 };
    const segments = [...cur.segments];
    let chars = cur.chars;
    let dropped = cur.dropped;
    for (const p of d.output ?? []) {
      const room = OUTPUT_KEEP - chars;
      const text = p.text.length > room ? p.text.slice(0, Math.max(room, 0)) : p.text;
      if (text.length < p.text.length) dropped += encoder.encode(p.text.slice(text.length)).length;
      if (!text) continue;
      chars += text.length;
      const last = segments[segments.length - 1];
      if (last && last.stream === p.stream) segments[segments.length - 1] = { stream: p.stream, text: last.text + text };
      else segments.push({ stream: p.stream, text });
    }
    next.set(k, { run: d.run, segments, chars, omitted: Math.max(cur.omitted, d.omitted ?? 0), dropped });
  }
  return next ?? map;
}

/** Bytes of the call's output that are not shown. */
export function hiddenBytes(o: CallOutput): number {
  return o.omitted + o.dropped;
}

/**
 * Drops output that committed events made obsolete: a call whose
 * tool_result arrived, and every call of a run that ended. Returns the
 * same map when nothing changed.
 */
export function settleOutput(map: OutputMap, events: readonly TraceEvent[]): OutputMap {
  if (map.size === 0) return map;
  let next: Map<string, CallOutput> | null = null;
  for (const e of events) {
    if (e.kind === 'tool_result') {
      const k = outputKey(e.session_id, e.payload.call_id, e.agent);
      if ((next ?? map).has(k)) {
        next ??= new Map(map);
        next.delete(k);
      }
    } else if (e.kind === 'run_end') {
      const prefix = `${e.session_id}\u0000${e.agent ?? ''}\u0000`;
      for (const [k, o] of next ?? map) {
        if (k.startsWith(prefix) && o.run === e.run) {
          next ??= new Map(map);
          next.delete(k);
        }
      }
    }
  }
  return next ?? map;
}

/** "… 1,234 bytes more" for output left out, or "" when none was. */
export function omittedText(omitted: number): string {
  if (omitted <= 0) return '';
  return `\u2026 ${omitted.toLocaleString('en-US')} ${omitted === 1 ? 'byte' : 'bytes'} more`;
}

/** Seconds since start, as "12.3 s" (one decimal), "0.0 s" before it. */
export function elapsedText(startMs: number, nowMs: number): string {
  const s = Math.max(0, nowMs - startMs) / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.floor(s - m * 60)} s`;
}
