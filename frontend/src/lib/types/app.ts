// Types of the bound methods of main.App and of the runtime events that are
// not timeline events. Field names are the Go json tags.
import type { Display, TraceEvent } from './events';
import type { JsonValue } from './json';

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
}

export interface Approval {
  id: string;
  session_id: string;
  call_id: string;
  tool: string;
  args: JsonValue;
  display: Display | null;
  summary: string;
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

export type PermissionMode = 'ask' | 'auto';

export interface Settings {
  max_rounds: number;
  num_ctx_cap: number;
  temperature: number;
  permission_mode: PermissionMode;
  system_prompt: string;
}

/** A streamed token delta of the model's answer (loupe:delta). Not stored. */
export interface Delta {
  session_id: string;
  run: number;
  round: number;
  content: string;
  thinking: string;
}

/** Names of the runtime events the backend emits. */
export const CHANNELS = {
  event: 'loupe:event',
  delta: 'loupe:delta',
  session: 'loupe:session',
  approval: 'loupe:approval',
  approvalClosed: 'loupe:approval_closed',
} as const;
