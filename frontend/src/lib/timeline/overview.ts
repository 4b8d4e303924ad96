// The session drawn as a timeline: one row per round (run N, round M) with
// the model's time split as Ollama reports it (load, prompt evaluation,
// generation), a bar per tool call (calls in flight together on separate
// sub-lanes), the waits for a person (a question, a pause) and markers for
// what went wrong or was changed. Pure: the layout is numbers in pixels, the
// component only draws them.
//
// Two steps: roundFacts reads each round once (times in ms from the round's
// start, no pixels); layoutOverview places the rounds of a view window in a
// box of pixels, and when the window holds more rounds than fit, adds
// adjacent rounds up into buckets.
import type { CheckpointEvent, PermissionEvent, TraceEvent } from '../types';
import type { CallItem, RoundGroup, RunGroup, StepItem } from './group';
import { formatCount, formatDuration, nsToMs } from './metrics';

/** What a marker says happened; the worst one of a bucket is the one shown. */
export type MarkerKind = 'error' | 'denied' | 'tool_error' | 'retry' | 'notice' | 'edit';

/** Higher is worse. */
export const MARKER_RANK: Readonly<Record<MarkerKind, number>> = {
  error: 6,
  denied: 5,
  tool_error: 4,
  retry: 3,
  notice: 2,
  edit: 1,
};

export type ModelPart = 'load' | 'prompt' | 'eval' | 'other';

/** One round as the log tells it; times are ms from the round's start (its request). */
export interface RoundFacts {
  /** The card to jump to for the round: its request, else its first card. */
  key: string;
  run: number;
  round: number;
  /** Every card of the round (what nav.flattenCards lists for it). */
  cards: string[];
  /** The round's start, ms since the epoch (NaN when the log has no times). */
  start: number;
  /** Ollama's own durations, in ms; null before the response (or with no metrics). */
  model: Record<ModelPart, number> | null;
  /** The card the model's bars jump to: the response, else the request. */
  modelKey: string | null;
  calls: CallFact[];
  gaps: GapFact[];
  markers: MarkerFact[];
  /** prompt_eval_count; null when unknown (no response, or Ollama reported none). */
  promptTokens: number | null;
  outputTokens: number | null;
  /** The last thing that happened in the round. */
  endMs: number;
  /** Tool sub-lanes used (0 with no calls). */
  toolLanes: number;
}

export type CallStatus = 'ok' | 'error' | 'denied' | 'invalid' | 'running' | 'waiting';

export interface CallFact {
  key: string;
  /** The observation card, once the result is in. */
  obsKey: string | null;
  name: string;
  status: CallStatus;
  /** When it started: its allowing decision (taken as it starts), else its tool_call. */
  startMs: number;
  /** How long the tool ran (duration_ms); for a call still running, until now. */
  durMs: number;
  /** Until its result was recorded (results are recorded in call order). */
  settledMs: number;
  /** 0-based sub-lane among the round's tool lanes. */
  lane: number;
}

export interface GapFact {
  kind: 'permission' | 'pause';
  key: string;
  startMs: number;
  endMs: number;
  /** In words: what was asked, or where and why it paused. */
  reason: string;
  /** Still waiting. */
  open: boolean;
}

export interface MarkerFact {
  kind: MarkerKind;
  key: string;
  atMs: number;
  label: string;
}

export interface FactsOptions {
  /**
   * The session's events (those shown), for the questions: group.ts keeps
   * only a call's answer, and the wait lasts from the question (a
   * permission with decision "ask") to it. Without them no permission wait
   * is drawn.
   */
  events?: readonly TraceEvent[];
  /** What "now" is for a wait or a call still going (ms since the epoch); by default the round's last event. */
  now?: number;
  /**
   * Facts of ended runs kept by run object: buildTimeline returns an
   * unchanged run as the same object, so a long session reads only the
   * run that is going. The caller owns it (one per component).
   */
  cache?: WeakMap<RunGroup, RoundFacts[]>;
}

const time = (e: { time: string } | undefined): number => (e ? Date.parse(e.time) : NaN);

function pauseReason(p: CheckpointEvent, resumed: CheckpointEvent | undefined): string {
  const where: Record<string, string> = {
    before_request: 'before the request',
    after_response: 'after the response',
    before_tool: `before ${p.payload.tool ?? 'the call'}`,
    after_result: `after the result of ${p.payload.tool ?? 'the call'}`,
  };
  const why = p.payload.breakpoint ? 'breakpoint' : 'stepping';
  const how = resumed ? `, then ${resumed.payload.action ?? 'resumed'}` : ', still paused';
  return `Paused ${where[p.payload.point] ?? `at ${p.payload.point}`} (${why})${how}`;
}

