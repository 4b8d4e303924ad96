// Types of the bound methods of main.App and of the runtime events that are
// not timeline events. Field names are the Go json tags.
import type { TraceEvent } from './events';
import {
  type CheckpointPoint,
  type Rule,
  type RunStanding,
  type SettingsWire,
  type Command,
  type Display,
  type HostProfile,
  type Instructions,
  type ModelCheck,
  type Outcome,
  type PendingRequest,
  type PolicyCall,
  type ReadinessReport,
  type RenderedPrompt,
  type Summary,
  type SystemPromptView,
  type ToolResultPayload,
  type ToolSetting,
  type Delta,
  type OutputPiece,
  type WorkspaceChangeFields,
  type CompactionPayload,
} from './go';
import { isRecord, type JsonValue } from './json';
import { restoreResultOf } from './safety';

/** A SystemPromptView from the backend, its text always a string. */
export function systemPromptOf(v: unknown): SystemPromptView {
  const r = isRecord(v) ? v : {};
  return {
    text: typeof r['text'] === 'string' ? r['text'] : '',
    ...(isRecord(r['instructions']) ? { instructions: r['instructions'] as unknown as Instructions } : {}),
    ...(isRecord(r['notice']) ? { notice: r['notice'] as unknown as { code: string; message: string } } : {}),
  };
}

/** What a session's open run waits for (trace.Standing*), or "" for nothing. */
export type Standing = RunStanding | '';

/**
 * A Summary from the backend with the step-through fields filled in: an
 * older backend (or a Go nil) leaves them out, and the UI reads them
 * everywhere. Other fields are trusted as the Go type encodes them.
 */
export function summaryOf(v: unknown): Summary {
  const r = isRecord(v) ? v : {};
  const bp = isRecord(r['breakpoints']) ? r['breakpoints'] : {};
  const standing = r['standing'];
  return {
    ...(r as unknown as Summary),
    open_run: typeof r['open_run'] === 'number' ? r['open_run'] : 0,
    standing: standing === 'paused' || standing === 'asking' ? standing : '',
    stepping: r['stepping'] === true,
    pinned: r['pinned'] === true,
    rounds: typeof r['rounds'] === 'number' ? r['rounds'] : 0,
    breakpoints: {
      points: Array.isArray(bp['points']) ? (bp['points'] as string[]) : [],
      tools: Array.isArray(bp['tools']) ? (bp['tools'] as string[]) : [],
    },
  };
}

/**
 * Where a paused run waits and what can be edited there, as the log says:
 * the paused checkpoint with the edits made since applied.
 */
export interface Pause {
  /** The paused checkpoint event: what a command to this pause names. */
  seq: number;
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

/**
 * A question to the user about one call, as the log holds it: the ask
 * event, with the call's arguments. It is answered by session and call.
 */
export interface Approval {
  /** session_id/call_id: the question's key in the UI. */
  id: string;
  session_id: string;
  call_id: string;
  /** The ask event. */
  seq: number;
  tool: string;
  args: JsonValue;
  /** What will happen: the command and the folder it runs in, or the diff of a change. */
  display: Display | null;
  summary: string;
  /** What the policy decided on: what a remembered answer would cover. */
  call: PolicyCall;
  /** Why Loupe asks, in plain words. */
  reasons?: string[] | null;
  /** The answer cannot be remembered (a protected path, commands not sandboxed…): only once is offered. */
  once_only?: boolean;
}

/** What Open returns, after the bridge has checked the events. */
export interface SessionSnapshot {
  summary: Summary;
  events: TraceEvent[];
}

// A workspace change the window makes is a workspace.Change: a field Go
// renames or retypes fails to compile here.
const changeIsGo = (c: WorkspaceChange): WorkspaceChangeFields => c;
void changeIsGo;

/** A command's answer as the backend sends it, read into an Outcome. */
export function outcomeOf(r: unknown): Outcome {
  const out: Outcome = {};
  if (!isRecord(r)) return out;
  if (isRecord(r['summary'])) out.summary = summaryOf(r['summary']);
  if (isRecord(r['restore'])) out.restore = restoreResultOf(r['restore']);
  if (isRecord(r['compaction'])) out.compaction = r['compaction'] as unknown as CompactionPayload;
  return out;
}

/**
 * A command as Go encodes it: false and empty fields are left out
 * (omitempty), so the window sends exactly what a recording holds.
 */
export function commandJSON(c: Command): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(c) as [string, JsonValue | undefined][]) {
    // An empty list of tools says "none" (a Go pointer to an empty
    // slice); it is kept.
    if (v === undefined || v === false || v === '' || v === 0) continue;
    out[k] = v;
  }
  return out;
}

