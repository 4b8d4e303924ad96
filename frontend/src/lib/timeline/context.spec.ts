import { describe, expect, it } from 'vitest';
import { recording } from '../replay/recordings';
import { EventLog } from '../testing/events';
import { parseEvent, type TraceEvent } from '../types';
import { chartLayout, contextPoints, describeContext, levelOf } from './context';
import { buildTimeline } from './group';

const metrics = (prompt: number) => ({
  prompt_eval_count: prompt,
  eval_count: 10,
  total_duration: 1_000_000_000,
  load_duration: 0,
  prompt_eval_duration: 100_000_000,
  eval_duration: 800_000_000,
  time_to_first_token: 200_000_000,
});

/** A run with one request per prompt count (null: the request got no answer yet). */
function requests(prompts: (number | null)[], numCtx = 1000): TraceEvent[] {
  const log = new EventLog();
  log.user('x');
  for (const p of prompts) {
    log.request({ options: { num_ctx: numCtx, temperature: 0.2 }, prompt_estimate: 300 });
    if (p != null) log.response({ metrics: metrics(p), tool_calls: [] });
  }
  return log.events;
}

describe('contextPoints', () => {
  it('compares each prompt with the num_ctx its request asked for', () => {
    const events = requests([400, 800, 999, 1000, null]);
    const pts = contextPoints(buildTimeline(events).runs);
    expect(pts.map((p) => p.promptTokens)).toEqual([400, 800, 999, 1000, null]);
    expect(pts.map((p) => p.level)).toEqual(['ok', 'high', 'high', 'full', 'unknown']);
    expect(pts.map((p) => p.share)).toEqual([0.4, 0.8, 0.999, 1, null]);
    expect(pts.every((p) => p.numCtx === 1000 && p.numCtxFrom === 'request')).toBe(true);
    // Each point jumps to its request's card.
    const reqs = events.filter((e) => e.kind === 'model_request').map((e) => `e:${e.seq}`);
    expect(pts.map((p) => p.key)).toEqual(reqs);
    expect(pts[4]!.responseKey).toBeNull();
    expect(pts[4]!.estimate).toBe(300);
  });

  it('says unknown for a count of 0 (Ollama sent none), not an empty prompt', () => {
    const pts = contextPoints(buildTimeline(requests([0])).runs);
    expect(pts[0]!.promptTokens).toBeNull();
    expect(pts[0]!.level).toBe('unknown');
  });

  it("falls back to the model's context length when the request recorded no num_ctx", () => {
    const events = requests([7000], 0);
    const none = contextPoints(buildTimeline(events).runs);
    expect(none[0]!.numCtx).toBeNull();
    expect(none[0]!.level).toBe('unknown');
    const pts = contextPoints(buildTimeline(events).runs, { contextLength: (m) => (m === 'qwen3:0.6b' ? 8192 : null) });
    expect(pts[0]!.numCtx).toBe(8192);
    expect(pts[0]!.numCtxFrom).toBe('model');
    expect(pts[0]!.level).toBe('high');
  });

  it('reads the recorded scenarios', () => {
    const events: TraceEvent[] = [];
    for (const s of recording('tour').steps) {
      const e = s.event === undefined ? null : parseEvent(s.event);
      if (e) events.push(e);
    }
    const pts = contextPoints(buildTimeline(events).runs);
    expect(pts).toHaveLength(events.filter((e) => e.kind === 'model_request').length);
    // Each answer recorded the context Ollama allocated (/api/ps): the num_ctx asked.
    expect(pts.every((p) => p.numCtx === 16384 && p.numCtxFrom === 'allocated')).toBe(true);
    expect(pts.every((p) => p.promptTokens != null && p.promptTokens > 0 && p.level === 'ok')).toBe(true);
  });

  it('draws the demo growing: each of its answers carries the count it made of its prompt', () => {
    const events: TraceEvent[] = [];
    for (const s of recording('demo_first_run').steps) {
      const e = s.event === undefined ? null : parseEvent(s.event);
      if (e) events.push(e);
    }
    const pts = contextPoints(buildTimeline(events).runs);
    expect(pts.length).toBeGreaterThan(3);
    const prompts = pts.map((p) => p.promptTokens ?? 0);
    expect(prompts.every((p) => p > 0)).toBe(true);
    expect(prompts.every((p, i) => i === 0 || p > prompts[i - 1]!)).toBe(true);
    expect(pts.every((p) => (p.outputTokens ?? 0) > 0)).toBe(true);
  });

  it("takes the meter's total and the context Ollama allocated over the bare count and num_ctx", () => {
    const log = new EventLog();
    log.user('x');
    log.request({ options: { num_ctx: 8192, temperature: 0.2 }, prompt_estimate: 3000 });
    log.response({
      metrics: metrics(400),
      context: { prompt: 3400, source: 'cache', counted: 400, num_ctx: 8192, loaded: 4096, parts: { system: 100, tools: 1500, history: 1700, new: 100 } },
    });
    const [p] = contextPoints(buildTimeline(log.events).runs);
    expect(p).toMatchObject({ promptTokens: 3400, numCtx: 4096, numCtxFrom: 'allocated', level: 'high' });
  });

  it('levels', () => {
    expect(levelOf(null, 10)).toBe('unknown');
    expect(levelOf(5, null)).toBe('unknown');
    expect(levelOf(7, 10)).toBe('ok');
    expect(levelOf(8, 10)).toBe('high');
    expect(levelOf(11, 10)).toBe('full');
  });
});

