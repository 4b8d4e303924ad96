// "What the model saw": a request body as sent to Ollama (RawRequest's
// JSON), split into its parts, and compared with the request before it, so
// that it is plain that every round re-sends everything: the system
// prompt, the tool schemas and the whole history, plus what is new.
import { isRecord, type JsonValue } from '../types';
import { diffTokens } from './textdiff';

/** The parts of a request, coloured apart in the UI. */
export type RequestPart = 'system' | 'tools' | 'options' | 'history' | 'new';

export const PART_LABELS: Record<RequestPart, string> = {
  system: 'System prompt',
  tools: 'Tool schemas',
  options: 'Options',
  history: 'History (sent again)',
  new: 'New since the last request',
};

export interface SeenToolCall {
  id: string;
  name: string;
  args: JsonValue;
}

export interface SeenMessage {
  role: string;
  content: string;
  thinking: string;
  toolCalls: SeenToolCall[];
  toolName: string;
  toolCallId: string;
  /** The message exactly as in the body. */
  raw: JsonValue;
  /** Its size in the body (UTF-8 bytes of its JSON). */
  bytes: number;
}

export interface SeenTool {
  name: string;
  description: string;
  raw: JsonValue;
  bytes: number;
}

export interface SeenRequest {
  model: string;
  /** The system message at the start, or null. */
  system: string | null;
  systemBytes: number;
  /** The history: every message after the system prompt. */
  messages: SeenMessage[];
  tools: SeenTool[];
  options: { [key: string]: JsonValue };
  optionsBytes: number;
  think: JsonValue | undefined;
  /** Size of the whole body. */
  bytes: number;
}

/** UTF-8 length of a string, without TextEncoder. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

const sizeOf = (v: unknown): number => utf8Length(JSON.stringify(v) ?? '');
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function toolCallsOf(v: unknown): SeenToolCall[] {
  if (!Array.isArray(v)) return [];
  return v.map((c): SeenToolCall => {
    const rec = isRecord(c) ? c : {};
    const fn = isRecord(rec['function']) ? rec['function'] : {};
    return { id: str(rec['id']), name: str(fn['name']), args: (fn['arguments'] ?? null) as JsonValue };
  });
}

function messageOf(v: unknown): SeenMessage {
  const m = isRecord(v) ? v : {};
  return {
    role: str(m['role']),
    content: str(m['content']),
    thinking: str(m['thinking']),
    toolCalls: toolCallsOf(m['tool_calls']),
    toolName: str(m['tool_name']),
    toolCallId: str(m['tool_call_id']),
    raw: v as JsonValue,
    bytes: sizeOf(v),
  };
}

/**
 * Reads an /api/chat body. Throws an Error that says what is wrong when it
 * is not one.
 */
