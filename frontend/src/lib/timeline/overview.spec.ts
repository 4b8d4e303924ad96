import { describe, expect, it } from 'vitest';
import { recording } from '../replay/recordings';
import type { Recording } from '../replay/recording';
import { EventLog } from '../testing/events';
import { parseEvent, type TraceEvent } from '../types';
import { buildTimeline } from './group';
import { flattenCards } from './nav';
import { subAgentCard } from './subagent';
import {
  assignLanes,
  clampView,
  describeRow,
  layoutOverview,
  panView,
  revealView,
  roundFacts,
  roundIndex,
  wholeView,
  zoomView,
  type Overview,
} from './overview';

function eventsOf(rec: Recording): TraceEvent[] {
  const out: TraceEvent[] = [];
  for (const s of rec.steps) {
    const e = s.event === undefined ? null : parseEvent(s.event);
    if (e) out.push(e);
  }
  return out;
}

function overviewOf(events: TraceEvent[], opts: { width?: number; height?: number; current?: string | null; gapCapMs?: number } = {}): Overview {
  const runs = buildTimeline(events).runs;
  const facts = roundFacts(runs, { events });
  return layoutOverview(facts, wholeView(facts.length), { width: opts.width ?? 1000, height: opts.height ?? 400, current: opts.current ?? null, gapCapMs: opts.gapCapMs }, roundIndex(facts, runs));
}

/** Every key a row, bar, gap or marker jumps to. */
function keysOf(o: Overview): string[] {
  return o.rows.flatMap((r) => [
    r.key,
    ...r.segments.map((s) => s.key),
    ...r.calls.flatMap((c) => [c.key, ...(c.obsKey ? [c.obsKey] : [])]),
    ...r.gaps.map((g) => g.key),
    ...r.markers.map((m) => m.key),
    ...r.subs.flatMap((b) => [b.key, ...b.segments.map((s) => s.key), ...b.calls.map((c) => c.key), ...b.gaps.map((g) => g.key), ...b.markers.map((m) => m.key)]),
  ]);
}

describe('one round', () => {
  it("splits the model's time as Ollama reports it, to one scale", () => {
    const log = new EventLog('s', Date.UTC(2026, 0, 1), 1000);
    log.user('x');
    log.request();
    // load 150, prompt 400, eval 1600 of a total of 2400 ms: 250 ms is neither.
    log.response({ content: 'ok' });
    log.end('answered', 'ok');
    const o = overviewOf(log.events, { width: 1200 });
    expect(o.rows).toHaveLength(1);
    const r = o.rows[0]!;
    expect(r.label).toBe('Run 1, round 1');
    expect(r.segments.map((s) => s.kind)).toEqual(['load', 'prompt', 'eval', 'other']);
    expect(r.segments.map((s) => s.ms)).toEqual([150, 400, 1600, 250]);
    // The row is 2.4 s long (the model's time is longer than the gap to the response's commit).
    expect(o.msPerPx).toBeCloseTo(2400 / 1200);
    const [load, prompt, ev, other] = r.segments;
    expect(load!.x).toBe(0);
    expect(load!.w).toBeCloseTo(75);
    expect(prompt!.x).toBeCloseTo(75);
    expect(prompt!.w).toBeCloseTo(200);
    expect(ev!.x).toBeCloseTo(275);
    expect(ev!.w).toBeCloseTo(800);
    expect(other!.x + other!.w).toBeCloseTo(1200);
    expect(r.promptTokens).toBe(512);
    expect(r.outputTokens).toBe(64);
    expect(r.segments[0]!.key).toBe(`e:${log.events[2]!.seq}`);
  });

  it('says unknown, not 0, for the tokens of a round without an answer', () => {
    const log = new EventLog();
    log.user('x');
    log.request();
    const r = overviewOf(log.events).rows[0]!;
    expect(r.promptTokens).toBeNull();
    expect(r.modelMs).toBeNull();
    expect(r.segments).toEqual([]);
  });

  it('draws calls from their start (the decision) for their duration, on one lane when one follows the other', () => {
    const log = new EventLog('s', Date.UTC(2026, 0, 1), 1000);
    log.user('x');
    const req = log.request(); // t=2000
    log.response({ tool_calls: [{ id: 'a', index: 0, name: 'glob', args: {} }, { id: 'b', index: 1, name: 'grep', args: {} }] }); // 3000
    log.toolCall({ call_id: 'a', name: 'glob' }); // 4000
    log.permission('a', 'glob', 'allow'); // 5000
    log.result({ call_id: 'a', name: 'glob', duration_ms: 500 }); // 6000
    log.toolCall({ call_id: 'b', name: 'grep' }); // 7000
    log.permission('b', 'grep', 'allow'); // 8000
    log.result({ call_id: 'b', name: 'grep', duration_ms: 1500 }); // 9000
    const o = overviewOf(log.events, { width: 750 });
    const r = o.rows[0]!;
    expect(r.key).toBe(`e:${req.seq}`);
    // The row ends when the last call does: 6000 + 1500 ms.
    expect(o.msPerPx).toBeCloseTo(7500 / 750);
    expect(r.calls.map((c) => [c.name, c.startMs, c.durMs, c.lane, c.status])).toEqual([
      ['glob', 3000, 500, 0, 'ok'],
      ['grep', 6000, 1500, 0, 'ok'],
    ]);
    expect(r.calls[0]!.x).toBeCloseTo(300);
    expect(r.calls[0]!.w).toBeCloseTo(50);
    expect(r.calls[1]!.w / r.calls[0]!.w).toBeCloseTo(3);
    expect(r.lanes).toBe(2);
  });
});

