// Exact shapes of what the backend sends, field by field, as the types in
// this folder declare them. parseEvent only checks an event's envelope (it
// must stay cheap for 100,000 events); these say everything that does not
// fit a payload: a missing field, a wrong type, a field the TS type does
// not have, an unknown kind. The contract spec runs every recording and
// golden log of the Go scenarios through them, so a change on the Go side
// that the TS mirrors miss fails a test.
import { KINDS, type Kind } from './events';
import { isRecord } from './json';

/** Appends what is wrong with v (at path) to out. */
type Shape = (v: unknown, path: string, out: string[]) => void;

const str: Shape = (v, p, out) => {
  if (typeof v !== 'string') out.push(`${p}: want a string, got ${JSON.stringify(v)}`);
};
const num: Shape = (v, p, out) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) out.push(`${p}: want a number, got ${JSON.stringify(v)}`);
};
const bool: Shape = (v, p, out) => {
  if (typeof v !== 'boolean') out.push(`${p}: want true or false, got ${JSON.stringify(v)}`);
};
/** Any JSON value (json.RawMessage fields). */
const json: Shape = () => {};
const nullable =
  (s: Shape): Shape =>
  (v, p, out) => {
    if (v !== null) s(v, p, out);
  };
const arr =
  (s: Shape): Shape =>
  (v, p, out) => {
    if (!Array.isArray(v)) out.push(`${p}: want a list, got ${JSON.stringify(v)}`);
    else v.forEach((x, i) => s(x, `${p}[${i}]`, out));
  };
const oneOf =
  (...values: string[]): Shape =>
  (v, p, out) => {
    if (typeof v !== 'string' || !values.includes(v)) out.push(`${p}: want one of ${values.join(', ')}, got ${JSON.stringify(v)}`);
  };
const map =
  (s: Shape): Shape =>
  (v, p, out) => {
    if (!isRecord(v)) out.push(`${p}: want an object, got ${JSON.stringify(v)}`);
    else for (const [k, x] of Object.entries(v)) s(x, `${p}.${k}`, out);
  };

/** An object with these fields; a key ending in ? may be missing. Fields the type does not have are reported. */
function obj(fields: Record<string, Shape>): Shape {
  const known = new Map(Object.entries(fields).map(([k, s]) => [k.replace(/\?$/, ''), { shape: s, optional: k.endsWith('?') }]));
  return (v, p, out) => {
    if (!isRecord(v)) {
      out.push(`${p}: want an object, got ${JSON.stringify(v)}`);
      return;
    }
    for (const [k, f] of known) {
      if (!(k in v)) {
        if (!f.optional) out.push(`${p}.${k}: missing`);
      } else f.shape(v[k], `${p}.${k}`, out);
    }
    for (const k of Object.keys(v)) if (!known.has(k)) out.push(`${p}.${k}: not in the TS type`);
  };
}

// llm.ts
const toolSpec = obj({ name: str, description: str, parameters: json });
const llmToolCall = obj({ id: str, index: num, name: str, args: json });
const options = obj({ num_ctx: num, temperature: num });
const metrics = obj({
  prompt_eval_count: num,
  eval_count: num,
  total_duration: num,
  load_duration: num,
  prompt_eval_duration: num,
  eval_duration: num,
  time_to_first_token: num,
});

// events.ts
const display = obj({ 'path?': str, 'diff?': str, 'command?': str });
const rescue = obj({
  call_id: str,
  'recovered?': bool,
  'form?': str,
  'text?': str,
  'repaired?': str,
  'original?': str,
  'unparsed?': bool,
});
const fileChange = obj({ path: str, before: nullable(str), after: nullable(str) });
const toolResult = obj({
  call_id: str,
  name: str,
  content: str,
  is_error: bool,
  'error_kind?': str,
  truncated: bool,
  bytes: num,
  'exit_code?': nullable(num),
  duration_ms: num,
  'display?': nullable(display),
  'changes?': nullable(arr(fileChange)),
});

const pendingMessage = obj({ seq: num, role: str, content: str, 'tool_calls?': nullable(arr(llmToolCall)), 'tool_call_id?': str, 'tool_name?': str });
const pendingRequest = obj({ model: str, system: str, options, tools: nullable(arr(str)), messages: nullable(arr(pendingMessage)) });
const checkpoint = obj({
  point: str,
  state: str,
  'call_id?': str,
  'tool?': str,
  'breakpoint?': bool,
  'action?': str,
  'request?': nullable(pendingRequest),
  'args?': json,
  'result?': str,
});