export function parseRawRequest(body: string): SeenRequest {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch (e) {
    throw new Error(`The request body is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isRecord(v)) throw new Error('The request body is not a JSON object.');
  const msgs = Array.isArray(v['messages']) ? v['messages'] : [];
  let system: string | null = null;
  let systemBytes = 0;
  let rest = msgs;
  const first = msgs[0];
  if (isRecord(first) && first['role'] === 'system') {
    system = str(first['content']);
    systemBytes = sizeOf(first);
    rest = msgs.slice(1);
  }
  const tools = (Array.isArray(v['tools']) ? v['tools'] : []).map((t): SeenTool => {
    const rec = isRecord(t) ? t : {};
    const fn = isRecord(rec['function']) ? rec['function'] : rec;
    return { name: str(fn['name']), description: str(fn['description']), raw: t as JsonValue, bytes: sizeOf(t) };
  });
  const options = isRecord(v['options']) ? (v['options'] as { [key: string]: JsonValue }) : {};
  return {
    model: str(v['model']),
    system,
    systemBytes,
    messages: rest.map(messageOf),
    tools,
    options,
    optionsBytes: isRecord(v['options']) ? sizeOf(v['options']) : 0,
    think: v['think'] as JsonValue | undefined,
    bytes: utf8Length(body),
  };
}

/** How a piece compares with the previous request. */
export type PartStatus = 'same' | 'changed' | 'added' | 'removed';

export interface Segment {
  part: RequestPart;
  status: PartStatus;
  /** What the piece is, e.g. "tool read_file" or "assistant message 3". */
  label: string;
  /** Its size in this request (0 for removed pieces). */
  bytes: number;
  /** For messages: this request's message (absent when removed). */
  message?: SeenMessage;
  /** For changed or removed pieces: the text before, for a diff. */
  before?: string;
  after?: string;
}

export interface PartTotal {
  bytes: number;
  count: number;
}

export interface RequestDiff {
  /** No previous request: everything is sent for the first time. */
  first: boolean;
  /** Pieces in body order: system, tools, options, then the messages. */
  segments: Segment[];
  /** Bytes and pieces per part, of this request. */
  totals: Record<RequestPart, PartTotal>;
  /** Bytes the model was sent before and gets again unchanged. */
  resentBytes: number;
  /** Bytes that are new or changed since the previous request. */
  changedBytes: number;
  totalBytes: number;
}

/** Identity of a message for matching two requests' histories. */
function messageKey(m: SeenMessage): string {
  return JSON.stringify(m.raw);
}

function messageLabel(m: SeenMessage, index: number): string {
  if (m.role === 'tool') return `tool result${m.toolName ? ` of ${m.toolName}` : ''} (message ${index + 1})`;
  if (m.role === 'assistant' && m.toolCalls.length)
    return `assistant message with ${m.toolCalls.length === 1 ? 'a tool call' : `${m.toolCalls.length} tool calls`} (message ${index + 1})`;
  return `${m.role || 'unknown'} message (message ${index + 1})`;
}

function messageText(m: SeenMessage): string {
  const calls = m.toolCalls.map((c) => `\n→ ${c.name} ${JSON.stringify(c.args)}`).join('');
  return m.content + calls;
}

/**
 * Compares a request with the one before it (null for the first request)
 * part by part. History messages are matched by their exact JSON: those
 * the model was sent before are "history"; an edited message is
 * "changed"; messages after the last one matched are "new" (the previous
 * answer, the observations, a new user message).
 */
export function diffRequests(prev: SeenRequest | null, cur: SeenRequest): RequestDiff {
  const segments: Segment[] = [];

  // System prompt.
  if (cur.system != null) {
    const status: PartStatus = !prev || prev.system == null ? 'added' : prev.system === cur.system ? 'same' : 'changed';
    segments.push({
      part: 'system',
      status,
      label: 'system prompt',
      bytes: cur.systemBytes,
      ...(status === 'changed' ? { before: prev!.system!, after: cur.system } : {}),
    });
  } else if (prev?.system != null) {
    segments.push({ part: 'system', status: 'removed', label: 'system prompt', bytes: 0, before: prev.system, after: '' });
  }

  // Tool schemas, by name.
  const prevTools = new Map((prev?.tools ?? []).map((t) => [t.name, t]));
  for (const t of cur.tools) {
    const p = prevTools.get(t.name);
    const status: PartStatus = !prev || !p ? 'added' : JSON.stringify(p.raw) === JSON.stringify(t.raw) ? 'same' : 'changed';
    segments.push({
      part: 'tools',
      status,
      label: `tool ${t.name}`,
      bytes: t.bytes,
      ...(status === 'changed' ? { before: JSON.stringify(p!.raw, null, 2), after: JSON.stringify(t.raw, null, 2) } : {}),
    });
  }
  const curTools = new Set(cur.tools.map((t) => t.name));
  for (const t of prev?.tools ?? []) {
    if (!curTools.has(t.name)) segments.push({ part: 'tools', status: 'removed', label: `tool ${t.name}`, bytes: 0 });
  }

  // Options.
  const before = prev ? JSON.stringify(prev.options) : null;
  const after = JSON.stringify(cur.options);
  segments.push({
    part: 'options',
    status: before == null ? 'added' : before === after ? 'same' : 'changed',
    label: 'options',
    bytes: cur.optionsBytes,
    ...(before != null && before !== after ? { before: JSON.stringify(prev!.options, null, 2), after: JSON.stringify(cur.options, null, 2) } : {}),
  });

  segments.push(...diffHistory(prev?.messages ?? null, cur.messages));

  const totals: Record<RequestPart, PartTotal> = {
    system: { bytes: 0, count: 0 },
    tools: { bytes: 0, count: 0 },
    options: { bytes: 0, count: 0 },
    history: { bytes: 0, count: 0 },
    new: { bytes: 0, count: 0 },
  };
  let resentBytes = 0;
  let changedBytes = 0;
  for (const s of segments) {
    if (s.status === 'removed') continue;
    totals[s.part].bytes += s.bytes;
    totals[s.part].count++;
    if (s.status === 'same') resentBytes += s.bytes;
    else changedBytes += s.bytes;
  }
  return { first: prev == null, segments, totals, resentBytes, changedBytes, totalBytes: cur.bytes };
}

type Op = { kind: 'eq'; a: number; b: number } | { kind: 'del'; a: number } | { kind: 'add'; b: number };

function diffHistory(prev: SeenMessage[] | null, cur: SeenMessage[]): Segment[] {
  const seg = (m: SeenMessage, i: number, part: RequestPart, status: PartStatus, extra: Partial<Segment> = {}): Segment => ({
    part,
    status,
    label: messageLabel(m, i),
    bytes: m.bytes,
    message: m,
    ...extra,
  });
  if (!prev) return cur.map((m, i) => seg(m, i, 'new', 'added'));

  // Align the histories on the messages' JSON (shared by diffTokens' LCS).
  const keysA = prev.map(messageKey);
  const keysB = cur.map(messageKey);
  const ops: Op[] = [];
  let ia = 0;
  let ib = 0;
  for (const o of diffTokens(keysA.map((k) => `${k}\u0000`), keysB.map((k) => `${k}\u0000`))) {
    // Merged ops hold several keys, each ending in \0.
    const n = o.text.split('\u0000').length - 1;
    for (let k = 0; k < n; k++) {
      if (o.kind === 'eq') ops.push({ kind: 'eq', a: ia++, b: ib++ });
      else if (o.kind === 'del') ops.push({ kind: 'del', a: ia++ });
      else ops.push({ kind: 'add', b: ib++ });
    }
  }
  const lastEq = ops.map((o) => o.kind).lastIndexOf('eq');

  const out: Segment[] = [];
  let i = 0;
  while (i < ops.length) {
    const o = ops[i]!;
    if (o.kind === 'eq') {
      out.push(seg(cur[o.b]!, o.b, 'history', 'same'));
      i++;
      continue;
    }
    // A gap: removed and added messages between two matches.
    const dels: number[] = [];
    const adds: number[] = [];
    const gapStart = i;
    while (i < ops.length && ops[i]!.kind !== 'eq') {
      const g = ops[i]!;
      if (g.kind === 'del') dels.push(g.a);
      else if (g.kind === 'add') adds.push(g.b);
      i++;
    }
    const trailing = gapStart > lastEq;
    // Pair removed and added messages of the same role in order: an edit.
    const paired = new Map<number, number>();
    let d = 0;
    for (const b of adds) {
      while (d < dels.length && prev[dels[d]!]!.role !== cur[b]!.role) d++;
      if (d >= dels.length) break;
      paired.set(b, dels[d]!);
      d++;
    }
    const usedDels = new Set(paired.values());
    for (const a of dels) {
      if (usedDels.has(a)) continue;
      const m = prev[a]!;
      out.push({ part: 'history', status: 'removed', label: messageLabel(m, a), bytes: 0, before: messageText(m), after: '' });
    }
    for (const b of adds) {
      const m = cur[b]!;
      const a = paired.get(b);
      if (a != null) out.push(seg(m, b, 'history', 'changed', { before: messageText(prev[a]!), after: messageText(m) }));
      else out.push(seg(m, b, trailing ? 'new' : 'history', 'added'));
    }
  }
  return out;
}
