// How full the model's context was, per request: the prompt tokens Ollama
// counted (prompt_eval_count of the answer) against the context window the
// request asked for (its options' num_ctx), or, when a request did not
// record one, the model's context length. Pure; ContextChart draws it.
import type { RunGroup } from './group';
import { countOf, formatCount } from './metrics';

/** From this share of num_ctx on, a request is flagged as nearly full. */
export const HIGH_SHARE = 0.8;

/**
 * unknown: no count (no answer yet, or Ollama reported none) or no window;
 * full: the prompt filled the window, so Ollama most likely cut it (it
 * keeps the prompt within num_ctx by dropping from the start).
 */
export type ContextLevel = 'unknown' | 'ok' | 'high' | 'full';

export interface ContextPoint {
  /** The request's card. */
  key: string;
  /** The answer's card, when there is one. */
  responseKey: string | null;
  seq: number;
  run: number;
  round: number;
  model: string;
  /** Ollama's count; null when unknown (never 0 for unknown). */
  promptTokens: number | null;
  /** Loupe's own estimate (about 4 bytes a token), known for every request. */
  estimate: number | null;
  outputTokens: number | null;
  numCtx: number | null;
  /** Where numCtx comes from: what Ollama allocated (/api/ps), the request's num_ctx, the model's length. */
  numCtxFrom: 'allocated' | 'request' | 'model' | null;
  /** promptTokens / numCtx. */
  share: number | null;
  level: ContextLevel;
}

export interface ContextOptions {
  /** The model's context length, when known (ModelInfo.context_length). */
  contextLength?: (model: string) => number | null | undefined;
}

export function levelOf(prompt: number | null, numCtx: number | null): ContextLevel {
  if (prompt == null || numCtx == null || numCtx <= 0) return 'unknown';
  if (prompt >= numCtx) return 'full';
  if (prompt >= HIGH_SHARE * numCtx) return 'high';
  return 'ok';
}

/** One point per model request of the runs, in order. */
export function contextPoints(runs: readonly RunGroup[], opts: ContextOptions = {}): ContextPoint[] {
  const out: ContextPoint[] = [];
  for (const run of runs) {
    for (const g of run.rounds) {
      const req = g.request;
      if (!req) continue;
      const resp = g.response;
      const m = resp?.payload.metrics;
      // The answer's context meter, when the log has one: its total (a
      // count of only the uncached tokens made whole) and the context
      // Ollama allocated are what the request really took.
      const meter = resp?.payload.context;
      // A prompt is never empty (there is a system message): 0 means Ollama sent no count.
      const promptTokens =
        meter && meter.source !== 'estimate' ? meter.prompt : m && m.prompt_eval_count > 0 ? m.prompt_eval_count : null;
      const asked = req.payload.options?.num_ctx;
      let numCtx: number | null = null;
      let numCtxFrom: ContextPoint['numCtxFrom'] = null;
      if (meter?.loaded != null && meter.loaded > 0) {
        numCtx = meter.loaded;
        numCtxFrom = 'allocated';
      } else if (asked != null && asked > 0) {
        numCtx = asked;
        numCtxFrom = 'request';
      } else {
        const len = opts.contextLength?.(req.payload.model);
        if (len != null && len > 0) {
          numCtx = len;
          numCtxFrom = 'model';
        }
      }
      out.push({
        key: `e:${req.seq}`,
        responseKey: resp ? `e:${resp.seq}` : null,
        seq: req.seq,
        run: req.run,
        round: req.round,
        model: req.payload.model,
        promptTokens,
        estimate: req.payload.prompt_estimate > 0 ? req.payload.prompt_estimate : null,
        outputTokens: m && m.total_duration > 0 ? m.eval_count : null,
        numCtx,
        numCtxFrom,
        share: promptTokens != null && numCtx != null ? promptTokens / numCtx : null,
        level: levelOf(promptTokens, numCtx),
      });
    }
  }
  return out;
}

// --- the chart's layout ---------------------------------------------------------------

export interface ChartOptions {
  width: number;
  height: number;
  /** The narrowest a bar may be: more requests than width / minBarPx share bars. Default 3. */
  minBarPx?: number;
}

const RANK: Record<ContextLevel, number> = { unknown: 0, ok: 1, high: 2, full: 3 };