/** workspace.Change: one change to a workspace folder's settings. */
export type WorkspaceChange = { trust: boolean } | { network: boolean } | { expose: string[] } | { forget_grants: true };

/**
 * settings.Settings as the window holds it: the lists and the map Go may
 * send as null (a nil slice or map) filled in by settingsOf.
 */
export type Settings = SettingsWire & { tools: Record<string, ToolSetting>; rules: Rule[]; hosts: HostProfile[] };

/** Settings from the backend with the permission fields filled in (Go nil maps and slices arrive as null). */
export function settingsOf(v: unknown): Settings {
  const r = isRecord(v) ? v : {};
  const mode = r['permission_mode'];
  return {
    ...(r as unknown as Settings),
    permission_mode: mode === 'ask_all' || mode === 'auto' ? mode : 'ask',
    tools: isRecord(r['tools']) ? ({ ...r['tools'] } as Record<string, ToolSetting>) : {},
    rules: Array.isArray(r['rules']) ? (r['rules'] as Rule[]) : [],
    step_mode: r['step_mode'] === true,
    first_token_timeout_s: typeof r['first_token_timeout_s'] === 'number' ? r['first_token_timeout_s'] : 600,
    stall_timeout_s: typeof r['stall_timeout_s'] === 'number' ? r['stall_timeout_s'] : 300,
    ollama_host: typeof r['ollama_host'] === 'string' ? r['ollama_host'] : '',
    hosts: Array.isArray(r['hosts']) ? (r['hosts'] as HostProfile[]).map((h) => ({ name: h.name ?? '', url: h.url ?? '' })) : [],
    recover_text_calls: r['recover_text_calls'] !== false,
    repeat_limit: typeof r['repeat_limit'] === 'number' ? r['repeat_limit'] : 3,
    compact: r['compact'] !== false,
    compact_at_percent: typeof r['compact_at_percent'] === 'number' ? r['compact_at_percent'] : 80,
    compact_keep_rounds: typeof r['compact_keep_rounds'] === 'number' ? r['compact_keep_rounds'] : 2,
  };
}

/** A delta as the backend sends it (agent.Delta, empty fields left out), or null when it is not one. */
export function deltaOf(v: unknown): Delta | null {
  if (!isRecord(v) || typeof v['session_id'] !== 'string') return null;
  const d: Delta = {
    session_id: v['session_id'],
    run: Number(v['run'] ?? 0),
    round: Number(v['round'] ?? 0),
    content: typeof v['content'] === 'string' ? v['content'] : '',
    thinking: typeof v['thinking'] === 'string' ? v['thinking'] : '',
  };
  if (typeof v['call_id'] === 'string' && v['call_id'] !== '') {
    d.call_id = v['call_id'];
    const out = Array.isArray(v['output']) ? v['output'] : [];
    d.output = out.flatMap((p): OutputPiece[] =>
      isRecord(p) && typeof p['text'] === 'string' ? [{ stream: p['stream'] === 'stderr' ? 'stderr' : 'stdout', text: p['text'] }] : [],
    );
    d.omitted = typeof v['omitted'] === 'number' ? v['omitted'] : 0;
  }
  return d;
}

/** Names of the runtime events the backend emits: the log's events, the streamed text, and pulls' progress. */
export const CHANNELS = {
  event: 'loupe:event',
  delta: 'loupe:delta',
  pull: 'loupe:pull',
} as const;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** A RenderedPrompt from the backend; anything else is refused, since the view shows nothing else. */
export function renderedPromptOf(v: unknown): RenderedPrompt {
  if (!isRecord(v) || typeof v['text'] !== 'string') throw new Error('Ollama sent no rendered prompt.');
  return { model: str(v['model']), text: v['text'], digest: str(v['digest']) || undefined, seq: num(v['seq']), rendered_at: str(v['rendered_at']) };
}

/** A ReadinessReport from the backend with its lists filled in (Go nil slices arrive as null). */
export function readinessOf(v: unknown): ReadinessReport {
  const r = (isRecord(v) ? v : {}) as unknown as ReadinessReport;
  return { ...r, capabilities: r.capabilities ?? [], tools: r.tools ?? [], items: r.items ?? [] };
}
