// Types of the bound methods of main.App and of the runtime events that are
// not timeline events. Field names are the Go json tags.
import type { CheckpointPoint, CompactionPayload, Display, Instructions, PendingRequest, ToolResultPayload, TraceEvent } from './events';
import { isRecord, type JsonValue } from './json';
import type { Options } from './llm';
import type { LocalOllama } from './ollama';
import { restoreResultOf, type PermissionMode, type PolicyCall, type RestoreResult, type Rule, type Scope, type ToolSetting } from './safety';

/** settings.HostChoice: the Ollama host in use and where it was chosen from. */
export interface HostChoice {
  host: string;
  /** --host given at start, Settings' Ollama host, OLLAMA_HOST, or the default (strongest first). */
  from: 'flag' | 'setting' | 'env' | 'default';
  /** What --host and OLLAMA_HOST name, normalised; "" when not given. */
  flag: string;
  env: string;
}

/** settings.HostProfile: an Ollama server under a name of the user's ("gpu-box"). */
export interface HostProfile {
  name: string;
  /** Its address, normalised by the backend on save. */
  url: string;
}

/** ollama.Connection: one address Loupe dialled since it started, and how often. */
export interface Connection {
  host: string;
  port: string;
  /** Connections tried there (one serves many requests while it stays open). */
  count: number;
  /** Of those, the ones that did not connect. */
  failed: number;
  /** Every connection there stayed on this machine. */
  loopback: boolean;
  /** The address the last connection reached. */
  remote?: string;
}

/** session.SystemPrompt: the system prompt a run sends, and where the workspace's AGENTS.md sits in it. */
export interface SystemPromptView {
  text: string;
  instructions?: Instructions | null;
  /** What went wrong with AGENTS.md (unreadable, cut). */
  notice?: { code: string; message: string } | null;
}

/** A SystemPromptView from the backend, its text always a string. */
export function systemPromptOf(v: unknown): SystemPromptView {
  const r = isRecord(v) ? v : {};
  return {
    text: typeof r['text'] === 'string' ? r['text'] : '',
    instructions: isRecord(r['instructions']) ? (r['instructions'] as unknown as Instructions) : null,
    notice: isRecord(r['notice']) ? (r['notice'] as unknown as { code: string; message: string }) : null,
  };
}

/** main.HostCheck: what an Ollama host answered to Settings' Test. */
export interface HostCheck {
  host: string;
  reachable: boolean;
  version: string;
  /** What went wrong and what to do, when not reachable. */
  message: string;
}

export interface StatusInfo {
  /** The Ollama server the check asked. */
  ollama_host: string;
  /** Where that host was chosen from (absent from an older backend). */
  hosts?: HostChoice;
  reachable: boolean;
  version: string;
  /** What to do when Ollama is not reachable. */
  message: string;
  db_path: string;
  /** Why the session database could not be opened ("" when it is fine). */
  db_error?: string;
  /** The Ollama of this machine: installed, startable, started by Loupe (absent from an older backend). */
  local?: LocalOllama;
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

/** What a session's open run waits for (trace.Standing*), or "" for nothing. */
export type Standing = 'paused' | 'asking' | '';

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
  /** The run that is open in the log (its run_end not written yet), or 0. */
  open_run: number;
  running: boolean;
  /** What the open run waits for, read from the log; kept up to date from the events. */
  standing: Standing;
  /** The session pauses at every checkpoint. */
  stepping: boolean;
  /** Where it pauses when not stepping. */
  breakpoints: Breakpoints;
  /** The tools the session offers its model, by name; absent: every built-in tool; []: none (plain chat). */
  tools?: string[];
  /** The Ollama host it runs on: a name of Settings' hosts, an address, or absent for the local one. */
  host?: string;
  /** Kept on top of the list. */
  pinned?: boolean;
  /** The session this one is a copy of (Duplicate), absent for none. */
  copied_from?: string;
  /** Requests to the model in its log, compaction's left out. */
  rounds?: number;
}

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
 * session.Breakpoints: pause at every checkpoint of these kinds, and before
 * any call of these tools. Go nil slices arrive as null.
 */
