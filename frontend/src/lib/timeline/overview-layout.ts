// The overview's layout: the rounds of a view window placed in a box of
// pixels; when the window holds more rounds than fit, adjacent rounds are
// added up into buckets.
import type { CallFact, GapFact, MarkerFact, MarkerKind, ModelPart, RoundFacts, SubAgentFact } from './overview-facts';
import { MARKER_RANK } from './overview-facts';
import { clampView, type View } from './overview-view';
export interface LayoutOptions {
  /** Pixels along the time axis. */
  width: number;
  /** Pixels along the rounds axis. */
  height: number;
  /** The thinnest a row may be: more rounds than height / minRowPx are bucketed. Default 6. */
  minRowPx?: number;
  /**
   * The longest a wait is drawn (ms of nobody working: a question or a
   * pause while no model or tool runs); the rest of it is cut out of the
   * row, and the gap says so. Default Infinity: every row is to scale.
   */
  gapCapMs?: number;
  /** The current card (live end, the pause, the playback position). */
  current?: string | null;
}

export type SegmentKind = ModelPart | 'tools' | 'wait';

export interface Segment {
  kind: SegmentKind;
  x: number;
  w: number;
  ms: number;
  key: string;
}

export interface CallBar extends CallFact {
  x: number;
  w: number;
}

export interface GapBar extends GapFact {
  x: number;
  w: number;
  /** The wait lasted longer than drawn (gapCapMs). */
  cut: boolean;
}

export interface MarkerBar extends MarkerFact {
  x: number;
  /** For a bucket: how many markers of each kind it holds. */
  count: number;
}

/** A sub-agent's band: its span, and its own parts placed on the row's clock (each jumps to the task call, `key`). */
export interface SubAgentBar extends Omit<SubAgentFact, 'model' | 'calls' | 'gaps' | 'markers'> {
  /** The row's lane it is drawn on (0 is the model's, then the tool lanes). */
  band: number;
  x: number;
  w: number;
  segments: Segment[];
  calls: CallBar[];
  gaps: GapBar[];
  markers: MarkerBar[];
}

export interface OverviewRow {
  /** The card to jump to: the round's request (a bucket's first round's). */
  key: string;
  /** Indexes into the facts of the first and last round in the row (equal for a round). */
  from: number;
  to: number;
  bucket: boolean;
  label: string;
  /** Model time: one row per round (load, prompt, eval, other) or, for a bucket, their sums then the tools' and the waits'. */
  segments: Segment[];
  calls: CallBar[];
  gaps: GapBar[];
  /** A round's markers in time; a bucket's worst marker only, its sub-agents' counted (with the counts in `counts`). */
  markers: MarkerBar[];
  /** The markers of the row, its sub-agents' included. */
  counts: Partial<Record<MarkerKind, number>>;
  /** A round's sub-agents, a band each under its tool lanes (none for a bucket: `subs_n` counts them). */
  subs: SubAgentBar[];
  subs_n: number;
  /** 1 + tool sub-lanes + sub-agent bands for a round, 1 for a bucket. */
  lanes: number;
  /** A round's prompt tokens; a bucket's largest. */
  promptTokens: number | null;
  /** A round's output tokens; a bucket's sum. */
  outputTokens: number | null;
  modelMs: number | null;
  toolMs: number;
  waitMs: number;
  calls_n: number;
  current: boolean;
}

export interface Overview {
  rows: OverviewRow[];
  /** Rounds in the session. */
  total: number;
  /** The window, clamped. */
  view: View;
  /** Rounds per row (1: no buckets). */
  bucketSize: number;
  /** Milliseconds one pixel of width stands for. */
  msPerPx: number;
  /** The round the current card is in, and the row that holds it (null: none, or not in the window). */
  currentRound: number | null;
  currentRow: number | null;
}

/** Intervals merged and sorted. */
function union(spans: { start: number; end: number }[]): { start: number; end: number }[] {
  const s = spans.filter((x) => x.end > x.start).sort((a, b) => a.start - b.start);
  const out: { start: number; end: number }[] = [];
  for (const x of s) {
    const last = out[out.length - 1];
    if (last && x.start <= last.end) last.end = Math.max(last.end, x.end);
    else out.push({ ...x });
  }
  return out;
}

/** a minus b, both merged and sorted. */
function subtract(a: { start: number; end: number }[], b: { start: number; end: number }[]): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (const x of a) {
    let cur = x.start;
    for (const y of b) {
      if (y.end <= cur || y.start >= x.end) continue;
      if (y.start > cur) out.push({ start: cur, end: y.start });
      cur = Math.max(cur, y.end);
    }
    if (cur < x.end) out.push({ start: cur, end: x.end });
  }
  return out;
}

