// A long timeline made of one recorded run said again and again, to see
// that the UI stays fast with hundreds of runs. Each copy is the recorded
// run with its seqs, run number and the seqs it points to moved along; it
// is a load for the renderer, not a log the engine would write (a copy's
// requests do not carry the earlier copies in their history).
import { parseEvent, type TraceEvent } from '../types';
import type { Recording } from './recording';

/** The events of the recording's run `run`, in order. */
export function runOf(rec: Recording, run: number): TraceEvent[] {
  const out: TraceEvent[] = [];
  for (const s of rec.steps) {
    const e = s.event === undefined ? null : parseEvent(s.event);
    if (e && e.run === run) out.push(e);
  }
  return out;
}

/** `times` copies of one run, for session `sessionId`, numbered on from seq 1 and run 1. */
export function repeatRun(events: readonly TraceEvent[], times: number, sessionId: string): TraceEvent[] {
  if (events.length === 0) return [];
  const first = events[0]!.seq;
  const span = events.at(-1)!.seq - first + 1;
  const start = Date.parse(events[0]!.time);
  const out: TraceEvent[] = [];
  for (let i = 0; i < times; i++) {
    const shift = (s: number) => s - first + 1 + i * span;
    for (const e of events) {
      const copy = structuredClone(e);
      copy.session_id = sessionId;
      copy.seq = shift(e.seq);
      copy.run = i + 1;
      // A minute between copies, the recorded times within one.
      copy.time = new Date(Date.parse(e.time) - start + i * 60_000 + Date.UTC(2026, 0, 5, 8)).toISOString();
      if (copy.kind === 'model_request') copy.payload.history_seqs = (copy.payload.history_seqs ?? []).map(shift);
      if (copy.kind === 'model_response') copy.payload.request_seq = shift(copy.payload.request_seq);
      if (copy.kind === 'edit' && copy.payload.seq !== undefined) copy.payload.seq = shift(copy.payload.seq);
      if (copy.kind === 'restore') {
        copy.payload.to_seq = shift(copy.payload.to_seq);
        if (copy.payload.run !== undefined) copy.payload.run = i + 1;
      }
      out.push(copy);
    }
  }
  return out;
}