describe('recorded scenarios', () => {
  it('puts parallel calls on separate sub-lanes (parallel_calls)', () => {
    const o = overviewOf(eventsOf(recording('parallel_calls')));
    const r = o.rows[0]!;
    expect(r.calls.map((c) => c.name)).toEqual(['read_file', 'read_file', 'list_dir']);
    expect(new Set(r.calls.map((c) => c.lane)).size).toBe(3);
    expect(r.lanes).toBe(4);
    // Each call starts at its decision, in call order, 250 ms apart in the recording.
    expect(r.calls.map((c) => c.startMs)).toEqual([1250, 1500, 1750]);
    expect(r.calls.every((c) => c.durMs === 12)).toBe(true);
    expect(o.rows[1]!.promptTokens).toBe(1741);
  });

  it('draws the wait for an answer, with what was asked (approve_command)', () => {
    const events = eventsOf(recording('approve_command'));
    const o = overviewOf(events);
    const gaps = o.rows.flatMap((r) => r.gaps);
    expect(gaps).toHaveLength(1);
    const g = gaps[0]!;
    expect(g.kind).toBe('permission');
    expect(g.open).toBe(false);
    expect(g.endMs).toBeGreaterThan(g.startMs);
    expect(g.reason).toMatch(/^Asked: .*allowed/);
    const call = buildTimeline(events).calls.values().next().value!;
    expect(g.key).toBe(call.key);
  });

  it('draws pauses with where and why they paused (step_through)', () => {
    const o = overviewOf(eventsOf(recording('step_through')));
    const reasons = o.rows.flatMap((r) => r.gaps.map((g) => g.reason));
    expect(reasons).toContain('Paused before the request (stepping), then step');
    expect(reasons.some((x) => x.startsWith('Paused before read_file') || x.startsWith('Paused before '))).toBe(true);
    expect(o.rows.flatMap((r) => r.gaps).every((g) => g.kind === 'pause' && g.w >= 0)).toBe(true);
  });

  it('marks failed calls, denials and edits', () => {
    const kinds = (name: string) => overviewOf(eventsOf(recording(name))).rows.flatMap((r) => r.markers.map((m) => m.kind));
    expect(kinds('error_kinds').filter((k) => k === 'tool_error')).toHaveLength(3);
    expect(kinds('deny_protected')).toContain('denied');
    expect(kinds('step_edits').filter((k) => k === 'edit').length).toBe(5);
    expect(kinds('workspace')).toEqual(['notice']);
  });

  it('jumps only to cards the timeline has', () => {
    for (const name of ['tour', 'parallel_calls', 'approve_command', 'step_edits', 'step_through', 'error_kinds', 'deny_protected', 'undo_turn', 'workspace', 'stop_paused', 'sub_agent', 'sub_agent_stepped']) {
      const events = eventsOf(recording(name));
      const ids = new Set(flattenCards(buildTimeline(events).runs).map((c) => c.id));
      const keys = keysOf(overviewOf(events));
      expect(keys.length, name).toBeGreaterThan(0);
      for (const k of keys) expect(ids.has(k), `${name}: ${k}`).toBe(true);
    }
  });

  it('marks the row of the current card, also for a run message and its end', () => {
    const events = eventsOf(recording('tour'));
    const runs = buildTimeline(events).runs;
    const cards = flattenCards(runs);
    const lastObs = cards.filter((c) => c.kind === 'observation').at(-1)!.id;
    const o = overviewOf(events, { current: lastObs });
    expect(o.currentRow).not.toBeNull();
    expect(o.rows.filter((r) => r.current)).toHaveLength(1);
    const row = o.rows[o.currentRow!]!;
    expect(row.calls.some((c) => c.obsKey === lastObs)).toBe(true);
    const second = runs[1]!;
    expect(overviewOf(events, { current: `e:${second.user!.seq}` }).rows[overviewOf(events, { current: `e:${second.user!.seq}` }).currentRow!]!.label).toBe('Run 2, round 1');
    const end = overviewOf(events, { current: `e:${runs[0]!.end!.seq}` });
    expect(end.rows[end.currentRow!]!.label).toBe(`Run 1, round ${runs[0]!.end!.payload.rounds}`);
    expect(overviewOf(events, { current: 'e:99999' }).currentRow).toBeNull();
  });
});

