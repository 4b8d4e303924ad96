// Mirrors of backend/trace/event.go: the timeline's event model. Every
// payload field name is the Go json tag. Go nil slices arrive as null and
// omitempty fields may be missing, which the optional / nullable types say.
import { isRecord, type JsonValue } from './json';
import type { LlmToolCall, Metrics, Options, ToolSpec } from './llm';

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
] as const;

export type Kind = (typeof KINDS)[number];

export interface UserMessagePayload {
  text: string;
}

/**
 * A request, recorded so that its body can be rebuilt (the Raw view asks
 * the backend for it). Nothing in it grows with the session: the tools are
 * a tool set stored once per session and named by tool_set (their schemas
 * are in the rebuilt body), and the history is the previous request's
 * (history_base) plus the events in history_added.
 */
/** trace.Instructions: system.slice(start, start + len), counted in UTF-8 bytes, holds the file. */
export interface Instructions {
  source: string;
  start: number;
  len: number;
  /** The file's size in bytes. */
  bytes: number;
  /** Only its start was added. */
  cut?: boolean;
}

export interface ModelRequestPayload {
  model: string;
  options: Options;
  think?: boolean | null;
  /** false: Ollama refuses a prompt over num_ctx instead of cutting it (absent in older logs). */
  truncate?: boolean | null;
  system: string;
  /** "compaction": the request that asks the model to summarise the older history (its answer is a summary, not a message). */
  purpose?: string;
  /** For a compaction request: the last history event it asks to summarise. */
  compact?: number;
  /** Where the workspace's AGENTS.md sits in system, when it was added. */
  instructions?: Instructions | null;
  /** The Ollama server it was sent to (base URL), and its Settings name ("" or absent: the local host). Absent in older logs. */
  host?: string;
  host_name?: string;
  /** The session's tool set sent with it; absent when no tools were offered. */
  tool_set?: number;
  tool_names?: string[] | null;
  /** The seq of the previous model_request, whose history this one extends. */
  history_base?: number;
  /** The history events added since history_base. */
  history_added?: number[] | null;
  /** Logs written before tool sets and history deltas: every tool and every history seq. */
  tools?: ToolSpec[] | null;
  history_seqs?: number[] | null;
  /** Includes the system message. */
  message_count: number;
  /**
   * Loupe's own token estimate: split's sum (at the session's own bytes per
   * token once Ollama has counted a prompt of it), else about 4 bytes a token.
   */
  prompt_estimate: number;
  /** That estimate by part (absent in logs written before the context meter). */
  split?: PromptSplit | null;
}

/** A prompt by part, in tokens (trace.Parts). */
export interface PromptParts {
  system: number;
  tools: number;
  /** The conversation up to the previous request, the model's answers included. */
  history: number;
  /** The tool results and user message added since the previous request. */
  new: number;
}

/** trace.Split: Loupe's estimate of a request's prompt by part, from the size of each part as sent. */
export interface PromptSplit extends PromptParts {
  /** The size of the whole prompt as sent (messages and tool schemas as JSON). */
  bytes: number;
  /** The rate of the estimate: 4 until the session has a count of Ollama's, then the latest full count's. */
  bytes_per_token: number;
  /** The model_response whose count set the rate (absent: the default). */
  calibrated_by?: number;
}

/** Where a meter's prompt comes from (trace.Source*). */
export type MeterSource = 'ollama' | 'cache' | 'estimate';

/** trace.Meter: how much of the context a request's prompt took, by part. */
export interface ContextMeter {
  /** Tokens of the prompt in the context: Ollama's count ('ollama'); the previous prompt and answer plus a count of only the uncached tokens ('cache'); Loupe's estimate ('estimate'). */
  prompt: number;
  source: MeterSource;
  /** Ollama's prompt_eval_count as reported. */
  counted?: number;
  /** The answer's tokens (eval_count). */
  output?: number;
  /** The num_ctx the request asked for. */
  num_ctx: number;
  /** The context Ollama allocated for the loaded model (/api/ps context_length); absent: unknown. */
  loaded?: number;
  /** prompt split in proportion to Loupe's estimate of each part: estimated; they add up to prompt. */
  parts: PromptParts;
  /** This round's measured bytes per token, when it calibrates the next estimates. */
  bytes_per_token?: number;
  /** Ollama probably dropped part of the prompt (a context_cut or context_dropped notice says more). */
  dropped?: boolean;
}

