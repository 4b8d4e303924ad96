import { describe, expect, it } from 'vitest';
import { recording } from '../replay/recordings';
import { isCompaction, parseEvent, type CompactionEvent, type TraceEvent } from '../types';
import { compactBlocked, compactionSpan, compactionTokens, compactionTrigger } from './compaction';
import { buildTimeline } from './group';
import { runTotals } from './metrics';
import { cardsOf, timelineRows } from './rows';

// The events the engine recorded (backend/session recordings_test.go,
// "compaction"): a run that compacts at its threshold, then Compact now.
function events(): TraceEvent[] {
  const out: TraceEvent[] = [];
  for (const s of recording('compaction').steps) {
    const e = s.event === undefined ? null : parseEvent(s.event);
    if (e) out.push(e);
  }
  return out;
}

describe('compaction in words', () => {
  const base = { request_seq: 1, trigger: 'threshold', summary: 's', from_seq: 1, through_seq: 9, messages: 5, tokens_before: 4948, tokens_after: 3323 };
  it('names the rounds it replaced, within a run or across runs', () => {
    expect(compactionSpan({ ...base, from_run: 1, from_round: 0, through_run: 1, through_round: 2 })).toBe('the message and rounds 1–2 of run 1');
    expect(compactionSpan({ ...base, from_run: 2, from_round: 3, through_run: 2, through_round: 3 })).toBe('round 3 of run 2');
    expect(compactionSpan({ ...base, from_run: 1, from_round: 0, through_run: 3, through_round: 4 })).toBe("run 1's message to run 3 round 4");
  });
  it('says the tokens before and after only when both are known', () => {
    expect(compactionTokens({ ...base, from_run: 1, from_round: 0, through_run: 1, through_round: 2 })).toBe('~4,948 → ~3,323 tokens');
    expect(compactionTokens({ ...base, tokens_before: 0, from_run: 1, from_round: 0, through_run: 1, through_round: 2 })).toBe('');
  });
  it('says what made Loupe compact', () => {
    expect(['threshold', 'does_not_fit', 'button'].map(compactionTrigger)).toEqual(['context nearly full', 'prompt did not fit', 'Compact now']);
  });
  it('says why Compact now is off: a run going, a summary on its way, nothing yet', () => {
    expect(compactBlocked({ active: true, compacting: false, runs: 1 })).toMatch(/run is going/);
    expect(compactBlocked({ active: false, compacting: true, runs: 1 })).toMatch(/writing the summary/);
    expect(compactBlocked({ active: false, compacting: false, runs: 0 })).toMatch(/Nothing to compact/);
    expect(compactBlocked({ active: false, compacting: false, runs: 1 })).toBe('');
  });
});

describe('compaction on the timeline', () => {
  it('puts the automatic one in its round, after its summarising request, and Compact now after the run’s end', () => {
    const evs = events();
    const comps = evs.filter(isCompaction) as CompactionEvent[];
    expect(comps.map((c) => c.payload.trigger)).toEqual(['threshold', 'button']);
    const cards = cardsOf(timelineRows(buildTimeline(evs).runs));
    const kinds = cards.map((c) => c.kind);
    const auto = kinds.indexOf('compaction');
    // summarising request, its answer, the compaction, then the round's own request.
    expect(kinds.slice(auto - 2, auto + 2)).toEqual(['request', 'response', 'compaction', 'request']);
    const summarising = cards[auto - 2]!.event;
    expect(summarising?.kind === 'model_request' && summarising.payload.purpose).toBe('compaction');
    const end = kinds.indexOf('end');
    expect(kinds.slice(end)).toEqual(['end', 'request', 'response', 'compaction']);
  });

  it('keeps the round’s request and answer its own, not the summarising ones', () => {
    const t = buildTimeline(events());
    const g = t.runs[0]!.rounds.find((r) => r.items.some((it) => it.kind === 'compaction') && !r.afterEnd)!;
    expect(g.request?.payload.purpose).toBeUndefined();
    expect(g.response?.payload.request_seq).toBe(g.request?.seq);
    expect(t.runs[0]!.rounds.filter((r) => r.afterEnd)).toHaveLength(1);
  });

  it('counts the run’s rounds without Compact now, and the summaries’ tokens with the run’s', () => {
    const evs = events();
    const run = buildTimeline(evs).runs[0]!;
    const end = evs.find((e) => e.kind === 'run_end');
    expect(end?.kind === 'run_end' && runTotals(run).rounds).toBe(end?.kind === 'run_end' ? end.payload.rounds : -1);
    let tokens = 0;
    for (const e of evs) if (e.kind === 'model_response') tokens += e.payload.metrics.prompt_eval_count;
    expect(runTotals(run).promptTokens).toBe(tokens);
  });
});