describe('chartLayout', () => {
  it('draws bars to scale against the num_ctx line', () => {
    const pts = contextPoints(buildTimeline(requests([250, 500, 1000])).runs);
    const l = chartLayout(pts, { width: 300, height: 100 });
    expect(l.max).toBe(1000);
    expect(l.perBar).toBe(1);
    expect(l.bars.map((b) => [b.x, b.w, b.y, b.h])).toEqual([
      [0, 100, 75, 25],
      [100, 100, 50, 50],
      [200, 100, 0, 100],
    ]);
    expect(l.bars.every((b) => b.ctxY === 0)).toBe(true);
    expect(l.ctxPath).toBe('M0,0H100H200H300');
    expect(l.highPath).toBe('M0,20H100H200H300');
    expect(describeContext(l.bars[2]!)).toEqual([
      'Run 1, round 3',
      'Prompt: 1,000 tokens of 1,000 (100%)',
      'Output: 10 tokens',
      'num_ctx 1,000 (set on the request)',
      'Full: Ollama most likely cut the prompt to fit num_ctx',
    ]);
    expect(describeContext(l.bars[1]!)).toHaveLength(4);
    const high = chartLayout(contextPoints(buildTimeline(requests([850])).runs), { width: 10, height: 10 }).bars[0]!;
    expect(describeContext(high)).toContain('Nearly full: 80% or more of num_ctx');
  });

  it('draws an unknown count at its estimate, marked as estimated', () => {
    const pts = contextPoints(buildTimeline(requests([null])).runs);
    const b = chartLayout(pts, { width: 100, height: 100 }).bars[0]!;
    expect(b.estimated).toBe(true);
    expect(b.h).toBeCloseTo(30);
    expect(describeContext(b)[1]).toBe("Prompt: unknown (Ollama gave no count); Loupe's estimate 300 of 1,000");
  });

  it('shares bars when there are more requests than fit, keeping the fullest and the worst level', () => {
    const prompts = Array.from({ length: 2000 }, (_, i) => (i === 1500 ? 1000 : 100 + (i % 7)));
    const pts = contextPoints(buildTimeline(requests(prompts)).runs);
    const l = chartLayout(pts, { width: 300, height: 100, minBarPx: 2 });
    expect(l.bars.length).toBeLessThanOrEqual(150);
    expect(l.perBar).toBe(14);
    const full = l.bars.filter((b) => b.level === 'full');
    expect(full).toHaveLength(1);
    expect(full[0]!.point.promptTokens).toBe(1000);
    expect(full[0]!.from <= 1500 && full[0]!.to >= 1500).toBe(true);
    expect(l.bars.at(-1)!.x + l.bars.at(-1)!.w).toBeCloseTo(300);
  });
});