describe('sub-agents (sub_agent, sub_agent_stepped)', () => {
  const at = (e: TraceEvent | undefined) => Date.parse(e!.time);

  it("draws a sub-agent as a band under its task call's round, from its first event to its last", () => {
    const events = eventsOf(recording('sub_agent'));
    const o = overviewOf(events, { width: 1000 });
    const t = buildTimeline(events);
    const task = t.calls.get('call_1')!;
    expect(task.name).toBe('task');
    const own = events.filter((e) => e.agent === 'call_1');
    // The round of the task call holds the band; the parent's next round has none.
    expect(o.rows.map((r) => r.subs.length)).toEqual([1, 0]);
    const r = o.rows[0]!;
    const b = r.subs[0]!;
    const start = at(t.runs[0]!.rounds[0]!.request);
    expect(b).toMatchObject({ key: task.key, id: 'call_1', goal: 'What files are in the workspace? Answer with their names.', rounds: 2, outcome: 'answered' });
    expect(b.startMs).toBe(at(own[0]) - start);
    expect(b.endMs).toBe(at(own.at(-1)) - start);
    expect(b.x).toBeCloseTo(b.startMs / o.msPerPx);
    expect(b.x + b.w).toBeCloseTo(b.endMs / o.msPerPx);
    // Nested under its call: after the call began, before its result came back.
    const call = r.calls[0]!;
    expect(b.startMs).toBeGreaterThanOrEqual(call.startMs);
    expect(b.endMs).toBeLessThanOrEqual(call.settledMs);
    // Its band is the row's own lane, under the model's and the tool's.
    expect(r.lanes).toBe(3);
    expect(b.band).toBe(2);
    // Inside it, its own rounds as the parent's are drawn: two answers' model time and its list_dir call.
    expect(b.calls.map((c) => [c.name, c.status, c.startMs])).toEqual([['list_dir', 'ok', at(own.find((e) => e.kind === 'permission')) - start]]);
    const requests = own.filter((e) => e.kind === 'model_request').map((e) => at(e) - start);
    expect(b.segments.filter((s) => s.kind === 'load').map((s) => s.x * o.msPerPx)).toEqual(requests.map((ms) => expect.closeTo(ms, 6)));
    // Its announcement is the band, not a marker.
    expect(b.markers).toEqual([]);
    expect(r.markers).toEqual([]);
    // What it says, the tokens as its collapsed card counts them.
    expect(describeRow(r)).toContain('Sub-agent: What files are in the workspace? Answer with their names. (2 rounds, 2,029 tokens, answered)');
    expect(b.tokens).toBe(subAgentCard(task.sub!).promptTokens + subAgentCard(task.sub!).evalTokens);
  });

  it("draws a stepped sub-agent's pauses inside its band", () => {
    const events = eventsOf(recording('sub_agent_stepped'));
    const o = overviewOf(events);
    const b = o.rows[0]!.subs[0]!;
    const pauses = events.filter((e) => e.agent === 'call_1' && e.kind === 'checkpoint' && e.payload.state === 'paused');
    expect(b.gaps).toHaveLength(pauses.length);
    expect(b.gaps.map((g) => g.reason)).toContain('Paused before list_dir (stepping), then step');
    // The parent's own pauses stay the parent's, and the band lies between stepping into the task and its result.
    const parent = o.rows[0]!.gaps;
    expect(o.rows.flatMap((r) => r.gaps)).toHaveLength(events.filter((e) => !e.agent && e.kind === 'checkpoint' && e.payload.state === 'paused').length);
    const into = parent.find((g) => g.reason === 'Paused before task (stepping), then step_into')!;
    const back = parent.find((g) => g.reason === 'Paused after the result of task (stepping), then continue')!;
    expect(b.startMs).toBeGreaterThanOrEqual(into.endMs);
    expect(b.endMs).toBeLessThanOrEqual(back.startMs);
    for (const g of b.gaps) expect(g.startMs >= b.startMs && g.endMs <= b.endMs).toBe(true);
  });

  it('draws a running sub-agent to now', () => {
    const events = eventsOf(recording('sub_agent'));
    const cut = events.findIndex((e) => e.agent === 'call_1' && e.kind === 'tool_result');
    const prefix = events.slice(0, cut);
    const runs = buildTimeline(prefix).runs;
    const now = at(prefix.at(-1)) + 2000;
    const facts = roundFacts(runs, { events: prefix, now });
    const b = facts[0]!.subs[0]!;
    expect(b.outcome).toBe('running');
    expect(b.endMs).toBe(now - at(runs[0]!.rounds[0]!.request));
    expect(facts[0]!.endMs).toBeGreaterThanOrEqual(b.endMs);
  });

  it('counts its sub-agents in a bucket', () => {
    const events = eventsOf(recording('sub_agent'));
    // One row for both rounds.
    const o = overviewOf(events, { height: 6 });
    expect(o.bucketSize).toBe(2);
    const r = o.rows[0]!;
    expect(r.subs).toEqual([]);
    expect(r.subs_n).toBe(1);
    expect(describeRow(r)).toContain('1 sub-agent');
  });
});