/**
 * The row's clock with long idle waits cut short: the time of a wait in
 * which nothing runs, beyond `cap`, is left out. Returns the mapping from
 * real to drawn ms.
 */
export function waitCutter(f: RoundFacts, cap: number): (t: number) => number {
  if (!Number.isFinite(cap)) return (t) => t;
  const busy = union([
    ...(f.model ? [{ start: 0, end: f.model.load + f.model.prompt + f.model.eval + f.model.other }] : []),
    ...f.calls.map((c) => ({ start: c.startMs, end: c.startMs + c.durMs })),
  ]);
  const idle = subtract(union(f.gaps.map((g) => ({ start: g.startMs, end: g.endMs }))), busy).filter((x) => x.end - x.start > cap);
  return (t) => {
    let out = t;
    for (const x of idle) out -= Math.min(Math.max(t - (x.start + cap), 0), x.end - x.start - cap);
    return out;
  };
}

const MODEL_PARTS: ModelPart[] = ['load', 'prompt', 'eval', 'other'];

interface Draft {
  row: Omit<OverviewRow, 'segments' | 'calls' | 'gaps' | 'markers' | 'subs'>;
  spanMs: number;
  place: (msPerPx: number) => Pick<OverviewRow, 'segments' | 'calls' | 'gaps' | 'markers' | 'subs'>;
}

function modelMs(f: RoundFacts): number | null {
  return f.model ? f.model.load + f.model.prompt + f.model.eval + f.model.other : null;
}

function roundDraft(f: RoundFacts, i: number, cap: number, current: boolean): Draft {
  const cut = waitCutter(f, cap);
  const toolMs = f.calls.reduce((s, c) => s + c.durMs, 0);
  const waitMs = union(f.gaps.map((g) => ({ start: g.startMs, end: g.endMs }))).reduce((s, x) => s + x.end - x.start, 0);
  const counts: Partial<Record<MarkerKind, number>> = {};
  for (const m of f.markers) counts[m.kind] = (counts[m.kind] ?? 0) + 1;
  for (const x of f.subs) for (const m of x.markers) counts[m.kind] = (counts[m.kind] ?? 0) + 1;
  return {
    row: {
      key: f.key,
      from: i,
      to: i,
      bucket: false,
      label: f.round === 0 ? `Run ${f.run}, before round 1` : `Run ${f.run}, round ${f.round}`,
      counts,
      subs_n: f.subs.length,
      lanes: 1 + f.toolLanes + f.subLanes,
      promptTokens: f.promptTokens,
      outputTokens: f.outputTokens,
      modelMs: modelMs(f),
      toolMs,
      waitMs,
      calls_n: f.calls.length,
      current,
    },
    spanMs: cut(f.endMs),
    place: (k) => {
      const segments: Segment[] = [];
      let at = 0;
      if (f.model) {
        for (const part of MODEL_PARTS) {
          const ms = f.model[part];
          if (ms > 0) segments.push({ kind: part, x: cut(at) / k, w: (cut(at + ms) - cut(at)) / k, ms, key: f.modelKey ?? f.key });
          at += ms;
        }
      }
      const calls = (cs: readonly CallFact[]): CallBar[] => cs.map((c) => ({ ...c, x: cut(c.startMs) / k, w: (cut(c.startMs + c.durMs) - cut(c.startMs)) / k }));
      const gaps = (gs: readonly GapFact[]): GapBar[] =>
        gs.map((g) => ({ ...g, x: cut(g.startMs) / k, w: (cut(g.endMs) - cut(g.startMs)) / k, cut: cut(g.endMs) - cut(g.startMs) < g.endMs - g.startMs - 1e-9 }));
      const markers = (ms: readonly MarkerFact[]): MarkerBar[] => ms.map((m) => ({ ...m, x: cut(m.atMs) / k, count: 1 }));
      return {
        segments,
        calls: calls(f.calls),
        gaps: gaps(f.gaps),
        markers: markers(f.markers),
        subs: f.subs.map(({ model, ...x }) => ({
          ...x,
          band: 1 + f.toolLanes + x.lane,
          x: cut(x.startMs) / k,
          w: (cut(x.endMs) - cut(x.startMs)) / k,
          segments: model.map((s) => ({ kind: s.kind, x: cut(s.startMs) / k, w: (cut(s.startMs + s.ms) - cut(s.startMs)) / k, ms: s.ms, key: x.key })),
          calls: calls(x.calls),
          gaps: gaps(x.gaps),
          markers: markers(x.markers),
        })),
      };
    },
  };
}

function worst(ms: readonly MarkerFact[]): MarkerFact | undefined {
  let w: MarkerFact | undefined;
  for (const m of ms) if (!w || MARKER_RANK[m.kind] > MARKER_RANK[w.kind]) w = m;
  return w;
}

