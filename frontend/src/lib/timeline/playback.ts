// Playback of a stored session: a position 1..N over its recorded events.
// Position p shows the first p events, as if the session had just reached
// the p-th. Nothing here calls the model or runs a tool: it only slices
// the log.
import type { ModelRequestEvent, TraceEvent } from '../types';
import type { Timeline } from './group';

/** Keeps a position inside 1..total (0 when there is nothing to play). */
export function clampPosition(pos: number, total: number): number {
  if (total <= 0) return 0;
  if (!Number.isFinite(pos)) return total;
  return Math.min(total, Math.max(1, Math.round(pos)));
}

/** The position moved by delta events, stopping at either end. */
export function movePosition(pos: number, total: number, delta: number): number {
  return clampPosition(pos + delta, total);
}

/** The events shown at a position. Returns the list itself at the end, so callers can skip work. */
export function eventsAt<T extends TraceEvent>(events: readonly T[], pos: number): readonly T[] {
  const p = clampPosition(pos, events.length);
  return p >= events.length ? events : events.slice(0, p);
}

/** The event the position is on (the last one shown). */
export function eventAt(events: readonly TraceEvent[], pos: number): TraceEvent | undefined {
  const p = clampPosition(pos, events.length);
  return p > 0 ? events[p - 1] : undefined;
}

/** The position that ends with the event of this seq, or with the last event before it. */
export function positionOfSeq(events: readonly TraceEvent[], seq: number): number {
  let p = 0;
  for (let i = 0; i < events.length; i++) {
    if (events[i]!.seq <= seq) p = i + 1;
    else break;
  }
  return clampPosition(p, events.length);
}

/**
 * The next (dir 1) or previous (dir -1) position whose event matches, e.g.
 * the next model request. Stays put when there is none.
 */
export function findPosition(
  events: readonly TraceEvent[],
  pos: number,
  dir: 1 | -1,
  match: (e: TraceEvent) => boolean,
): number {
  const p = clampPosition(pos, events.length);
  for (let i = p - 1 + dir; i >= 0 && i < events.length; i += dir) {
    if (match(events[i]!)) return i + 1;
  }
  return p;
}

/** The latest model request shown at a position: what "What the model saw" follows. */
export function requestAt(events: readonly TraceEvent[], pos: number): ModelRequestEvent | undefined {
  const p = clampPosition(pos, events.length);
  for (let i = p - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.kind === 'model_request') return e;
  }
  return undefined;
}

/**
 * The model request before this one in the log (the one to diff against).
 * A summarising request (a compaction's) is not one the conversation's
 * model read: a request of the conversation compares with the previous
 * request of the conversation, or the summarising instructions would show
 * as its system prompt "changed" and everything it resends as new.
 */
export function previousRequest(events: readonly TraceEvent[], seq: number): ModelRequestEvent | undefined {
  let prev: ModelRequestEvent | undefined;
  let prevOfConversation: ModelRequestEvent | undefined;
  for (const e of events) {
    if (e.seq > seq) break;
    if (e.kind !== 'model_request') continue;
    if (e.seq === seq) return e.payload.purpose === 'compaction' ? prev : prevOfConversation;
    prev = e;
    if (e.payload.purpose !== 'compaction') prevOfConversation = e;
  }
  return prev;
}

/**
 * The id of the timeline card that shows an event, so the view can bring
 * the position's card into sight. Permission events belong to their call's
 * card, results to the observation card, a resumed checkpoint to the card
 * of its pause.
 */
export function cardIdForEvent(t: Timeline, e: TraceEvent): string | null {
  switch (e.kind) {
    case 'tool_call':
    case 'permission':
      return t.calls.get(e.payload.call_id)?.key ?? null;
    case 'tool_result': {
      const c = t.calls.get(e.payload.call_id);
      return c ? `obs:${c.key}` : null;
    }
    case 'checkpoint':
      return t.checkpointCards.get(e.seq) ?? `e:${e.seq}`;
    default:
      return `e:${e.seq}`;
  }
}

/** What an event is, in a few words, for the playback bar. */
export function eventLabel(e: TraceEvent): string {
  switch (e.kind) {
    case 'user_message':
      return `Your message (run ${e.run})`;
    case 'model_request':
      return e.payload.purpose === 'compaction' ? 'Request for a summary (compaction)' : `Request to the model (round ${e.round})`;
    case 'model_response': {
      const n = e.payload.incomplete ? 0 : (e.payload.tool_calls ?? []).length;
      return n ? `Model asks for ${n === 1 ? 'a tool call' : `${n} tool calls`}` : 'Model answers';
    }
    case 'tool_call':
      return `Tool call ${e.payload.name}${e.payload.valid ? '' : ' (invalid)'}`;
    case 'permission':
      return `${e.payload.decision === 'allow' ? 'Allowed' : e.payload.decision === 'ask' ? 'Asked you about' : 'Denied'}: ${e.payload.tool}`;
    case 'tool_result':
      return `Result of ${e.payload.name}`;
    case 'checkpoint':
      return `${e.payload.state === 'paused' ? 'Paused' : 'Resumed'} at ${e.payload.point}`;
    case 'edit':
      return `You edited the ${e.payload.target}`;
    case 'notice':
      return `Notice: ${e.payload.code}`;
    case 'hook_run':
      return `Hook ${e.payload.hook} (${e.payload.event}): ${e.payload.outcome}`;
    case 'error':
      return `Error: ${e.payload.code}`;
    case 'run_end':
      return `Run ended: ${e.payload.reason}`;
    case 'restore': {
      const n = (e.payload.restored ?? []).length;
      return `Files restored (${n === 1 ? '1 file' : `${n} files`})`;
    }
    case 'compaction':
      return `History compacted (${e.payload.messages} messages summarised)`;
  }
}
