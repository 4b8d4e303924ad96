import { describe, expect, it } from 'vitest';
import { recording } from '../replay/recordings';
import { EventLog } from '../testing/events';
import { isModelRequest, isModelResponse, parseEvent, type ContextMeter, type PromptSplit, type TraceEvent } from '../types';
import { buildTimeline } from './group';
import { allocatedNote, meterLine, requestMeter, sessionMeter, splitNote, totalNote, warning } from './meter';

/** The events of a recording the engine wrote. */
function recorded(name: string): TraceEvent[] {
  return recording(name)
    .steps.map((s) => (s.event === undefined ? null : parseEvent(s.event)))
    .filter((e): e is TraceEvent => e != null);
}

const split: PromptSplit = { system: 100, tools: 1500, history: 300, new: 100, bytes: 8000, bytes_per_token: 4 };
const meter = (p: Partial<ContextMeter>): ContextMeter => ({
  prompt: 2100,
  source: 'ollama',
  counted: 2100,
  output: 40,
  num_ctx: 4096,
  loaded: 4096,
  parts: { system: 105, tools: 1575, history: 315, new: 105 },
  ...p,
});

function session(rounds: { split?: PromptSplit; meter?: ContextMeter | null; numCtx?: number }[]): TraceEvent[] {
  const log = new EventLog();
  log.user('x');
  for (const r of rounds) {
    const s = r.split ?? split;
    log.request({ options: { num_ctx: r.numCtx ?? 4096, temperature: 0.2 }, prompt_estimate: s.system + s.tools + s.history + s.new, split: s, tool_names: ['read_file', 'list_dir'] });
    if (r.meter != null) log.response({ context: r.meter });
    else if (r.meter === null) log.response({});
  }
  return log.events;
}

/** The meter of the only request of a session of one round with this meter. */
function one(m: Partial<ContextMeter>) {
  const evs = session([{ meter: meter(m) }]);
  const req = evs.find(isModelRequest)!;
  const resp = evs.find(isModelResponse)!;
  return requestMeter(req.payload, resp.payload)!;
}

describe('requestMeter', () => {
  it("reads the engine's numbers: the estimate before the answer, Ollama's count split by part after", () => {
    const runs = buildTimeline(recorded('context_meter')).runs;
    const rounds = runs[0]!.rounds.filter((g) => g.request);
    const before = requestMeter(rounds[1]!.request!.payload, null)!;
    expect(before.measured).toBe(false);
    expect(before.total).toBe(rounds[1]!.request!.payload.prompt_estimate);
    expect(before.calibrated).toBe(true);
    const after = requestMeter(rounds[1]!.request!.payload, rounds[1]!.response!.payload)!;
    expect(after.measured).toBe(true);
    expect(after.total).toBe(rounds[1]!.response!.payload.metrics.prompt_eval_count);
    expect(after.parts.map((p) => p.key)).toEqual(['system', 'tools', 'history', 'new']);
    expect(after.parts.reduce((n, p) => n + p.tokens, 0)).toBe(after.total);
    expect(after.context).toBe(4096);
    expect(after.level).toBe('high');
    expect(after.tools.count).toBe(7);
    expect(after.tools.tokens).toBeGreaterThan(1000);
    expect(warning(after)).toMatch(/takes 9\d% of the context/);
    // The first request was estimated at the default rate.
    expect(requestMeter(rounds[0]!.request!.payload, null)!.calibrated).toBe(false);
  });

  it('says where the total comes from, and that the split is estimated', () => {
    const v = one({});
    expect(meterLine(v)).toBe('2,100 of 4,096 tokens (51%)');
    expect(totalNote(v)).toContain("Ollama's count");
    expect(splitNote(v)).toMatch(/^Split estimated/);
    expect(warning(v)).toBe('');
    const cache = one({ source: 'cache', counted: 300 });
    expect(totalNote(cache)).toContain('only the 300 tokens it did not have cached');
  });

  it('counts against what Ollama allocated when it differs from num_ctx, and says so', () => {
    const v = one({ num_ctx: 8192, loaded: 4096 });
    expect(v.context).toBe(4096);
    expect(v.allocatedDiffers).toBe(true);
    expect(allocatedNote(v)).toBe('Ollama allocated 4,096 tokens, not the num_ctx 8,192 asked for: the meter counts against 4,096.');
  });

  it('warns from 80% and at a dropped prompt, not below', () => {
    const at = (prompt: number, extra: Partial<ContextMeter> = {}) => warning(one({ prompt, ...extra }));
    expect(at(3200)).toBe('');
    expect(at(3277)).toContain('80%');
    expect(at(4096)).toContain('fills the whole context');
    expect(at(1200, { dropped: true })).toContain('dropped part of this prompt');
  });

  it('is null for a request logged before the meter', () => {
    const log = new EventLog();
    log.user('x');
    log.request({ prompt_estimate: 300 });
    expect(requestMeter(log.events.find(isModelRequest)!.payload, null)).toBeNull();
  });
});

describe('sessionMeter', () => {
  it('is the latest request, with the fullest one and how many reached 80%', () => {
    const runs = buildTimeline(
      session([{ meter: meter({ prompt: 1000 }) }, { meter: meter({ prompt: 3500 }) }, { meter: meter({ prompt: 2000 }) }, {}]),
    ).runs;
    const s = sessionMeter(runs)!;
    expect(s.requests).toBe(4);
    expect(s.latest.measured).toBe(false);
    expect(s.round).toBe(4);
    expect(s.peak).toMatchObject({ total: 3500, context: 4096, round: 2 });
    expect(s.high).toBe(1);
  });

  it('is null with no request', () => {
    const log = new EventLog();
    log.user('x');
    expect(sessionMeter(buildTimeline(log.events).runs)).toBeNull();
  });
});