function bucketDraft(facts: readonly RoundFacts[], from: number, to: number, cap: number, current: boolean): Draft {
  const parts: Record<ModelPart, number> = { load: 0, prompt: 0, eval: 0, other: 0 };
  let anyModel = false;
  let toolMs = 0;
  let waitMs = 0;
  let waitShown = 0;
  let prompt: number | null = null;
  let output: number | null = null;
  let calls = 0;
  let subs = 0;
  const counts: Partial<Record<MarkerKind, number>> = {};
  const all: MarkerFact[] = [];
  for (let i = from; i <= to; i++) {
    const f = facts[i]!;
    if (f.model) {
      anyModel = true;
      for (const p of MODEL_PARTS) parts[p] += f.model[p];
    }
    toolMs += f.calls.reduce((s, c) => s + c.durMs, 0);
    calls += f.calls.length;
    const cut = waitCutter(f, cap);
    for (const g of union(f.gaps.map((x) => ({ start: x.startMs, end: x.endMs })))) {
      waitMs += g.end - g.start;
      waitShown += cut(g.end) - cut(g.start);
    }
    if (f.promptTokens != null) prompt = Math.max(prompt ?? 0, f.promptTokens);
    if (f.outputTokens != null) output = (output ?? 0) + f.outputTokens;
    subs += f.subs.length;
    // A sub-agent's marker stands for its bucket too: it jumps to the task call.
    for (const m of [...f.markers, ...f.subs.flatMap((x) => x.markers)]) {
      counts[m.kind] = (counts[m.kind] ?? 0) + 1;
      all.push(m);
    }
  }
  const first = facts[from]!;
  const last = facts[to]!;
  const runs = first.run === last.run ? `Run ${first.run}` : `Runs ${first.run}–${last.run}`;
  const w = worst(all);
  const modelSum = MODEL_PARTS.reduce((s, p) => s + parts[p], 0);
  return {
    row: {
      key: first.key,
      from,
      to,
      bucket: true,
      label: `${runs}, ${to - from + 1} rounds (${first.run}.${first.round}–${last.run}.${last.round})`,
      counts,
      subs_n: subs,
      lanes: 1,
      promptTokens: prompt,
      outputTokens: output,
      modelMs: anyModel ? modelSum : null,
      toolMs,
      waitMs,
      calls_n: calls,
      current,
    },
    spanMs: modelSum + toolMs + waitShown,
    place: (k) => {
      const segments: Segment[] = [];
      let at = 0;
      const add = (kind: SegmentKind, ms: number, shown = ms) => {
        if (shown <= 0) return;
        segments.push({ kind, x: at / k, w: shown / k, ms, key: first.key });
        at += shown;
      };
      for (const p of MODEL_PARTS) add(p, parts[p]);
      add('tools', toolMs);
      add('wait', waitMs, waitShown);
      return { segments, calls: [], gaps: [], markers: w ? [{ ...w, x: 0, count: counts[w.kind] ?? 1 }] : [], subs: [] };
    },
  };
}

/**
 * Lays out the rounds of the window. Rows are rounds, or buckets of
 * adjacent rounds when more rounds are in the window than height / minRowPx
 * rows fit (never more rows than that). Every row shares one time scale, so
 * bars compare across rows; a round's row starts at its request.
 */
export function layoutOverview(facts: readonly RoundFacts[], view: View, opts: LayoutOptions, index?: ReadonlyMap<string, number>): Overview {
  const total = facts.length;
  const v = clampView(view, total);
  const width = Math.max(1, opts.width);
  const slots = Math.max(1, Math.floor(Math.max(1, opts.height) / Math.max(1, opts.minRowPx ?? 6)));
  const size = v.count <= slots ? 1 : Math.ceil(v.count / slots);
  const cap = opts.gapCapMs ?? Infinity;
  let currentRound: number | null = null;
  if (opts.current != null) {
    const found = index ? index.get(opts.current) : facts.findIndex((f) => f.cards.includes(opts.current!));
    currentRound = found != null && found >= 0 ? found : null;
  }
  const drafts: Draft[] = [];
  for (let from = v.first; from < v.first + v.count; from += size) {
    const to = Math.min(v.first + v.count - 1, from + size - 1);
    const cur = currentRound != null && currentRound >= from && currentRound <= to;
    drafts.push(size === 1 ? roundDraft(facts[from]!, from, cap, cur) : bucketDraft(facts, from, to, cap, cur));
  }
  const span = Math.max(1, ...drafts.map((d) => d.spanMs));
  const msPerPx = span / width;
  const rows = drafts.map((d) => ({ ...d.row, ...d.place(msPerPx) }));
  const currentRow = rows.findIndex((r) => r.current);
  return { rows, total, view: v, bucketSize: size, msPerPx, currentRound, currentRow: currentRow >= 0 ? currentRow : null };
}