function askReason(ask: PermissionEvent, answer: PermissionEvent | undefined): string {
  const what = ask.payload.summary || ask.payload.tool;
  const why = (ask.payload.reasons ?? []).join('; ');
  const ans = answer ? (answer.payload.decision === 'deny' ? ', denied' : ', allowed') + (answer.payload.by ? ` by ${answer.payload.by}` : '') : ', waiting for you';
  return `Asked: ${what}${why ? ` (${why})` : ''}${ans}`;
}

/** Gives each interval the lowest lane free at its start; returns the lanes, in input order, and how many. */
export function assignLanes(spans: readonly { start: number; end: number }[]): { lanes: number[]; count: number } {
  const order = spans.map((_, i) => i).sort((a, b) => spans[a]!.start - spans[b]!.start || a - b);
  const laneEnd: number[] = [];
  const lanes = new Array<number>(spans.length).fill(0);
  for (const i of order) {
    const s = spans[i]!;
    let l = laneEnd.findIndex((end) => end <= s.start);
    if (l < 0) {
      l = laneEnd.length;
      laneEnd.push(s.end);
    } else laneEnd[l] = s.end;
    lanes[i] = l;
  }
  return { lanes, count: laneEnd.length };
}

/** The questions of the log by run and call id (the first ask of each). */
function asksOf(events: readonly TraceEvent[] | undefined): Map<string, PermissionEvent> {
  const m = new Map<string, PermissionEvent>();
  for (const e of events ?? []) {
    if (e.kind === 'permission' && e.payload.decision === 'ask') {
      const k = `${e.run}:${e.payload.call_id}`;
      if (!m.has(k)) m.set(k, e);
    }
  }
  return m;
}

function roundCards(g: RoundGroup): string[] {
  const out: string[] = [];
  for (const it of g.items) {
    out.push(it.key);
    if (it.kind === 'call') {
      for (const s of it.before) out.push(s.key);
      if (it.result) out.push(`obs:${it.key}`);
      for (const s of it.after) out.push(s.key);
    }
  }
  return out;
}