export interface ModelResponsePayload {
  request_seq: number;
  content: string;
  thinking?: string;
  tool_calls?: LlmToolCall[] | null;
  done_reason: string;
  /** The message did not end normally: shown as partial; its tool calls never run. */
  incomplete: boolean;
  metrics: Metrics;
  /** The context meter of the request (absent in logs written before it, and for an answer that failed). */
  context?: ContextMeter | null;
  chunks: number;
  /** Ollama's wire JSON for this response, for the Raw view. */
  raw?: JsonValue;
  /** Calls Loupe recovered from the text or whose arguments it repaired. */
  rescued?: Rescue[] | null;
  /** The content as the model wrote it, when calls were taken out of it. */
  printed?: string;
  /** The text looks like a tool call that Loupe did not make one (the run ends printed_call). */
  unrecovered?: Unrecovered | null;
}

/** trace.Unrecovered: text shaped as a tool call that was not made a call: its form, why, and the span. */
export interface Unrecovered {
  form: string;
  why: string;
  text: string;
}

/** trace.Rescue: how Loupe made a call out of what the model wrote. */
export interface Rescue {
  call_id: string;
  /** The call was printed as text; form says how ("tool_call tag", "code fence", "json"), text is that span. */
  recovered?: boolean;
  form?: string;
  text?: string;
  /** What a tolerant parse of the arguments fixed; original is what the model wrote. */
  repaired?: string;
  original?: string;
  /** Recovered, but its arguments could not be read: it failed validation. */
  unparsed?: boolean;
}

/** Error kinds of a tool call's outcome (trace.Err*). */
export const ERROR_KINDS = {
  unknownTool: 'unknown_tool',
  invalidArgs: 'invalid_args',
  failed: 'failed',
  denied: 'denied',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
  skipped: 'skipped',
  /** The user stopped this call alone while it ran; the run went on. */
  stopped: 'stopped',
} as const;

export interface ToolCallPayload {
  call_id: string;
  name: string;
  args: JsonValue;
  valid: boolean;
  /** unknown_tool or invalid_args when valid is false. */
  error_kind?: string;
  problem?: string;
  read_only: boolean;
  /** Set when the call was recovered from the answer's text or its arguments were repaired. */
  rescue?: Rescue | null;
}

/** 'ask' records a question put to the user; the answer follows as allow or deny. */
export type Decision = 'allow' | 'deny' | 'ask';

export interface PermissionPayload {
  call_id: string;
  tool: string;
  decision: Decision | string;
  /** Who or which rule decided, in words. */
  by: string;
  /** Why the policy asked (or refused), in plain words. */
  reasons?: string[] | null;
  /** On ask: the call in a line, and the diff or command it would run. */
  summary?: string;
  display?: Display | null;
  /** On ask: the answer cannot be remembered. */
  once_only?: boolean;
  /** On ask: what the policy decided on, which a remembered answer would cover. */
  command?: string;
  paths?: string[] | null;
}

export interface Display {
  path?: string;
  diff?: string;
  command?: string;
}

export interface ToolResultPayload {
  call_id: string;
  name: string;
  /** Exactly what the model sees. */
  content: string;
  is_error: boolean;
  error_kind?: string;
  truncated: boolean;
  bytes: number;
  exit_code?: number | null;
  duration_ms: number;
  display?: Display | null;
  /** The files this call changed, with their content before and after (for undo). */
  changes?: FileChange[] | null;
}