describe('long waits', () => {
  it('cuts the idle part of a wait beyond the cap, and keeps the numbers whole', () => {
    const log = new EventLog('s', Date.UTC(2026, 0, 1), 1000);
    log.user('x');
    log.request(); // 2000
    log.response({ tool_calls: [{ id: 'a', index: 0, name: 'glob', args: {} }] }); // 3000
    log.toolCall({ call_id: 'a', name: 'glob' }); // 4000
    const p = log.checkpoint({ point: 'before_tool', state: 'paused', call_id: 'a', tool: 'glob', breakpoint: true }); // 5000
    // The user is away a minute.
    const resumed = log.add('checkpoint', { point: 'before_tool', state: 'resumed', call_id: 'a', tool: 'glob', action: 'continue' });
    resumed.time = new Date(Date.parse(p.time) + 60_000).toISOString();
    const perm = log.permission('a', 'glob', 'allow');
    perm.time = new Date(Date.parse(resumed.time) + 1000).toISOString();
    const res = log.result({ call_id: 'a', name: 'glob', duration_ms: 1000 });
    res.time = new Date(Date.parse(perm.time) + 1000).toISOString();

    const whole = overviewOf(log.events, { width: 1000 }).rows[0]!;
    expect(whole.gaps[0]!.reason).toBe('Paused before glob (breakpoint), then continue');
    expect(whole.gaps[0]!.endMs - whole.gaps[0]!.startMs).toBe(60_000);
    expect(whole.gaps[0]!.cut).toBe(false);

    const cut = overviewOf(log.events, { width: 1000, gapCapMs: 2000 });
    const g = cut.rows[0]!.gaps[0]!;
    expect(g.cut).toBe(true);
    expect(g.w).toBeCloseTo(2000 / cut.msPerPx);
    expect(cut.rows[0]!.waitMs).toBe(60_000);
    // The call after the pause comes 58 s earlier on the drawn clock, its length unchanged.
    const c = cut.rows[0]!.calls[0]!;
    expect(c.x * cut.msPerPx).toBeCloseTo(c.startMs - 58_000);
    expect(c.w * cut.msPerPx).toBeCloseTo(1000);
  });
});