function factsOf(run: RunGroup, g: RoundGroup, asks: Map<string, PermissionEvent>, now: number | undefined): RoundFacts {
  const cards = roundCards(g);
  // The round starts at its request; round 0 (before the first request) at its first event.
  const times: number[] = [];
  const note = (t: number) => {
    if (Number.isFinite(t)) times.push(t);
  };
  const steps: StepItem[] = [];
  for (const it of g.items) {
    if (it.kind === 'call') {
      note(time(it.call));
      note(time(it.permission));
      note(time(it.result));
      steps.push(...it.before, ...it.after);
    } else {
      note(time(it.event));
      if (it.kind === 'checkpoint') {
        note(time(it.resumed));
        steps.push(it);
      } else if (it.kind === 'edit') steps.push(it);
    }
  }
  for (const s of steps) {
    note(time(s.event));
    if (s.kind === 'checkpoint') note(time(s.resumed));
  }
  const start = g.request ? time(g.request) : times.length ? Math.min(...times) : NaN;
  const last = times.length ? Math.max(...times) : start;
  const nowAt = now ?? last;
  const rel = (t: number): number => (Number.isFinite(t) && Number.isFinite(start) ? Math.max(0, t - start) : 0);

  const m = g.response?.payload.metrics;
  let model: RoundFacts['model'] = null;
  if (m && m.total_duration > 0) {
    const load = nsToMs(Math.max(0, m.load_duration));
    const prompt = nsToMs(Math.max(0, m.prompt_eval_duration));
    const ev = nsToMs(Math.max(0, m.eval_duration));
    const total = nsToMs(m.total_duration);
    model = { load, prompt, eval: ev, other: Math.max(0, total - load - prompt - ev) };
  }
  const modelEnd = model ? model.load + model.prompt + model.eval + model.other : 0;

  const markers: MarkerFact[] = [];
  const gaps: GapFact[] = [];
  const calls: CallFact[] = [];
  for (const it of g.items) {
    if (it.kind === 'error') markers.push({ kind: 'error', key: it.key, atMs: rel(time(it.event)), label: `Error (${it.event.payload.code}): ${it.event.payload.message}` });
    if (it.kind === 'notice') {
      const retry = it.event.payload.code === 'retry';
      markers.push({
        kind: retry ? 'retry' : 'notice',
        key: it.key,
        atMs: rel(time(it.event)),
        label: `${retry ? 'Retry' : `Notice (${it.event.payload.code})`}: ${it.event.payload.message}`,
      });
    }
    if (it.kind === 'call') calls.push(callFact(run, it, asks, rel, nowAt, gaps, markers));
  }
  for (const s of steps) {
    if (s.kind === 'edit') {
      markers.push({ kind: 'edit', key: s.key, atMs: rel(time(s.event)), label: `You edited the ${s.event.payload.target}` });
    } else if (s.event.payload.state === 'paused') {
      const end = s.resumed ? time(s.resumed) : nowAt;
      gaps.push({ kind: 'pause', key: s.key, startMs: rel(time(s.event)), endMs: rel(end), reason: pauseReason(s.event, s.resumed), open: !s.resumed });
    }
  }
  const { lanes, count } = assignLanes(calls.map((c) => ({ start: c.startMs, end: Math.max(c.startMs + c.durMs, c.settledMs) })));
  calls.forEach((c, i) => (c.lane = lanes[i]!));
  markers.sort((a, b) => a.atMs - b.atMs);
  gaps.sort((a, b) => a.startMs - b.startMs);

  const ends = [modelEnd, rel(last), ...calls.map((c) => c.startMs + c.durMs), ...gaps.map((x) => x.endMs), ...markers.map((x) => x.atMs)];
  const key = g.request ? `e:${g.request.seq}` : (cards[0] ?? g.key);
  return {
    key,
    run: g.run,
    round: g.round,
    cards,
    start,
    model,
    modelKey: g.response ? `e:${g.response.seq}` : g.request ? `e:${g.request.seq}` : null,
    calls,
    gaps,
    markers,
    promptTokens: m && m.prompt_eval_count > 0 ? m.prompt_eval_count : null,
    outputTokens: m && (m.eval_count > 0 || m.total_duration > 0) ? m.eval_count : null,
    endMs: Math.max(...ends),
    toolLanes: count,
  };
}

function callFact(
  run: RunGroup,
  c: CallItem,
  asks: Map<string, PermissionEvent>,
  rel: (t: number) => number,
  now: number,
  gaps: GapFact[],
  markers: MarkerFact[],
): CallFact {
  const obsKey = c.result ? `obs:${c.key}` : null;
  const denied = c.permission?.payload.decision === 'deny';
  const ask = asks.get(`${run.run}:${c.callId}`);
  if (ask) {
    gaps.push({
      kind: 'permission',
      key: c.key,
      startMs: rel(time(ask)),
      endMs: rel(c.permission ? time(c.permission) : now),
      reason: askReason(ask, c.permission),
      open: !c.permission,
    });
  }
  const began = c.permission && !denied ? time(c.permission) : time(c.call ?? c.result);
  const startMs = rel(began);
  let status: CallStatus;
  let durMs = 0;
  if (c.result) {
    durMs = Math.max(0, c.result.payload.duration_ms);
    const kind = c.result.payload.error_kind;
    status = denied || kind === 'denied' ? 'denied' : c.call && !c.call.payload.valid ? 'invalid' : c.result.payload.is_error ? 'error' : 'ok';
  } else if (c.permission && !denied) {
    status = 'running';
    durMs = Math.max(0, rel(now) - startMs);
  } else status = denied ? 'denied' : 'waiting';
  if (status === 'denied') markers.push({ kind: 'denied', key: c.key, atMs: rel(time(c.permission ?? c.result)), label: `Denied: ${c.name}${c.permission?.payload.by ? ` (by ${c.permission.payload.by})` : ''}` });
  else if (status === 'error' || status === 'invalid') {
    const r = c.result!.payload;
    markers.push({ kind: 'tool_error', key: obsKey ?? c.key, atMs: rel(time(c.result)), label: `${c.name} failed${r.error_kind ? ` (${r.error_kind})` : ''}` });
  }
  return { key: c.key, obsKey, name: c.name, status, startMs, durMs, settledMs: rel(time(c.result)) || startMs + durMs, lane: 0 };
}

