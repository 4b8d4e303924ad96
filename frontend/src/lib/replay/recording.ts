// A recording: one scenario of the Go engine as the window lived it,
// written by backend/session's recordings test (testkit/golden's
// Recording). The commands the UI sent come in order with what the engine
// sent back on the window's channels; the replay bridge plays it.
import { isRecord, type JsonValue } from '../types';

/** A bound method called with its arguments (named as the Bridge names them) and how it answered. */
export interface RecordedCall {
  method: string;
  args: JsonValue[];
  result?: JsonValue;
  /** The Go error's text, when the call failed. */
  error?: string;
}

/** One thing that happened; exactly one field is set. */
export interface Step {
  /** Something the UI asked of the backend: the replay waits for the UI to send it. */
  command?: RecordedCall;
  /** A read the UI may make at any time; answered without waiting for it. */
  query?: RecordedCall;
  event?: unknown;
  delta?: unknown;
  /** Something done outside Loupe (a file changed by hand); a spec says when it happens. */
  outside?: string;
  /** A named point a spec can start from. */
  mark?: string;
}

export interface Recording {
  scenario: string;
  about: string;
  /** The session's summary before the first step (null: none yet). */
  session: unknown;
  settings: unknown;
  steps: Step[];
  /** The request bodies the backend rebuilt, by model_request seq. */
  raw_requests: Record<string, string>;
}

const STEP_KEYS = ['command', 'query', 'event', 'delta', 'outside', 'mark'] as const;

/** What a step is, for messages. */
export function stepKind(s: Step): string {
  if (s.command) return `command ${s.command.method === 'do' && isRecord(s.command.args[0]) ? String(s.command.args[0]['do']) : s.command.method}`;
  if (s.query) return `query ${s.query.method}`;
  if (s.event !== undefined) return `event ${isRecord(s.event) ? String(s.event['kind']) : '?'}`;
  for (const k of STEP_KEYS) if (s[k] !== undefined) return k;
  return 'nothing';
}

function callOf(v: unknown, where: string): RecordedCall {
  if (!isRecord(v) || typeof v['method'] !== 'string' || !Array.isArray(v['args'])) throw new Error(`${where}: not a recorded call`);
  const c: RecordedCall = { method: v['method'], args: v['args'] as JsonValue[] };
  if (v['result'] !== undefined) c.result = v['result'] as JsonValue;
  if (typeof v['error'] === 'string') c.error = v['error'];
  return c;
}

/** Checks the frame of a recording (not the payloads: the replay parses those as the Wails bridge does). */
export function parseRecording(v: unknown): Recording {
  if (!isRecord(v) || typeof v['scenario'] !== 'string' || !Array.isArray(v['steps'])) throw new Error('not a recording');
  const name = v['scenario'];
  const steps = (v['steps'] as unknown[]).map((s, i): Step => {
    const where = `${name} step ${i}`;
    if (!isRecord(s)) throw new Error(`${where}: not an object`);
    const keys = Object.keys(s);
    if (keys.length !== 1 || !(STEP_KEYS as readonly string[]).includes(keys[0]!)) throw new Error(`${where}: has ${keys.join(', ')}`);
    if (s['command'] !== undefined) return { command: callOf(s['command'], where) };
    if (s['query'] !== undefined) return { query: callOf(s['query'], where) };
    return s as Step;
  });
  const raw = isRecord(v['raw_requests']) ? v['raw_requests'] : {};
  return {
    scenario: name,
    about: typeof v['about'] === 'string' ? v['about'] : '',
    session: v['session'] ?? null,
    settings: v['settings'] ?? null,
    steps,
    raw_requests: Object.fromEntries(Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === 'string')),
  };
}

/** Equal as JSON values: the same after a JSON round trip, whatever the key order. */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonical(JSON.parse(JSON.stringify(a ?? null))) === canonical(b ?? null);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isRecord(v)) {
    return `{${Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** A recorded command in words, for the demo's refusals. */
export function describe(c: RecordedCall): string {
  const cmd = c.method === 'do' && isRecord(c.args[0]) ? c.args[0] : null;
  if (cmd?.['do'] === 'answer') return `"${cmd['allow'] ? 'Approve' : 'Deny'}${cmd['scope'] === 'once' ? ' once' : ` for the ${String(cmd['scope'])}`}"`;
  return `"${cmd ? String(cmd['do']) : c.method}"`;
}

/** The command a recorded call sends, if it is one (App.Do). */
export function commandOf(method: string, args: readonly unknown[]): Record<string, unknown> | null {
  return method === 'do' && isRecord(args[0]) ? args[0] : null;
}
