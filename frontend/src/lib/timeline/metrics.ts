// Numbers of a round and a run. Ollama's durations are nanoseconds.
import type { ModelRequestEvent, ModelResponseEvent } from '../types';
import type { RunGroup } from './group';

export const nsToMs = (ns: number): number => ns / 1e6;

export interface RoundMetrics {
  /** Loupe's estimate of the prompt size, in tokens. */
  estimate: number | null;
  /** Ollama's count of prompt tokens (prompt_eval_count). */
  promptTokens: number | null;
  outputTokens: number | null;
  totalMs: number | null;
  loadMs: number | null;
  promptMs: number | null;
  evalMs: number | null;
  ttftMs: number | null;
  /** Generation speed: eval_count over eval_duration. */
  tokensPerSec: number | null;
  /** Prompt processing speed. */
  promptTokensPerSec: number | null;
}

function rate(count: number, ns: number): number | null {
  return count > 0 && ns > 0 ? count / (ns / 1e9) : null;
}

const positive = (n: number | undefined): number | null => (n != null && n > 0 ? n : null);

export function roundMetrics(req?: ModelRequestEvent, resp?: ModelResponseEvent): RoundMetrics {
  const m = resp?.payload.metrics;
  return {
    estimate: req ? req.payload.prompt_estimate : null,
    // No prompt has 0 tokens: 0 is a count that was not made (the scripted demo).
    promptTokens: m ? positive(m.prompt_eval_count) : null,
    outputTokens: m ? m.eval_count : null,
    totalMs: m ? positive(nsToMs(m.total_duration)) : null,
    loadMs: m ? positive(nsToMs(m.load_duration)) : null,
    promptMs: m ? positive(nsToMs(m.prompt_eval_duration)) : null,
    evalMs: m ? positive(nsToMs(m.eval_duration)) : null,
    ttftMs: m ? positive(nsToMs(m.time_to_first_token)) : null,
    tokensPerSec: m ? rate(m.eval_count, m.eval_duration) : null,
    promptTokensPerSec: m ? rate(m.prompt_eval_count, m.prompt_eval_duration) : null,
  };
}

export interface RunTotals {
  rounds: number;
  calls: number;
  promptTokens: number;
  outputTokens: number;
  /** Time spent in the model, summed over rounds. */
  modelMs: number;
  /** Time spent in tools, summed over calls. */
  toolMs: number;
  /** From the user's message to run_end, when both exist. */
  wallMs: number | null;
}

export function runTotals(run: RunGroup): RunTotals {
  const t: RunTotals = { rounds: 0, calls: 0, promptTokens: 0, outputTokens: 0, modelMs: 0, toolMs: 0, wallMs: null };
  for (const g of run.rounds) {
    // Compact now after the run's end is no round of it.
    if (g.request && !g.afterEnd) t.rounds++;
    for (const it of g.items) {
      // Every answer counts, a summary for a compaction too.
      if (it.kind === 'response') {
        const m = it.event.payload.metrics;
        t.promptTokens += m.prompt_eval_count;
        t.outputTokens += m.eval_count;
        t.modelMs += nsToMs(m.total_duration);
      }
      if (it.kind !== 'call') continue;
      t.calls++;
      t.toolMs += it.result?.payload.duration_ms ?? 0;
    }
  }
  if (run.user && run.end) {
    const ms = Date.parse(run.end.time) - Date.parse(run.user.time);
    t.wallMs = Number.isFinite(ms) && ms >= 0 ? ms : null;
  }
  return t;
}

/** "850 ms", "2.4 s", "1 min 5 s". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms == null || !Number.isFinite(ms)) return '-';
  if (ms < 1) return '<1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const min = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${min} min ${s} s`;
}

export function formatRate(tps: number | null | undefined): string {
  if (tps == null || !Number.isFinite(tps)) return '-';
  return `${tps < 10 ? tps.toFixed(1) : Math.round(tps)} tok/s`;
}

// Created once: building a formatter per call is slow on long timelines.
const countFormat = new Intl.NumberFormat('en-US');

export function formatCount(n: number | null | undefined): string {
  if (n == null || !Number.isFinite(n)) return '-';
  return countFormat.format(n);
}

/**
 * What a tool schema costs every request, saying whose count it is:
 * Ollama's own (its rendering of the model's template) or Loupe's byte
 * estimate, which can be far off for a model's real tokenizer.
 */
export function schemaCost(tokens: number, measured: boolean | null | undefined): string {
  return measured ? `${formatCount(tokens)} tokens (measured by Ollama)` : `≈${formatCount(tokens)} tokens (estimated)`;
}

export function formatBytes(n: number | null | undefined): string {
  if (n == null || !Number.isFinite(n)) return '-';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(1)} GB`;
}

/** How far Loupe's estimate is from Ollama's count, e.g. "estimate 12% high". */
export function estimateAccuracy(estimate: number | null, actual: number | null): string | null {
  if (estimate == null || actual == null || actual <= 0) return null;
  const diff = (estimate - actual) / actual;
  const pct = Math.round(Math.abs(diff) * 100);
  if (pct === 0) return 'estimate exact';
  return `estimate ${pct}% ${diff > 0 ? 'high' : 'low'}`;
}

/**
 * A count with its noun, singular for exactly one: "1 card", "3 cards",
 * "1,452 tokens". Every count the window writes in words goes through here,
 * so none reads "the 1 cards".
 */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}