/** Every round of the runs, in order, as the log tells it. Round 0 (before a run's first request) only when it holds cards. */
export function roundFacts(runs: readonly RunGroup[], opts: FactsOptions = {}): RoundFacts[] {
  const asks = asksOf(opts.events);
  const out: RoundFacts[] = [];
  for (const run of runs) {
    const kept = run.end ? opts.cache?.get(run) : undefined;
    if (kept) {
      out.push(...kept);
      continue;
    }
    const mine: RoundFacts[] = [];
    for (const g of run.rounds) {
      if (g.round === 0 && g.items.length === 0) continue;
      mine.push(factsOf(run, g, asks, opts.now));
    }
    if (run.end) opts.cache?.set(run, mine);
    out.push(...mine);
  }
  return out;
}

/** Which round (index into facts) a card belongs to. A run's message goes to its first round, its end and restores to its last. */
export function roundIndex(facts: readonly RoundFacts[], runs: readonly RunGroup[]): Map<string, number> {
  const m = new Map<string, number>();
  facts.forEach((f, i) => {
    for (const c of f.cards) m.set(c, i);
  });
  for (const run of runs) {
    let first = -1;
    let last = -1;
    facts.forEach((f, i) => {
      if (f.run !== run.run) return;
      if (first < 0) first = i;
      last = i;
    });
    if (first < 0) continue;
    if (run.user) m.set(`e:${run.user.seq}`, first);
    if (run.end) m.set(`e:${run.end.seq}`, last);
    for (const r of run.restores) m.set(`e:${r.seq}`, last);
  }
  return m;
}

// --- the view window ---------------------------------------------------------------

/** The rounds shown: `count` rounds from index `first`. */
export interface View {
  first: number;
  count: number;
}

/** The view kept within 0..total: at least one round, at most all. */
export function clampView(v: View, total: number): View {
  if (total <= 0) return { first: 0, count: 0 };
  const count = Math.min(total, Math.max(1, Math.round(Number.isFinite(v.count) ? v.count : total)));
  const first = Math.min(total - count, Math.max(0, Math.round(Number.isFinite(v.first) ? v.first : 0)));
  return { first, count };
}

export const wholeView = (total: number): View => clampView({ first: 0, count: total }, total);

/**
 * Zooms in (factor > 1) or out (< 1) around a round: the round at `anchor`
 * stays where it was in the window, as far as the ends allow.
 */
export function zoomView(v: View, total: number, factor: number, anchor?: number): View {
  const cur = clampView(v, total);
  if (cur.count === 0 || !(factor > 0)) return cur;
  const at = Math.min(cur.first + cur.count - 1, Math.max(cur.first, anchor ?? cur.first + (cur.count - 1) / 2));
  const frac = cur.count > 1 ? (at - cur.first) / (cur.count - 1) : 0.5;
  let count = Math.round(cur.count / factor);
  // A zoom always moves by at least one round, unless it is at its end.
  if (factor > 1 && count >= cur.count) count = cur.count - 1;
  if (factor < 1 && count <= cur.count) count = cur.count + 1;
  count = Math.min(total, Math.max(1, count));
  return clampView({ first: Math.round(at - frac * (count - 1)), count }, total);
}

/** Moves the window by `delta` rounds (negative: earlier). */
export function panView(v: View, total: number, delta: number): View {
  const cur = clampView(v, total);
  return clampView({ first: cur.first + delta, count: cur.count }, total);
}

/** The window moved as little as it takes to show round `index`. */
export function revealView(v: View, total: number, index: number): View {
  const cur = clampView(v, total);
  if (index < cur.first) return clampView({ first: index, count: cur.count }, total);
  if (index >= cur.first + cur.count) return clampView({ first: index - cur.count + 1, count: cur.count }, total);
  return cur;
}

