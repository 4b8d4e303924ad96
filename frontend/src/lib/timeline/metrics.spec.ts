import { describe, expect, it } from 'vitest';
import { EventLog } from '../testing/events';
import { buildTimeline } from './group';
import { estimateAccuracy, formatBytes, formatDuration, formatRate, roundMetrics, runTotals } from './metrics';

describe('roundMetrics', () => {
  it('converts Ollama nanoseconds and computes speeds', () => {
    const log = new EventLog();
    log.user('x');
    const req = log.request({ prompt_estimate: 1100 });
    const resp = log.response({
      metrics: {
        prompt_eval_count: 1000,
        eval_count: 50,
        total_duration: 3_000_000_000,
        load_duration: 0,
        prompt_eval_duration: 500_000_000,
        eval_duration: 2_000_000_000,
        time_to_first_token: 700_000_000,
      },
    });
    const m = roundMetrics(req, resp);
    expect(m.estimate).toBe(1100);
    expect(m.promptTokens).toBe(1000);
    expect(m.outputTokens).toBe(50);
    expect(m.totalMs).toBe(3000);
    expect(m.ttftMs).toBe(700);
    expect(m.loadMs).toBeNull();
    expect(m.tokensPerSec).toBe(25);
    expect(m.promptTokensPerSec).toBe(2000);
  });

  it('has only the estimate before the response', () => {
    const log = new EventLog();
    log.user('x');
    const m = roundMetrics(log.request({ prompt_estimate: 10 }));
    expect(m.estimate).toBe(10);
    expect(m.promptTokens).toBeNull();
    expect(m.tokensPerSec).toBeNull();
  });

  it('has no speed when a duration is zero', () => {
    const log = new EventLog();
    log.user('x');
    log.request();
    const r = log.response();
    r.payload.metrics.eval_duration = 0;
    expect(roundMetrics(undefined, r).tokensPerSec).toBeNull();
  });
});

describe('runTotals', () => {
  it('sums rounds, calls, tokens and times', () => {
    const log = new EventLog('s', Date.UTC(2026, 0, 1), 1000);
    log.user('x');
    log.request();
    log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'glob', args: {} }] });
    log.result({ call_id: 'c1', name: 'glob', duration_ms: 40 });
    log.request();
    log.response({ content: 'ok' });
    log.end('answered', 'ok');
    const t = runTotals(buildTimeline(log.events).runs[0]!);
    expect(t.rounds).toBe(2);
    expect(t.calls).toBe(1);
    expect(t.promptTokens).toBe(1024);
    expect(t.outputTokens).toBe(128);
    expect(t.modelMs).toBe(4800);
    expect(t.toolMs).toBe(40);
    expect(t.wallMs).toBe(6000);
  });
});

describe('formatting', () => {
  it('formats durations for people', () => {
    expect(formatDuration(0.3)).toBe('<1 ms');
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(2400)).toBe('2.40 s');
    expect(formatDuration(12_345)).toBe('12.3 s');
    expect(formatDuration(65_000)).toBe('1 min 5 s');
    expect(formatDuration(null)).toBe('-');
  });

  it('formats rates and sizes', () => {
    expect(formatRate(4.25)).toBe('4.3 tok/s');
    expect(formatRate(42.4)).toBe('42 tok/s');
    expect(formatRate(null)).toBe('-');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(2048)).toBe('2.0 KB');
    expect(formatBytes(522_653_767)).toBe('498.4 MB');
  });

  it('says how far the estimate was', () => {
    expect(estimateAccuracy(1100, 1000)).toBe('estimate 10% high');
    expect(estimateAccuracy(900, 1000)).toBe('estimate 10% low');
    expect(estimateAccuracy(1000, 1000)).toBe('estimate exact');
    expect(estimateAccuracy(1000, null)).toBeNull();
    expect(estimateAccuracy(1000, 0)).toBeNull();
  });
});
