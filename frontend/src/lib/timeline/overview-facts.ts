// The overview's facts: each round of the session read once, times in ms
// from the round's start (model parts, calls on their sub-lanes, waits for a
// person, markers, the sub-agents its task calls started), no pixels. The
// layout (overview-layout.ts) places them.
import type { CheckpointEvent, PermissionEvent, TraceEvent } from '../types';
import type { CallItem, RoundGroup, RunGroup, StepItem, SubAgentLane } from './group';
import { nsToMs } from './metrics';
import { subAgentCard } from './subagent';

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
  /** The sub-agents the round's task calls started, each on a band of its own under the tool lanes. */
  subs: SubAgentFact[];
  /** Sub-agent bands used (0 with none). */
  subLanes: number;
}

/** A model part of a sub-agent's round, on its parent round's clock. */
export interface SubModelFact {
  kind: ModelPart;
  startMs: number;
  ms: number;
}

/**
 * A sub-agent's nested run as its parent's round draws it: its span and,
 * inside it, its own rounds read as the parent's are (model time, calls,
 * waits, markers), all in ms from the parent round's start. Its cards are
 * in the task call's nested lane, not in the session's list: every part of
 * it jumps to `key`, the task call.
 */
export interface SubAgentFact {
  /** The task call's card, which holds the nested lane. */
  key: string;
  /** The sub-run id (trace.Event.agent). */
  id: string;
  goal: string;
  rounds: number;
  /** Its prompt and output tokens (its own contexts, counted in the session's totals). */
  tokens: number;
  /** 'running', 'paused', or how its run ended. */
  outcome: string;
  startMs: number;
  endMs: number;
  /** 0-based band among the round's sub-agent bands. */
  lane: number;
  model: SubModelFact[];
  calls: CallFact[];
  gaps: GapFact[];
  /** Its markers, labelled as its own. */
  markers: MarkerFact[];
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
  /**
   * Whose runs these are: "" for the session's own loop, a sub-agent's
   * lane id for its. Only that loop's questions are its calls' (two
   * loops may name a call call_1).
   */
  agent?: string;
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

/** The questions of one loop of the log by run and call id (the first ask of each). */
function asksOf(events: readonly TraceEvent[] | undefined, agent: string): Map<string, PermissionEvent> {
  const m = new Map<string, PermissionEvent>();
  for (const e of events ?? []) {
    if (e.kind === 'permission' && e.payload.decision === 'ask' && (e.agent ?? '') === agent) {
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
  const subs: SubAgentFact[] = [];
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
    if (it.kind === 'call') {
      calls.push(callFact(run, it, asks, rel, nowAt, gaps, markers));
      if (it.sub) subs.push(subFact(it.key, it.sub, rel, now));
    }
  }
  for (const s of steps) {
    if (s.kind === 'edit') {
      markers.push({ kind: 'edit', key: s.key, atMs: rel(time(s.event)), label: `You edited the ${s.event.payload.target}` });
    } else if (s.kind === 'checkpoint' && s.event.payload.state === 'paused') {
      const end = s.resumed ? time(s.resumed) : nowAt;
      gaps.push({ kind: 'pause', key: s.key, startMs: rel(time(s.event)), endMs: rel(end), reason: pauseReason(s.event, s.resumed), open: !s.resumed });
    }
  }
  const { lanes, count } = assignLanes(calls.map((c) => ({ start: c.startMs, end: Math.max(c.startMs + c.durMs, c.settledMs) })));
  calls.forEach((c, i) => (c.lane = lanes[i]!));
  const bands = assignLanes(subs.map((x) => ({ start: x.startMs, end: x.endMs })));
  subs.forEach((x, i) => (x.lane = bands.lanes[i]!));
  markers.sort((a, b) => a.atMs - b.atMs);
  gaps.sort((a, b) => a.startMs - b.startMs);

  const ends = [modelEnd, rel(last), ...calls.map((c) => c.startMs + c.durMs), ...gaps.map((x) => x.endMs), ...markers.map((x) => x.atMs), ...subs.map((x) => x.endMs)];
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
    subs,
    subLanes: bands.count,
  };
}

/**
 * A sub-agent read as the overview reads a run: its own rounds' facts
 * (from its own events), moved onto its parent round's clock. Its
 * announcement (the sub_agent notice) is the band itself, not a marker.
 */
function subFact(taskKey: string, lane: SubAgentLane, rel: (t: number) => number, now: number | undefined): SubAgentFact {
  const own = lane.events.filter((e) => e.agent === lane.id);
  const card = subAgentCard(lane);
  const quiet = new Set(own.filter((e) => e.kind === 'notice' && e.payload.code === 'sub_agent').map((e) => `e:${e.seq}`));
  const model: SubModelFact[] = [];
  const calls: CallFact[] = [];
  const gaps: GapFact[] = [];
  const markers: MarkerFact[] = [];
  const startMs = rel(time(own[0]));
  let endMs = Math.max(startMs, rel(time(lane.events[lane.events.length - 1])));
  for (const f of roundFacts(lane.timeline.runs, { events: own, agent: lane.id, now })) {
    const off = Number.isFinite(f.start) ? rel(f.start) : startMs;
    if (f.model) {
      let at = off;
      for (const kind of ['load', 'prompt', 'eval', 'other'] as const) {
        if (f.model[kind] > 0) model.push({ kind, startMs: at, ms: f.model[kind] });
        at += f.model[kind];
      }
    }
    for (const c of f.calls) calls.push({ ...c, key: taskKey, obsKey: null, startMs: off + c.startMs, settledMs: off + c.settledMs });
    for (const x of f.gaps) gaps.push({ ...x, key: taskKey, startMs: off + x.startMs, endMs: off + x.endMs });
    for (const m of f.markers) if (!quiet.has(m.key)) markers.push({ ...m, key: taskKey, atMs: off + m.atMs, label: `Sub-agent: ${m.label}` });
    endMs = Math.max(endMs, off + f.endMs);
  }
  const running = card.outcome === 'running' || card.outcome === 'paused';
  if (running && now != null) endMs = Math.max(endMs, rel(now));
  return {
    key: taskKey,
    id: lane.id,
    goal: card.goal,
    rounds: card.rounds,
    tokens: card.promptTokens + card.evalTokens,
    outcome: card.outcome,
    startMs,
    endMs,
    lane: 0,
    model,
    calls,
    gaps,
    markers,
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
  const asks = asksOf(opts.events, opts.agent ?? '');
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