export interface ContextBar {
  /** The point drawn: a bar's fullest request. */
  point: ContextPoint;
  /** Indexes of the first and last request in the bar. */
  from: number;
  to: number;
  x: number;
  w: number;
  /** Top of the bar (0 is the top of the chart); for an unknown count, the estimate's, drawn apart. */
  y: number;
  h: number;
  /** Where the bar's num_ctx line is (null: none known). */
  ctxY: number | null;
  /** The worst level in the bar. */
  level: ContextLevel;
  /** The bar's height is Loupe's estimate, not Ollama's count. */
  estimated: boolean;
}

export interface ContextChartLayout {
  bars: ContextBar[];
  /** Tokens at the top of the chart. */
  max: number;
  /** Requests per bar. */
  perBar: number;
  /** The num_ctx line as SVG path data, a step per change. */
  ctxPath: string;
  /** The line at HIGH_SHARE of num_ctx. */
  highPath: string;
}

export function chartLayout(points: readonly ContextPoint[], opts: ChartOptions): ContextChartLayout {
  const width = Math.max(1, opts.width);
  const height = Math.max(1, opts.height);
  const slots = Math.max(1, Math.floor(width / Math.max(1, opts.minBarPx ?? 3)));
  const perBar = points.length <= slots ? 1 : Math.ceil(points.length / slots);
  const max = Math.max(1, ...points.map((p) => Math.max(p.promptTokens ?? p.estimate ?? 0, p.numCtx ?? 0)));
  const n = Math.ceil(points.length / perBar);
  const w = n > 0 ? width / n : width;
  const yOf = (tokens: number) => height - (tokens / max) * height;
  const bars: ContextBar[] = [];
  for (let b = 0; b < n; b++) {
    const from = b * perBar;
    const to = Math.min(points.length - 1, from + perBar - 1);
    let pick = points[from]!;
    let level: ContextLevel = pick.level;
    for (let i = from; i <= to; i++) {
      const p = points[i]!;
      if (RANK[p.level] > RANK[level]) level = p.level;
      if ((p.promptTokens ?? -1) > (pick.promptTokens ?? -1) || (p.promptTokens == null && pick.promptTokens == null && (p.estimate ?? 0) > (pick.estimate ?? 0))) pick = p;
    }
    const estimated = pick.promptTokens == null;
    const tokens = pick.promptTokens ?? pick.estimate ?? 0;
    const y = yOf(tokens);
    bars.push({ point: pick, from, to, x: b * w, w, y, h: height - y, ctxY: pick.numCtx != null ? yOf(pick.numCtx) : null, level, estimated });
  }
  const pathOf = (share: number): string => {
    let d = '';
    let prev: number | null = null;
    for (const bar of bars) {
      if (bar.point.numCtx == null) {
        prev = null;
        continue;
      }
      const y = +yOf(bar.point.numCtx * share).toFixed(2);
      d += prev == null ? `M${+bar.x.toFixed(2)},${y}` : prev !== y ? `V${y}` : '';
      d += `H${+(bar.x + bar.w).toFixed(2)}`;
      prev = y;
    }
    return d;
  };
  return { bars, max, perBar, ctxPath: pathOf(1), highPath: pathOf(HIGH_SHARE) };
}

/** What a bar says when asked, a line each. */
export function describeContext(bar: ContextBar): string[] {
  const p = bar.point;
  const lines = [bar.to > bar.from ? `Requests ${bar.from + 1}–${bar.to + 1}, the fullest: run ${p.run}, round ${p.round}` : `Run ${p.run}, round ${p.round}`];
  const of = p.numCtx != null ? ` of ${formatCount(p.numCtx)}` : '';
  if (p.promptTokens != null) {
    lines.push(`Prompt: ${countOf(p.promptTokens, 'token')}${of}${p.share != null ? ` (${Math.round(p.share * 100)}%)` : ''}`);
  } else {
    lines.push(`Prompt: unknown (Ollama gave no count)${p.estimate != null ? `; Loupe's estimate ${formatCount(p.estimate)}${of}` : ''}`);
  }
  if (p.outputTokens != null) lines.push(`Output: ${countOf(p.outputTokens, 'token')}`);
  lines.push(
    p.numCtx == null
      ? 'num_ctx: unknown'
      : p.numCtxFrom === 'allocated'
        ? `Context ${formatCount(p.numCtx)} (allocated by Ollama)`
        : `num_ctx ${formatCount(p.numCtx)} (${p.numCtxFrom === 'request' ? 'set on the request' : "the model's context length"})`,
  );
  if (bar.level === 'full') lines.push('Full: Ollama most likely cut the prompt to fit num_ctx');
  else if (bar.level === 'high') lines.push(`Nearly full: ${Math.round(HIGH_SHARE * 100)}% or more of num_ctx`);
  return lines;
}