const fitPart = obj({ name: str, tokens: num });
const fit = obj({ needed: num, num_ctx: num, parts: nullable(arr(fitPart)), 'largest?': nullable(fitPart), ways_out: nullable(arr(str)) });

const promptParts = { system: num, tools: num, history: num, new: num };
const split = obj({ ...promptParts, bytes: num, bytes_per_token: num, 'calibrated_by?': num });
const meter = obj({
  prompt: num,
  source: str,
  'counted?': num,
  'output?': num,
  num_ctx: num,
  'loaded?': num,
  parts: obj(promptParts),
  'bytes_per_token?': num,
  'dropped?': bool,
});

const payloads: Record<Kind, Shape> = {
  user_message: obj({ text: str }),
  model_request: obj({
    model: str,
    options,
    'think?': nullable(bool),
    'truncate?': nullable(bool),
    system: str,
    'purpose?': str,
    'compact?': num,
    'instructions?': nullable(obj({ source: str, start: num, len: num, bytes: num, 'cut?': bool })),
    'host?': str,
    'host_name?': str,
    'tool_set?': num,
    'tool_names?': nullable(arr(str)),
    'history_base?': num,
    'history_added?': nullable(arr(num)),
    'tools?': nullable(arr(toolSpec)),
    'history_seqs?': nullable(arr(num)),
    message_count: num,
    prompt_estimate: num,
    'split?': nullable(split),
  }),
  model_response: obj({
    request_seq: num,
    content: str,
    'thinking?': str,
    'tool_calls?': nullable(arr(llmToolCall)),
    done_reason: str,
    incomplete: bool,
    metrics,
    'context?': nullable(meter),
    chunks: num,
    'raw?': json,
    'rescued?': nullable(arr(rescue)),
    'printed?': str,
    'unrecovered?': nullable(obj({ form: str, why: str, text: str })),
  }),
  tool_call: obj({
    call_id: str,
    name: str,
    args: json,
    valid: bool,
    'error_kind?': str,
    'problem?': str,
    read_only: bool,
    'rescue?': nullable(rescue),
  }),
  permission: obj({
    call_id: str,
    tool: str,
    decision: str,
    by: str,
    'reasons?': nullable(arr(str)),
    'summary?': str,
    'display?': nullable(display),
    'once_only?': bool,
    'command?': str,
    'paths?': nullable(arr(str)),
  }),
  tool_result: toolResult,
  notice: obj({ code: str, message: str }),
  error: obj({ code: str, message: str, 'fit?': nullable(fit) }),
  run_end: obj({ reason: str, 'detail?': str, 'final_text?': str, rounds: num }),
  checkpoint,
  edit: obj({ target: str, 'seq?': num, 'call_id?': str, before: json, after: json, 'pause?': nullable(checkpoint) }),
  compaction: obj({
    request_seq: num,
    trigger: str,
    summary: str,
    from_seq: num,
    through_seq: num,
    messages: num,
    from_run: num,
    from_round: num,
    through_run: num,
    through_round: num,
    tokens_before: num,
    tokens_after: num,
  }),
  restore: obj({ to_seq: num, 'run?': num, restored: nullable(arr(str)), 'overwritten?': nullable(arr(str)), 'changes?': nullable(arr(fileChange)) }),
};

const cut = obj({ bytes: num, 'lines?': num });
const envelope = obj({ session_id: str, seq: num, kind: str, time: str, run: num, round: num, payload: json, 'preview?': map(cut) });

/** What does not fit in an event (trace.Event) as events.ts types it; empty when it fits. */
export function eventProblems(v: unknown, path = 'event'): string[] {
  const out: string[] = [];
  envelope(v, path, out);
  if (!isRecord(v)) return out;
  const kind = v['kind'];
  if (typeof kind === 'string' && !(KINDS as readonly string[]).includes(kind)) out.push(`${path}.kind: "${kind}" is not a kind the UI knows`);
  else if (typeof kind === 'string') payloads[kind as Kind](v['payload'], `${path}.payload(${kind})`, out);
  return out;
}