/** One file a tool changed. before is null when it did not exist; after is null when it was removed. */
export interface FileChange {
  path: string;
  before: string | null;
  after: string | null;
}

/**
 * Files put back as they were before event to_seq (or before run `run`,
 * for "Undo this turn"). Stored as its own event, so the log says what
 * happened to the files.
 */
export interface RestorePayload {
  to_seq: number;
  /** Set for "Undo this turn". */
  run?: number;
  /** Paths written back (or removed, when they did not exist before). */
  restored: string[] | null;
  /** Paths changed outside Loupe since, which the user chose to overwrite. */
  overwritten?: string[] | null;
  /** What each file held before and after the restore. */
  changes?: FileChange[] | null;
}

/** What made Loupe compact: the threshold of num_ctx, a prompt Ollama refused, or Compact now. */
export type CompactTrigger = 'threshold' | 'does_not_fit' | 'button';

/**
 * trace.Compaction: the history from its start through through_seq was
 * replaced by the model's summary; the events stay in the log.
 */
export interface CompactionPayload {
  /** The summarising model_request; summary is its answer. */
  request_seq: number;
  trigger: CompactTrigger | string;
  summary: string;
  from_seq: number;
  through_seq: number;
  /** How many messages it replaced. */
  messages: number;
  /** Runs and rounds of the first and last replaced events (round 0: the run's message). */
  from_run: number;
  from_round: number;
  through_run: number;
  through_round: number;
  /** Loupe's estimates of the prompt before and after. */
  tokens_before: number;
  tokens_after: number;
}

export interface NoticePayload {
  code: string;
  message: string;
}

export interface ErrorPayload {
  code: string;
  message: string;
  /** What did not fit, for code "does_not_fit" (trace.Fit). */
  fit?: Fit | null;
}

/** One part of a prompt with Loupe's token estimate (trace.FitPart). */
export interface FitPart {
  name: string;
  tokens: number;
}

/** A prompt that did not fit num_ctx: what it needed, its biggest parts, the ways out (trace.Fit). */
export interface Fit {
  needed: number;
  num_ctx: number;
  parts: FitPart[] | null;
  largest?: FitPart | null;
  ways_out: string[] | null;
}

/** Why a run ended (trace.End*). */
export type StopReason =
  | 'answered'
  | 'round_cap'
  | 'cancelled'
  | 'error'
  | 'truncated'
  | 'interrupted'
  | 'repeated_calls'
  | 'timeout'
  | 'does_not_fit'
  | 'printed_call';

export interface RunEndPayload {
  reason: StopReason | string;
  detail?: string;
  final_text?: string;
  rounds: number;
}

/** Checkpoints of the loop where a step-through run can pause (trace.Point*). */
export const CHECKPOINTS = ['before_request', 'after_response', 'before_tool', 'after_result'] as const;
export type CheckpointPoint = (typeof CHECKPOINTS)[number];

export function isCheckpointPoint(v: unknown): v is CheckpointPoint {
  return typeof v === 'string' && (CHECKPOINTS as readonly string[]).includes(v);
}

/** How a pause ended (trace.Action*). */
export type ResumeAction = 'step' | 'continue' | 'skip';

/**
 * A pause of a step-through run ("paused"), and how it ended ("resumed"
 * with an action). A run whose last event is a paused checkpoint is still
 * paused there, also after the app restarts. A paused checkpoint carries
 * what may be edited there; edits made while paused are edit events after
 * it, and the result of an after_result pause is the tool_result before it.
 */
export interface CheckpointPayload {
  point: CheckpointPoint | string;
  state: 'paused' | 'resumed' | string;
  call_id?: string;
  tool?: string;
  /** A breakpoint (not stepping) made it pause. */
  breakpoint?: boolean;
  /** How the pause ended, on resumed. */
  action?: ResumeAction | string;
  /** On paused before a request: the request about to be sent. */
  request?: PendingRequest | null;
  /** On paused before a call: its arguments, which may be edited. */
  args?: JsonValue;
  /** In an edit's pause after a result: the content the model will read, as edited. */
  result?: string;
}

