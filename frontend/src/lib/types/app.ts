// What the window adds over the Go types (go.ts): its view models (a pause,
// a question, an opened session, Settings with its lists filled in), the
// names of the runtime events, and a command written as Go writes it.
// Nothing here mirrors a Go type: what the bound methods return is used as
// go.ts declares it.
import type { TraceEvent } from './events';
import type {
  CheckpointPoint,
  Command,
  Display,
  HostProfile,
  PendingRequest,
  PolicyCall,
  Rule,
  RunStanding,
  SettingsWire,
  Summary,
  ToolResultPayload,
  ToolSetting,
  WorkspaceChangeFields,
} from './go';
import type { JsonValue } from './json';

/** What a session's open run waits for (trace.Standing*), or "" for nothing. */
export type Standing = RunStanding | '';

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
  /** The sub-agent's run that waits (trace.Event.agent: stepped into); absent for the session's own. */
  agent?: string;
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
  /** session_id/call_id, or session_id/agent/call_id for a sub-agent's: the question's key in the UI. */
  id: string;
  session_id: string;
  /** The sub-agent's loop that asks (its events' agent); absent for the session's own. Its model names its calls as it likes: "call_1" may be the parent's too. */
  agent?: string;
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

/**
 * One change to a workspace folder's settings, as the window makes it:
 * exactly one of workspace.Change's fields (Go takes any of them), checked
 * above to be a workspace.Change.
 */
export type WorkspaceChange = { trust: boolean; seen?: string } | { network: boolean } | { expose: string[] } | { forget_grants: true };

/**
 * settings.Settings as the window holds it: the lists and the map Go may
 * send as null (a nil slice or map) filled in by settingsOf.
 */
export type Settings = SettingsWire & { tools: Record<string, ToolSetting>; rules: Rule[]; hosts: HostProfile[] };

/**
 * Settings as the window holds them: the lists and the map Go sends as null
 * when they are nil, empty instead, so that the form edits them in place.
 */
export function settingsOf(v: SettingsWire): Settings {
  return { ...v, tools: { ...(v.tools ?? {}) }, rules: v.rules ?? [], hosts: v.hosts ?? [] };
}

/** Names of the runtime events the backend emits: the log's events, the streamed text, pulls' progress, tries' answers, files dropped, and waits for commands to end. */
export const CHANNELS = {
  event: 'loupe:event',
  delta: 'loupe:delta',
  pull: 'loupe:pull',
  try: 'loupe:try',
  dropped: 'loupe:files-dropped',
  waiting: 'loupe:files-waiting',
} as const;
