// Types of the bound methods of main.App and of the runtime events that are
// not timeline events. Field names are the Go json tags.
import type { CheckpointPoint, Display, ToolResultPayload, TraceEvent } from './events';
import { isRecord, type JsonValue } from './json';
import type { LlmToolCall, Options } from './llm';
import type { PermissionMode, PolicyCall, Rule, ToolSetting } from './safety';

export interface StatusInfo {
  ollama_host: string;
  reachable: boolean;
  version: string;
  /** What to do when Ollama is not reachable. */
  message: string;
  db_path: string;
  /** Why the session database could not be opened ("" when it is fine). */
  db_error?: string;
}

export interface ModelInfo {
  name: string;
  size: number;
  family: string;
  parameter_size: string;
  quantization: string;
  capabilities: string[] | null;
  context_length: number;
  modified_at: string;
}

export interface Summary {
  id: string;
  title: string;
  workspace: string;
  model: string;
  created_at: string;
  updated_at: string;
  /** Stop reason of the last run, "" if none. */
  last_reason: string;
  event_count: number;
  running: boolean;
  /** The session pauses at every checkpoint. */
  stepping: boolean;
  /** Where it pauses when not stepping. */
  breakpoints: Breakpoints;
  /** Where the session's run waits, or null when it is not paused. */
  paused: Pause | null;
}

/**
 * A Summary from the backend with the step-through fields filled in: an
 * older backend (or a Go nil) leaves them out, and the UI reads them
 * everywhere. Other fields are trusted as the Go type encodes them.
 */
export function summaryOf(v: unknown): Summary {
  const r = isRecord(v) ? v : {};
  const bp = isRecord(r['breakpoints']) ? r['breakpoints'] : {};
  return {
    ...(r as unknown as Summary),
    stepping: r['stepping'] === true,
    breakpoints: {
      points: Array.isArray(bp['points']) ? (bp['points'] as string[]) : [],
      tools: Array.isArray(bp['tools']) ? (bp['tools'] as string[]) : [],
    },
    paused: isRecord(r['paused']) ? (r['paused'] as unknown as Pause) : null,
  };
}

/**
 * session.Breakpoints: pause at every checkpoint of these kinds, and before
 * any call of these tools. Go nil slices arrive as null.
 */
export interface Breakpoints {
  points: (CheckpointPoint | string)[] | null;
  tools: string[] | null;
}

/** session.PendingMessage: one history message of a request not sent yet. */
export interface PendingMessage {
  /** The event the message comes from: what an edit names. */
  seq: number;
  role: string;
  content: string;
  tool_calls?: LlmToolCall[] | null;
  tool_call_id?: string;
  tool_name?: string;
}

/** session.PendingRequest: a request that is built but not sent. */
export interface PendingRequest {
  model: string;
  system: string;
  options: Options;
  tools: string[] | null;
  messages: PendingMessage[] | null;
}

/** session.Pause: where a paused run waits and what can be edited there. */
export interface Pause {
  point: CheckpointPoint | string;
  run: number;
  round: number;
  call_id?: string;
  tool?: string;
  /** The pending request (before_request). */
  request?: PendingRequest | null;
  /** The pending call's arguments (before_tool). */
  args?: JsonValue;
  /** The result about to go back (after_result). */
  result?: ToolResultPayload | null;
}

/** session.MessageEdit: the new content of the history message from event seq. */
export interface MessageEdit {
  seq: number;
  content: string;
}

/** session.RequestEdit: changes to a pending request; missing fields stay as they are. */
export interface RequestEdit {
  system?: string;
  options?: Options;
  messages?: MessageEdit[];
}

/** permission.Request: a question to the user about one call (loupe:approval). */
export interface Approval {
  id: string;
  session_id: string;
  call_id: string;
  tool: string;
  args: JsonValue;
  /** What will happen: the command and the folder it runs in, or the diff of a change. */
  display: Display | null;
  summary: string;
  /** What the policy decided on. Without it only "once" can be answered. */
  call?: PolicyCall | null;
  /** Why Loupe asks, in plain words. */
  reasons?: string[] | null;
  /** The answer cannot be remembered (a protected path, commands not sandboxed…): only once is offered. */
  once_only?: boolean;
}

export interface ApprovalClosed {
  id: string;
  decision: string;
}

/** What OpenSession returns, after the bridge has checked the events. */
export interface SessionSnapshot {
  summary: Summary;
  events: TraceEvent[];
  approvals: Approval[];
}

/** session.Settings: the user's choices that shape every run. */
export interface Settings {
  max_rounds: number;
  num_ctx_cap: number;
  temperature: number;
  permission_mode: PermissionMode;
  /** A tool set to always, ask or never; a tool left out follows the mode. */
  tools: Record<string, ToolSetting>;
  /** Allow, ask and deny rules for commands and paths (deny wins). */
  rules: Rule[];
  system_prompt: string;
}

/** Settings from the backend with the permission fields filled in (Go nil maps and slices arrive as null). */
export function settingsOf(v: unknown): Settings {
  const r = isRecord(v) ? v : {};
  const mode = r['permission_mode'];
  return {
    ...(r as unknown as Settings),
    permission_mode: mode === 'ask_all' || mode === 'auto' ? mode : 'ask',
    tools: isRecord(r['tools']) ? ({ ...r['tools'] } as Record<string, ToolSetting>) : {},
    rules: Array.isArray(r['rules']) ? (r['rules'] as Rule[]) : [],
  };
}

/** A streamed token delta of the model's answer (loupe:delta). Not stored. */
export interface Delta {
  session_id: string;
  run: number;
  round: number;
  content: string;
  thinking: string;
}

/** A delta as the backend sends it (agent.Delta, empty fields left out), or null when it is not one. */
export function deltaOf(v: unknown): Delta | null {
  if (!isRecord(v) || typeof v['session_id'] !== 'string') return null;
  return {
    session_id: v['session_id'],
    run: Number(v['run'] ?? 0),
    round: Number(v['round'] ?? 0),
    content: typeof v['content'] === 'string' ? v['content'] : '',
    thinking: typeof v['thinking'] === 'string' ? v['thinking'] : '',
  };
}

/** An approval as the backend sends it, or null when it has no id. Other fields are trusted as the Go type encodes them. */
export function approvalOf(v: unknown): Approval | null {
  return isRecord(v) && typeof v['id'] === 'string' ? (v as unknown as Approval) : null;
}

/** A closed approval as the backend sends it, or null when it has no id. */
export function approvalClosedOf(v: unknown): ApprovalClosed | null {
  return isRecord(v) && typeof v['id'] === 'string' ? { id: v['id'], decision: typeof v['decision'] === 'string' ? v['decision'] : '' } : null;
}

/** Names of the runtime events the backend emits. */
export const CHANNELS = {
  event: 'loupe:event',
  delta: 'loupe:delta',
  session: 'loupe:session',
  approval: 'loupe:approval',
  approvalClosed: 'loupe:approval_closed',
} as const;