export interface Breakpoints {
  points: (CheckpointPoint | string)[] | null;
  tools: string[] | null;
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

/** agent.MessageEdit: the new content of the history message from event seq. */
export interface MessageEdit {
  seq: number;
  content: string;
}

/** agent.RequestEdit: changes to a pending request; missing fields stay as they are. */
export interface RequestEdit {
  system?: string;
  options?: Options;
  messages?: MessageEdit[];
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

/**
 * session.Command: one thing the window asks of a session (App.Do). do
 * says what; each kind carries the fields it needs.
 */
export type Command =
  | { do: 'create'; workspace: string; model: string; tools?: string[]; /** A name of Settings' Ollama hosts; absent or "" for the local one. */ host?: string }
  /** The scripted demo (backend/demo) on a fresh copy of its project, in Step mode, its task sent. */
  | { do: 'demo' }
  | { do: 'delete'; session: string }
  | { do: 'set_model'; session: string; model: string }
  /** The tools offered from the next run on; tools absent: every tool. */
  | { do: 'set_tools'; session: string; tools?: string[] }
  | { do: 'send'; session: string; text: string }
  | { do: 'stop'; session: string }
  /** Stops one running call (a command) on its own; the run goes on. */
  | { do: 'stop_call'; session: string; call_id: string }
  | { do: 'answer'; session: string; call_id: string; allow?: boolean; scope: Scope }
  | { do: 'set_stepping'; session: string; on?: boolean }
  | { do: 'set_breakpoints'; session: string; breakpoints: Breakpoints }
  | { do: 'step' | 'continue'; session: string; at: number }
  | { do: 'edit_request'; session: string; at: number; request: RequestEdit }
  | { do: 'edit_args' | 'skip' | 'edit_result'; session: string; at: number; text: string }
  | { do: 'restore_files'; session: string; seq: number; force?: boolean }
  | { do: 'undo_run'; session: string; run: number; force?: boolean }
  | { do: 'compact'; session: string };

/** session.Outcome: what a command gives back. */
export interface Outcome {
  summary?: Summary;
  restore?: RestoreResult;
  /** What Compact now recorded. */
  compaction?: CompactionPayload;
}

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
  /** The Step mode a new session starts with; each session keeps its own from then on. */
  step_mode: boolean;
  /** Seconds to wait for the first byte of an answer (it includes loading the model); 0: no bound. */
  first_token_timeout_s: number;
  /** Seconds to wait between two pieces of an answer; 0: no bound. */
  stall_timeout_s: number;
  /** Where Ollama is, normalised by the backend on save; "" means OLLAMA_HOST or the default. */
  ollama_host: string;
  /** Other Ollama servers under names of the user's, that a new session may run on. */
  hosts: HostProfile[];
  /** Tool calls a model printed as text are read as calls. */
  recover_text_calls: boolean;
  /** Rounds in a row with the same calls before the model is told; one more and the run stops. */
  repeat_limit: number;
  /** Compaction: at compact_at_percent of num_ctx, and when a prompt does not fit (then it is sent again). */
  compact: boolean;
  compact_at_percent: number;
  /** The latest rounds always kept as they are. */
  compact_keep_rounds: number;
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

/** Which stream of a running command a piece of its output came from. */
export type OutputStream = 'stdout' | 'stderr';

/** A stretch of a running call's output (tools.OutputPiece). */
export interface OutputPiece {
  stream: OutputStream;
  text: string;
}

/**
 * A streamed delta (loupe:delta, agent.Delta). Not stored. Without call_id
 * it is a piece of the model's answer (content, thinking); with call_id it
 * is what that running call wrote since its last delta (output, in order),
 * and omitted counts the bytes it wrote past what is streamed.
 */
export interface Delta {
  session_id: string;
  run: number;
  round: number;
  content: string;
  thinking: string;
  call_id?: string;
  output?: OutputPiece[];
  omitted?: number;
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

/** session.RenderedPrompt: a stored request as the model reads it, rendered now by Ollama with the model's current template. */
export interface RenderedPrompt {
  model: string;
  /** Ollama's _debug_info.rendered_template: special tokens and all. */
  text: string;
  /** The installed model's digest, when Ollama's list names it. */
  digest?: string;
  seq: number;
  rendered_at: string;
}

/** session.ModelCheck: what the readiness check is asked. */
export interface ModelCheck {
  model: string;
  /** The host the session would run on: a name of Settings' hosts; absent or "" for the local one. */
  host?: string;
  workspace: string;
  /** Absent: every built-in tool. */
  tools?: string[];
  round_trip: boolean;
}

export type ReadinessStatus = 'ok' | 'warn' | 'fail' | 'skipped';

/** readiness.Item: one line of the checklist. */
export interface ReadinessItem {
  check: 'tools' | 'fit' | 'round_trip' | string;
  status: ReadinessStatus;
  detail: string;
  fix?: string;
}

/** readiness.Report: the checklist of one model. */
export interface ReadinessReport {
  model: string;
  capabilities: string[] | null;
  context_length: number;
  num_ctx: number;
  fixed_tokens: number;
  system_tokens: number;
  tool_tokens: number;
  tools: { name: string; tokens: number }[] | null;
  items: ReadinessItem[];
  /** What the model answered the round trip: a real call, a call printed as text, or none. */
  reply?: { kind: 'call' | 'printed' | 'none'; content: string } | null;
  ready: boolean;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** A RenderedPrompt from the backend; anything else is refused, since the view shows nothing else. */
export function renderedPromptOf(v: unknown): RenderedPrompt {
  if (!isRecord(v) || typeof v['text'] !== 'string') throw new Error('Ollama sent no rendered prompt.');
  return { model: str(v['model']), text: v['text'], digest: str(v['digest']) || undefined, seq: num(v['seq']), rendered_at: str(v['rendered_at']) };
}

/** A ReadinessReport from the backend with its lists filled in (Go nil slices arrive as null). */
export function readinessOf(v: unknown): ReadinessReport {
  const r = isRecord(v) ? v : {};
  const items = Array.isArray(r['items']) ? r['items'].filter(isRecord) : [];
  const statuses: ReadinessStatus[] = ['ok', 'warn', 'fail', 'skipped'];
  const reply = isRecord(r['reply']) ? r['reply'] : null;
  return {
    model: str(r['model']),
    capabilities: Array.isArray(r['capabilities']) ? (r['capabilities'] as string[]) : [],
    context_length: num(r['context_length']),
    num_ctx: num(r['num_ctx']),
    fixed_tokens: num(r['fixed_tokens']),
    system_tokens: num(r['system_tokens']),
    tool_tokens: num(r['tool_tokens']),
    tools: Array.isArray(r['tools']) ? r['tools'].filter(isRecord).map((t) => ({ name: str(t['name']), tokens: num(t['tokens']) })) : [],
    items: items.map((it) => ({
      check: str(it['check']),
      status: statuses.includes(it['status'] as ReadinessStatus) ? (it['status'] as ReadinessStatus) : 'fail',
      detail: str(it['detail']),
      ...(typeof it['fix'] === 'string' && it['fix'] ? { fix: it['fix'] } : {}),
    })),
    reply: reply ? { kind: (['call', 'printed', 'none'].includes(str(reply['kind'])) ? reply['kind'] : 'none') as 'call' | 'printed' | 'none', content: str(reply['content']) } : null,
    ready: r['ready'] === true,
  };
}
