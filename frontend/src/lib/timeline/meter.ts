// The context meter's view-model: a request's prompt against the context,
// split by part, from what the backend recorded (the request's split, the
// answer's meter: trace/meter.go computes both). Pure; ContextMeter draws
// it. Nothing here estimates or calibrates: it reads the recorded numbers
// and works out shares and words.
import type { MeterSource, ModelRequestPayload, ModelResponsePayload, PromptParts } from '../types';
import { HIGH_SHARE, levelOf, type ContextLevel } from './context';
import type { RunGroup } from './group';
import { formatCount } from './metrics';

export type PartKey = keyof PromptParts;

export interface MeterPart {
  key: PartKey;
  label: string;
  tokens: number;
  /** Of the context (0..1); null when the context is not known. */
  share: number | null;
}

export interface MeterView {
  /** Tokens the prompt takes. */
  total: number;
  /** total is Ollama's count (or built on it); false: Loupe's estimate, the answer has not come. */
  measured: boolean;
  source: MeterSource;
  /** Ollama's prompt_eval_count as reported, when there is one. */
  counted: number | null;
  /** The answer's tokens. */
  output: number | null;
  /** The context that counts: what Ollama allocated, else num_ctx. */
  context: number | null;
  numCtx: number | null;
  /** What /api/ps said Ollama allocated; null: not known. */
  loaded: number | null;
  /** Ollama allocated another context than num_ctx. */
  allocatedDiffers: boolean;
  share: number | null;
  level: ContextLevel;
  /** The parts in the order they sit in the prompt (estimated; they add up to total). */
  parts: MeterPart[];
  /** What the tool schemas cost, in tokens, and how many tools. */
  tools: { tokens: number; count: number };
  /** Bytes per token the split was estimated at, and whether the session's own counts set it. */
  bytesPerToken: number | null;
  calibrated: boolean;
  /** Ollama probably dropped part of the prompt. */
  dropped: boolean;
}

const LABELS: Record<PartKey, string> = {
  system: 'System prompt',
  tools: 'Tool schemas',
  history: 'History',
  new: 'New observations',
};
export const PART_ORDER: readonly PartKey[] = ['system', 'tools', 'history', 'new'];

/** The meter of one request: its answer's meter when it has one, else the request's estimate. */
export function requestMeter(req: ModelRequestPayload, resp?: ModelResponsePayload | null): MeterView | null {
  const m = resp?.context ?? null;
  const split = req.split ?? null;
  const toolCount = req.tool_names?.length ?? req.tools?.length ?? 0;
  if (!m && !split) return null;
  const parts: PromptParts = m ? m.parts : split!;
  const total = m ? m.prompt : req.prompt_estimate;
  const numCtx = (m?.num_ctx ?? req.options.num_ctx) || null;
  const loaded = m?.loaded && m.loaded > 0 ? m.loaded : null;
  const context = loaded ?? numCtx;
  const share = context ? total / context : null;
  const measured = m != null && m.source !== 'estimate';
  return {
    total,
    measured,
    source: (m?.source ?? 'estimate') as MeterSource,
    counted: m?.counted && m.counted > 0 ? m.counted : null,
    output: m?.output && m.output > 0 ? m.output : null,
    context,
    numCtx,
    loaded,
    allocatedDiffers: loaded != null && numCtx != null && loaded !== numCtx,
    share,
    level: levelOf(total, context),
    parts: PART_ORDER.map((key) => ({ key, label: LABELS[key], tokens: parts[key], share: context ? parts[key] / context : null })),
    tools: { tokens: parts.tools, count: toolCount },
    bytesPerToken: split ? split.bytes_per_token : null,
    calibrated: split?.calibrated_by != null && split.calibrated_by > 0,
    dropped: m?.dropped === true,
  };
}

export interface SessionMeterView {
  /** The latest request's meter: what the next request builds on. */
  latest: MeterView;
  /** Run and round of the latest request. */
  run: number;
  round: number;
  /** The fullest request of the session, by share of its context. */
  peak: { share: number; total: number; context: number; run: number; round: number } | null;
  /** How many requests reached HIGH_SHARE of their context. */
  high: number;
  requests: number;
  /** What the session's sub-agents took: counted in the session's totals, never in its own context. */
  subAgents: { count: number; prompt: number; eval: number };
}