/** One run of `rounds` rounds, each a request and an answer with a call; extras at given rounds. */
function longRun(rounds: number, extra: (log: EventLog, round: number) => void = () => {}): TraceEvent[] {
  const log = new EventLog('s', Date.UTC(2026, 0, 1), 10);
  log.user('go');
  for (let i = 1; i <= rounds; i++) {
    log.request();
    log.response({ tool_calls: [{ id: `c${i}`, index: 0, name: 'glob', args: {} }] });
    log.toolCall({ call_id: `c${i}`, name: 'glob' });
    log.permission(`c${i}`, 'glob', 'allow');
    log.result({ call_id: `c${i}`, name: 'glob', duration_ms: 5 });
    extra(log, i);
  }
  log.end('round_cap');
  return log.events;
}

describe('2,000 rounds', () => {
  const events = longRun(2000, (log, i) => {
    if (i === 1234) log.error('model', 'Ollama went away');
    if (i === 1233) log.notice('retry', 'trying again');
    if (i === 1235) log.edit({ target: 'system', before: 'a', after: 'b' });
  });
  const runs = buildTimeline(events).runs;
  const facts = roundFacts(runs, { events });
  const index = roundIndex(facts, runs);

  it('buckets adjacent rounds into no more rows than fit, keeping the worst marker', () => {
    expect(facts).toHaveLength(2000);
    const o = layoutOverview(facts, wholeView(2000), { width: 800, height: 300, minRowPx: 1 }, index);
    expect(o.rows.length).toBeLessThanOrEqual(300);
    expect(o.bucketSize).toBe(7);
    expect(o.rows[0]!.from).toBe(0);
    expect(o.rows.at(-1)!.to).toBe(1999);
    // The rows cover every round once, in order.
    expect(o.rows.reduce((n, r) => n + r.to - r.from + 1, 0)).toBe(2000);
    const marked = o.rows.filter((r) => r.markers.length > 0);
    const errorRow = o.rows.find((r) => r.markers[0]?.kind === 'error')!;
    expect(errorRow.from).toBeLessThanOrEqual(1233);
    expect(errorRow.to).toBeGreaterThanOrEqual(1233);
    expect(errorRow.markers[0]!.key).toBe(`e:${events.find((e) => e.kind === 'error')!.seq}`);
    // 1232..1238 is one bucket of 7: the retry and the edit are counted in it, the error shown.
    expect(marked).toHaveLength(1);
    expect(errorRow.counts).toEqual({ error: 1, retry: 1, edit: 1 });
    // Sums and maxima.
    expect(errorRow.outputTokens).toBe(64 * 7);
    expect(errorRow.promptTokens).toBe(512);
    expect(errorRow.toolMs).toBe(35);
    expect(errorRow.calls_n).toBe(7);
    expect(errorRow.segments.map((s) => s.kind)).toEqual(['load', 'prompt', 'eval', 'other', 'tools']);
    expect(errorRow.segments.at(-1)!.w).toBeCloseTo(35 / o.msPerPx);
    for (const r of o.rows) expect(r.segments.reduce((x, s) => Math.max(x, s.x + s.w), 0)).toBeLessThanOrEqual(800 + 1e-6);
  });

  it('shows rounds one by one once zoomed in far enough', () => {
    let v = wholeView(2000);
    for (let i = 0; i < 12; i++) v = zoomView(v, 2000, 2, 1233);
    expect(v.count).toBeLessThanOrEqual(50);
    const o = layoutOverview(facts, v, { width: 800, height: 300, minRowPx: 6 }, index);
    expect(o.bucketSize).toBe(1);
    expect(o.rows.some((r) => r.from === 1233 && r.markers.some((m) => m.kind === 'error'))).toBe(true);
  });

  it('marks the bucket holding the current card', () => {
    const call = [...buildTimeline(events).calls.values()][1500]!;
    const o = layoutOverview(facts, wholeView(2000), { width: 800, height: 300, minRowPx: 1, current: `obs:${call.key}` }, index);
    expect(o.currentRound).toBe(1500);
    const row = o.rows[o.currentRow!]!;
    expect(row.from <= 1500 && row.to >= 1500).toBe(true);
    expect(o.rows.filter((r) => r.current)).toHaveLength(1);
  });

  it('reads an ended run once when given a cache', () => {
    const cache = new WeakMap();
    const a = roundFacts(runs, { events, cache });
    const b = roundFacts(runs, { events, cache });
    expect(b[7]).toBe(a[7]);
    expect(roundFacts(runs, { events })[7]).not.toBe(a[7]);
  });

  it('is quick enough to redo per event', () => {
    const t0 = performance.now();
    const f = roundFacts(runs, { events });
    layoutOverview(f, wholeView(2000), { width: 800, height: 300, minRowPx: 1 });
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

describe('zoom and pan', () => {
  it('zooms around a round and keeps it where it was', () => {
    const v = zoomView({ first: 0, count: 100 }, 100, 2, 80);
    expect(v.count).toBe(50);
    expect(v.first).toBe(40);
    const at = (80 - v.first) / (v.count - 1);
    expect(at).toBeCloseTo(80 / 99, 1);
  });

  it('clamps: at least one round, at most all, never past either end', () => {
    expect(zoomView({ first: 10, count: 1 }, 100, 4, 10)).toEqual({ first: 10, count: 1 });
    expect(zoomView({ first: 10, count: 80 }, 100, 0.25, 50)).toEqual({ first: 0, count: 100 });
    expect(zoomView({ first: 95, count: 5 }, 100, 0.5, 99)).toEqual({ first: 90, count: 10 });
    expect(panView({ first: 90, count: 10 }, 100, 25)).toEqual({ first: 90, count: 10 });
    expect(panView({ first: 5, count: 10 }, 100, -25)).toEqual({ first: 0, count: 10 });
    expect(panView({ first: 5, count: 10 }, 100, 3)).toEqual({ first: 8, count: 10 });
    expect(clampView({ first: -3, count: 1e9 }, 7)).toEqual({ first: 0, count: 7 });
    expect(clampView({ first: 3, count: 2 }, 0)).toEqual({ first: 0, count: 0 });
  });

  it('zooms by at least one round each time', () => {
    expect(zoomView({ first: 0, count: 3 }, 10, 1.1, 1).count).toBe(2);
    expect(zoomView({ first: 0, count: 3 }, 10, 0.9, 1).count).toBe(4);
  });

  it('reveals a round with the least move', () => {
    expect(revealView({ first: 10, count: 10 }, 100, 15)).toEqual({ first: 10, count: 10 });
    expect(revealView({ first: 10, count: 10 }, 100, 25)).toEqual({ first: 16, count: 10 });
    expect(revealView({ first: 10, count: 10 }, 100, 2)).toEqual({ first: 2, count: 10 });
  });
});

describe('assignLanes', () => {
  it('gives overlapping spans different lanes and reuses a free one', () => {
    expect(assignLanes([
      { start: 0, end: 10 },
      { start: 5, end: 8 },
      { start: 9, end: 12 },
      { start: 10, end: 11 },
    ])).toEqual({ lanes: [0, 1, 1, 0], count: 2 });
  });
});