// --- the layout ----------------------------------------------------------------------

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
  /** A round's markers in time; a bucket's worst marker only (with the counts in `counts`). */
  markers: MarkerBar[];
  counts: Partial<Record<MarkerKind, number>>;
  /** 1 + tool sub-lanes for a round, 1 for a bucket. */
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
  row: Omit<OverviewRow, 'segments' | 'calls' | 'gaps' | 'markers'>;
  spanMs: number;
  place: (msPerPx: number) => Pick<OverviewRow, 'segments' | 'calls' | 'gaps' | 'markers'>;
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
  return {
    row: {
      key: f.key,
      from: i,
      to: i,
      bucket: false,
      label: f.round === 0 ? `Run ${f.run}, before round 1` : `Run ${f.run}, round ${f.round}`,
      counts,
      lanes: 1 + f.toolLanes,
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
      return {
        segments,
        calls: f.calls.map((c) => ({ ...c, x: cut(c.startMs) / k, w: (cut(c.startMs + c.durMs) - cut(c.startMs)) / k })),
        gaps: f.gaps.map((g) => ({ ...g, x: cut(g.startMs) / k, w: (cut(g.endMs) - cut(g.startMs)) / k, cut: cut(g.endMs) - cut(g.startMs) < g.endMs - g.startMs - 1e-9 })),
        markers: f.markers.map((m) => ({ ...m, x: cut(m.atMs) / k, count: 1 })),
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
    for (const m of f.markers) {
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
      return { segments, calls: [], gaps: [], markers: w ? [{ ...w, x: 0, count: counts[w.kind] ?? 1 }] : [] };
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

// --- what a row says when asked (the tooltip) ------------------------------------------

const PART_NAMES: Record<SegmentKind, string> = {
  load: 'load',
  prompt: 'prompt eval',
  eval: 'generation',
  other: 'other',
  tools: 'tools',
  wait: 'waiting',
};

const MARKER_NAMES: Record<MarkerKind, [string, string]> = {
  error: ['error', 'errors'],
  denied: ['denial', 'denials'],
  tool_error: ['failed call', 'failed calls'],
  retry: ['retry', 'retries'],
  notice: ['notice', 'notices'],
  edit: ['edit', 'edits'],
};

const plural = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;

/** The numbers of a row, a line each: the model's time, the tokens, the tools, the waits, the markers. */
export function describeRow(r: OverviewRow): string[] {
  const lines = [r.label];
  if (r.modelMs == null) lines.push('Model: no answer yet');
  else {
    const parts = r.segments.filter((s) => s.kind !== 'tools' && s.kind !== 'wait').map((s) => `${PART_NAMES[s.kind]} ${formatDuration(s.ms)}`);
    lines.push(`Model ${formatDuration(r.modelMs)}${r.bucket ? ' in all' : ''}: ${parts.join(' · ')}`);
  }
  const prompt = r.promptTokens == null ? 'unknown' : formatCount(r.promptTokens);
  const output = r.outputTokens == null ? 'unknown' : formatCount(r.outputTokens);
  lines.push(`Tokens: prompt ${prompt}${r.bucket ? ' at most' : ''} · output ${output}${r.bucket ? ' in all' : ''}`);
  if (r.calls_n > 0) lines.push(`Tools: ${plural(r.calls_n, 'call', 'calls')}, ${formatDuration(r.toolMs)}`);
  if (r.waitMs > 0) lines.push(`Waiting for you: ${formatDuration(r.waitMs)}`);
  const marks = (Object.keys(MARKER_RANK) as MarkerKind[]).filter((k) => r.counts[k]).map((k) => plural(r.counts[k]!, ...MARKER_NAMES[k]));
  if (marks.length) lines.push(marks.join(', '));
  return lines;
}

const CALL_STATUS: Record<CallStatus, string> = {
  ok: 'ok',
  error: 'failed',
  denied: 'denied',
  invalid: 'called wrong',
  running: 'running',
  waiting: 'not started',
};

export type OverviewPart =
  | { kind: 'segment'; segment: Segment }
  | { kind: 'call'; call: CallBar }
  | { kind: 'gap'; gap: GapBar }
  | { kind: 'marker'; marker: MarkerBar };

/** The line about one bar of a row. */
export function describePart(p: OverviewPart): string {
  switch (p.kind) {
    case 'segment':
      return `${PART_NAMES[p.segment.kind][0]!.toUpperCase()}${PART_NAMES[p.segment.kind].slice(1)}: ${formatDuration(p.segment.ms)}`;
    case 'call':
      return `${p.call.name}: ${formatDuration(p.call.durMs)} (${CALL_STATUS[p.call.status]}), from ${formatDuration(p.call.startMs)} into the round`;
    case 'gap':
      return `${p.gap.reason} · ${formatDuration(p.gap.endMs - p.gap.startMs)}${p.gap.cut ? ' (drawn shorter)' : ''}`;
    case 'marker':
      return p.marker.count > 1 ? `${p.marker.label} (and ${formatCount(p.marker.count - 1)} more)` : p.marker.label;
  }
}