/** The session's meter: its latest request, the fullest one, and how many were nearly full. */
export function sessionMeter(runs: readonly RunGroup[]): SessionMeterView | null {
  let latest: SessionMeterView['latest'] | null = null;
  let at = { run: 0, round: 0 };
  let peak: SessionMeterView['peak'] = null;
  let high = 0;
  let requests = 0;
  const subAgents = { count: 0, prompt: 0, eval: 0 };
  for (const run of runs) {
    for (const g of run.rounds) {
      for (const it of g.items) {
        if (it.kind !== 'call' || !it.sub) continue;
        for (const e of it.sub.events) {
          if (e.kind !== 'model_response') continue;
          subAgents.prompt += e.payload.metrics?.prompt_eval_count ?? 0;
          subAgents.eval += e.payload.metrics?.eval_count ?? 0;
        }
        subAgents.count++;
      }
      if (!g.request) continue;
      const v = requestMeter(g.request.payload, g.response?.payload);
      if (!v) continue;
      requests++;
      latest = v;
      at = { run: run.run, round: g.round };
      if (v.share != null && v.share >= HIGH_SHARE) high++;
      if (v.share != null && v.context != null && (peak == null || v.share > peak.share)) {
        peak = { share: v.share, total: v.total, context: v.context, run: run.run, round: g.round };
      }
    }
  }
  return latest ? { latest, ...at, peak, high, requests, subAgents } : null;
}

/** "4,120 of 16,384 tokens (25%)". */
export function meterLine(v: MeterView): string {
  const of = v.context != null ? ` of ${formatCount(v.context)}` : '';
  const pct = v.share != null ? ` (${percent(v.share)})` : '';
  return `${formatCount(v.total)}${of} tokens${pct}`;
}

/** Where the total comes from, in words. */
export function totalNote(v: MeterView): string {
  switch (v.source) {
    case 'ollama':
      return "Ollama's count (prompt_eval_count)";
    case 'cache':
      return `Ollama counted only the ${formatCount(v.counted)} tokens it did not have cached; Loupe adds the previous prompt and answer, so this is at most what the context holds`;
    default:
      return v.measured ? '' : "Loupe's estimate: Ollama's count comes with the answer";
  }
}

/** What the split is, in words: estimated, from what. */
export function splitNote(v: MeterView): string {
  const rate = v.bytesPerToken != null ? `${+v.bytesPerToken.toFixed(1)} bytes a token` : 'about 4 bytes a token';
  const from = v.calibrated ? "this session's own earlier counts" : 'the default (no count from this model yet)';
  return v.measured
    ? `Split estimated: each part's share of the size sent, scaled to Ollama's total (${rate}, from ${from}).`
    : `Estimated from the size of each part sent, at ${rate} (${from}).`;
}

/** What the allocated context means, when Ollama said another than num_ctx. */
export function allocatedNote(v: MeterView): string {
  if (!v.allocatedDiffers || v.loaded == null || v.numCtx == null) return '';
  return `Ollama allocated ${formatCount(v.loaded)} tokens, not the num_ctx ${formatCount(v.numCtx)} asked for: the meter counts against ${formatCount(v.loaded)}.`;
}

/** The ways out when the context is nearly full, a sentence each. */
export const WAYS_OUT: readonly string[] = [
  'Compact the conversation: older turns summarised, the latest kept.',
  'Raise num_ctx in Settings, within what the model and this machine can hold.',
  'Drop old tool outputs (a long read or command output) at a pause.',
  'Offer fewer tools: every schema is sent with every request.',
];

/** The warning's first sentence, when there is one. */
export function warning(v: MeterView): string {
  if (v.dropped) return 'Ollama probably dropped part of this prompt to fit the context.';
  if (v.level === 'full') return 'The prompt fills the whole context: Ollama has no room to answer.';
  if (v.level === 'high') return `The prompt takes ${percent(v.share ?? HIGH_SHARE)} of the context: the next rounds may not fit.`;
  return '';
}

export function percent(share: number): string {
  const p = share * 100;
  return `${p > 0 && p < 1 ? '<1' : Math.round(p)}%`;
}