// app.ts and safety.ts
const rule = obj({ effect: str, 'tool?': str, 'command?': str, 'command_line?': str, 'path?': str });
const grant = obj({ rule, scope: str, 'target?': str });
const breakpoints = obj({ points: nullable(arr(str)), tools: nullable(arr(str)) });
const summary = obj({
  id: str,
  title: str,
  workspace: str,
  model: str,
  created_at: str,
  updated_at: str,
  last_reason: str,
  event_count: num,
  open_run: num,
  running: bool,
  standing: oneOf('paused', 'asking', ''),
  stepping: bool,
  breakpoints,
  'tools?': arr(str),
  'host?': str,
  pinned: bool,
  'copied_from?': str,
  rounds: num,
});
const outputPiece = obj({ stream: oneOf('stdout', 'stderr'), text: str });
const delta = obj({
  session_id: str,
  run: num,
  round: num,
  'content?': str,
  'thinking?': str,
  'call_id?': str,
  'output?': arr(outputPiece),
  'omitted?': num,
});
const settings = obj({
  max_rounds: num,
  num_ctx_cap: num,
  temperature: num,
  permission_mode: oneOf('ask_all', 'ask', 'auto'),
  tools: map(oneOf('always', 'ask', 'never')),
  rules: nullable(arr(rule)),
  system_prompt: str,
  step_mode: bool,
  first_token_timeout_s: num,
  stall_timeout_s: num,
  ollama_host: str,
  hosts: nullable(arr(obj({ name: str, url: str }))),
  recover_text_calls: bool,
  repeat_limit: num,
  compact: bool,
  compact_at_percent: num,
  compact_keep_rounds: num,
});
const workspaceSettings = obj({ 'rules?': nullable(arr(rule)), 'commands?': nullable(arr(str)), 'host?': str, 'allow_network?': bool });
const workspaceInfo = obj({
  dir: str,
  trusted: bool,
  has_settings: bool,
  'settings_error?': str,
  settings: workspaceSettings,
  allow_network: bool,
  expose: arr(str),
  grants: nullable(arr(grant)),
});
const restoreResult = obj({ done: bool, restored: nullable(arr(str)), conflicts: nullable(arr(obj({ path: str, reason: str, 'kept?': bool }))) });
const ruleLimits = obj({ 'limits?': nullable(arr(str)), 'path_rules?': nullable(arr(rule)) });

const outcome = obj({ 'summary?': summary, 'restore?': restoreResult, 'compaction?': payloads['compaction']! });
const event: Shape = (v, p, out) => {
  out.push(...eventProblems(v, p));
};
/** session.Detail: what openSession answers. */
const snapshot = obj({ summary, events: arr(event) });

/** The shapes of what the window hears and the commands' answers, by name. */
const renderedPrompt = obj({ model: str, text: str, 'digest?': str, rendered_at: str, seq: num });
const readiness = obj({
  model: str,
  capabilities: nullable(arr(str)),
  context_length: num,
  num_ctx: num,
  fixed_tokens: num,
  system_tokens: num,
  tool_tokens: num,
  tools: nullable(arr(obj({ name: str, tokens: num }))),
  items: arr(obj({ check: oneOf('tools', 'fit', 'round_trip'), status: oneOf('ok', 'warn', 'fail', 'skipped'), detail: str, 'fix?': str })),
  'reply?': obj({ kind: oneOf('call', 'printed', 'none'), content: str, 'calls?': json, 'printed?': json }),
  ready: bool,
});
const instructions = obj({ source: str, start: num, len: num, bytes: num, 'cut?': bool });
const systemPrompt = obj({ text: str, 'instructions?': nullable(instructions), 'notice?': nullable(obj({ code: str, message: str })) });
const modelInfo = obj({
  name: str,
  size: num,
  family: str,
  parameter_size: str,
  quantization: str,
  capabilities: nullable(arr(str)),
  context_length: num,
  modified_at: str,
});
const models = nullable(arr(modelInfo));

export const SHAPES = { summary, outcome, delta, settings, workspaceInfo, restoreResult, ruleLimits, rule, snapshot, systemPrompt, models, renderedPrompt, readiness } as const;

/** What does not fit the named shape; empty when it fits. */
export function shapeProblems(name: keyof typeof SHAPES, v: unknown, path: string = name): string[] {
  const out: string[] = [];
  SHAPES[name](v, path, out);
  return out;
}
