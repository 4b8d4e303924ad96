// The timeline's event model. The payloads and the envelope are the Go
// types (go.ts, generated from backend/trace); this file adds the union on
// kind and the checks of what arrives.
import type { Cut, EventEnvelope, Kind, PayloadMap } from './go';
import { POINTS, type CheckpointPoint } from './go';
import { isRecord } from './json';

/** Every kind, in the order of trace's constants. */
export const KINDS = [
  'user_message',
  'model_request',
  'model_response',
  'tool_call',
  'permission',
  'tool_result',
  'notice',
  'error',
  'run_end',
  'checkpoint',
  'edit',
  'restore',
  'compaction',
  'hook_run',
] as const satisfies readonly Kind[];
// A kind Go declares that the list above misses fails to compile here.
const everyKind: Record<Exclude<Kind, (typeof KINDS)[number]>, never> = {};
void everyKind;

/** Checkpoints of the loop where a step-through run can pause (trace.Point*), in the loop's order. */
export const CHECKPOINTS: readonly CheckpointPoint[] = Object.values(POINTS);

export function isCheckpointPoint(v: unknown): v is CheckpointPoint {
  return typeof v === 'string' && (CHECKPOINTS as readonly string[]).includes(v);
}

/** 'ask' records a question put to the user; the answer follows as allow or deny (trace.Allow, Deny, Ask). */
export type Decision = 'allow' | 'deny' | 'ask';

type EventBase = Omit<EventEnvelope, 'kind' | 'payload'>;

export type EventOf<K extends Kind> = EventBase & { kind: K; payload: PayloadMap[K] };

/** trace.Event as a discriminated union on kind. */
export type TraceEvent = { [K in Kind]: EventOf<K> }[Kind];

export type UserMessageEvent = EventOf<'user_message'>;
export type ModelRequestEvent = EventOf<'model_request'>;
export type ModelResponseEvent = EventOf<'model_response'>;
export type ToolCallEvent = EventOf<'tool_call'>;
export type PermissionEvent = EventOf<'permission'>;
export type ToolResultEvent = EventOf<'tool_result'>;
export type NoticeEvent = EventOf<'notice'>;
export type ErrorEvent = EventOf<'error'>;
export type RunEndEvent = EventOf<'run_end'>;
export type CheckpointEvent = EventOf<'checkpoint'>;
export type EditEvent = EventOf<'edit'>;
export type RestoreEvent = EventOf<'restore'>;
export type CompactionEvent = EventOf<'compaction'>;
export type HookRunEvent = EventOf<'hook_run'>;

export function isKnownKind(k: unknown): k is Kind {
  return typeof k === 'string' && (KINDS as readonly string[]).includes(k);
}

export function isKind<K extends Kind>(e: TraceEvent, kind: K): e is Extract<TraceEvent, { kind: K }> {
  return e.kind === kind;
}

export const isUserMessage = (e: TraceEvent): e is UserMessageEvent => e.kind === 'user_message';
export const isModelRequest = (e: TraceEvent): e is ModelRequestEvent => e.kind === 'model_request';
export const isModelResponse = (e: TraceEvent): e is ModelResponseEvent => e.kind === 'model_response';
export const isToolCall = (e: TraceEvent): e is ToolCallEvent => e.kind === 'tool_call';
export const isPermission = (e: TraceEvent): e is PermissionEvent => e.kind === 'permission';
export const isToolResult = (e: TraceEvent): e is ToolResultEvent => e.kind === 'tool_result';
export const isNotice = (e: TraceEvent): e is NoticeEvent => e.kind === 'notice';
export const isError = (e: TraceEvent): e is ErrorEvent => e.kind === 'error';
export const isRunEnd = (e: TraceEvent): e is RunEndEvent => e.kind === 'run_end';
export const isCheckpoint = (e: TraceEvent): e is CheckpointEvent => e.kind === 'checkpoint';
export const isEdit = (e: TraceEvent): e is EditEvent => e.kind === 'edit';
export const isRestore = (e: TraceEvent): e is RestoreEvent => e.kind === 'restore';
export const isCompaction = (e: TraceEvent): e is CompactionEvent => e.kind === 'compaction';
export const isHookRun = (e: TraceEvent): e is HookRunEvent => e.kind === 'hook_run';

/**
 * Checks the envelope of an event received from the backend. An event of a
 * kind this version does not know (a newer backend) becomes a notice that
 * says so, so that it still shows in the timeline instead of vanishing.
 * Returns null for something that is not an event at all.
 */
export function parseEvent(v: unknown): TraceEvent | null {
  if (!isRecord(v)) return null;
  const { session_id, seq, kind, time, run, round, payload, preview, agent } = v;
  if (typeof session_id !== 'string' || typeof seq !== 'number' || typeof kind !== 'string') return null;
  const base: EventBase = {
    session_id,
    seq,
    time: typeof time === 'string' ? time : '',
    run: typeof run === 'number' ? run : 0,
    round: typeof round === 'number' ? round : 0,
  };
  if (isRecord(preview)) base.preview = preview as Record<string, Cut>;
  if (typeof agent === 'string' && agent !== '') base.agent = agent;
  if (!isKnownKind(kind)) {
    return {
      ...base,
      kind: 'notice',
      payload: { code: 'unknown_kind', message: `This version of Loupe cannot show an event of kind "${kind}".` },
    };
  }
  if (!isRecord(payload)) return null;
  // The payload's fields are trusted to match the kind: the backend encodes
  // them from the Go payload types go.ts is generated from.
  return { ...base, kind, payload } as unknown as TraceEvent;
}

/**
 * The event whole: its payload replaced by the stored one (eventPayload's
 * JSON text) and its preview marks dropped. Throws when the text is not a
 * payload.
 */
export function wholeEvent<E extends TraceEvent>(e: E, payloadJson: string): E {
  const payload: unknown = JSON.parse(payloadJson);
  if (!isRecord(payload)) throw new Error(`The payload of event ${e.seq} is not an object.`);
  const { preview: _cut, ...rest } = e;
  return { ...rest, payload } as unknown as E;
}