/** trace.PendingMessage: one history message of a request not sent yet. */
export interface PendingMessage {
  /** The event the message comes from: what an edit names. */
  seq: number;
  role: string;
  content: string;
  tool_calls?: LlmToolCall[] | null;
  tool_call_id?: string;
  tool_name?: string;
}

/** trace.Pending: a request that is built but not sent. */
export interface PendingRequest {
  model: string;
  system: string;
  options: Options;
  tools: string[] | null;
  messages: PendingMessage[] | null;
}

/** What an edit changed (trace.Edit*). */
export type EditTarget = 'system' | 'options' | 'message' | 'args' | 'result';

/**
 * A change the user made at a pause. before and after are JSON values: a
 * string for system, message and result; an object for options and args.
 * The history sent to the model applies it from then on.
 */
export interface EditPayload {
  target: EditTarget | string;
  /** The event whose message was edited (target message). */
  seq?: number;
  /** The call whose arguments or result were edited. */
  call_id?: string;
  before: JsonValue;
  after: JsonValue;
  /**
   * The paused checkpoint as this edit leaves it (trace.Checkpoint.WithEdit,
   * the one place an edit is applied): what the pause shows from here on.
   */
  pause?: CheckpointPayload | null;
}

export interface PayloadMap {
  user_message: UserMessagePayload;
  model_request: ModelRequestPayload;
  model_response: ModelResponsePayload;
  tool_call: ToolCallPayload;
  permission: PermissionPayload;
  tool_result: ToolResultPayload;
  notice: NoticePayload;
  error: ErrorPayload;
  run_end: RunEndPayload;
  checkpoint: CheckpointPayload;
  edit: EditPayload;
  restore: RestorePayload;
  compaction: CompactionPayload;
}

/** How long a field cut from an event's preview is whole (trace.Cut). */
export interface Cut {
  /** UTF-8 bytes of the whole text, or of the JSON of a value left out (a response's raw). */
  bytes: number;
  /** Lines of the whole text. */
  lines?: number;
}

interface EventBase {
  session_id: string;
  /** Unique and increasing within a session; assigned when committed. */
  seq: number;
  /** RFC 3339 time of commit. */
  time: string;
  /** Counts user messages. */
  run: number;
  /** Counts model requests within a run. */
  round: number;
  /**
   * Set on an event that came cut (openSession sends previews, see
   * trace.Preview): each cut field, by JSON Pointer into the payload
   * ("/content", "/changes/0/before"), with its whole length. The bridge's
   * eventPayload has the rest.
   */
  preview?: Record<string, Cut>;
}

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

/**
 * Checks the envelope of an event received from the backend. An event of a
 * kind this version does not know (a newer backend) becomes a notice that
 * says so, so that it still shows in the timeline instead of vanishing.
 * Returns null for something that is not an event at all.
 */
export function parseEvent(v: unknown): TraceEvent | null {
  if (!isRecord(v)) return null;
  const { session_id, seq, kind, time, run, round, payload, preview } = v;
  if (typeof session_id !== 'string' || typeof seq !== 'number' || typeof kind !== 'string') return null;
  const base: EventBase = {
    session_id,
    seq,
    time: typeof time === 'string' ? time : '',
    run: typeof run === 'number' ? run : 0,
    round: typeof round === 'number' ? round : 0,
  };
  if (isRecord(preview)) base.preview = preview as Record<string, Cut>;
  if (!isKnownKind(kind)) {
    return {
      ...base,
      kind: 'notice',
      payload: { code: 'unknown_kind', message: `This version of Loupe cannot show an event of kind "${kind}".` },
    };
  }
  if (!isRecord(payload)) return null;
  // The payload's fields are trusted to match the kind: the backend encodes
  // them from the Go payload types this file mirrors.
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
