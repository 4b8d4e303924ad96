// Two sessions side by side, round by round (session.Compare in Go): what
// the compare view draws. Every figure, the alignment and where the two
// diverge are computed in Go; this only fills Go's nil lists in.
import type { CallFigure, CompareFigures, CompareRow, CompareTotals, Comparison as WireComparison, RoundFigures as WireRound, StoredSession } from './go';
import { isRecord } from './json';

/** A round of one session (trace.RoundFigures), its calls filled in. */
export type RoundFigures = Omit<WireRound, 'calls'> & { calls: CallFigure[] };
/** One session's rounds and totals (trace.Figures). */
export type SideFigures = Omit<CompareFigures, 'rounds'> & { rounds: RoundFigures[] };
/** One aligned round: a or b is null where that session has no such round. */
export type AlignedRow = Omit<CompareRow, 'a' | 'b'> & { a: RoundFigures | null; b: RoundFigures | null };
/** The comparison (session.Comparison), its lists filled in. */
export type Comparison = Omit<WireComparison, 'sessions' | 'a' | 'b' | 'rows'> & {
  sessions: StoredSession[];
  a: SideFigures;
  b: SideFigures;
  rows: AlignedRow[];
};

const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});

function roundOf(v: unknown): RoundFigures | null {
  if (!isRecord(v)) return null;
  return {
    ...(v as unknown as WireRound),
    calls: arr(v['calls']).filter(isRecord).map((c) => ({
      name: str(c['name']),
      args: str(c['args']),
      outcome: str(c['outcome']),
      duration_ms: num(c['duration_ms']),
    })),
  };
}

function totalsOf(v: unknown): CompareTotals {
  const t = rec(v);
  return {
    runs: num(t['runs']),
    rounds: num(t['rounds']),
    calls: num(t['calls']),
    prompt_tokens: num(t['prompt_tokens']),
    output_tokens: num(t['output_tokens']),
    model_ms: num(t['model_ms']),
    tool_ms: num(t['tool_ms']),
    wall_ms: num(t['wall_ms']),
    denials: num(t['denials']),
    errors: num(t['errors']),
    end: str(t['end']),
  };
}

function sideOf(v: unknown): SideFigures {
  const f = rec(v);
  return {
    rounds: arr(f['rounds']).map(roundOf).filter((r): r is RoundFigures => r !== null),
    totals: totalsOf(f['totals']),
    open: f['open'] === true,
  };
}

/** A comparison as the Go side encodes it, with nils as empty lists. */
export function comparisonOf(v: unknown): Comparison {
  const c = rec(v);
  const why = str(c['why']);
  return {
    sessions: arr(c['sessions']).filter(isRecord) as unknown as StoredSession[],
    a: sideOf(c['a']),
    b: sideOf(c['b']),
    rows: arr(c['rows']).filter(isRecord).map((r) => ({
      run: num(r['run']),
      round: num(r['round']),
      a: roundOf(r['a']),
      b: roundOf(r['b']),
      same: r['same'] === true,
    })),
    diverge: typeof c['diverge'] === 'number' ? c['diverge'] : -1,
    ...(why ? { why } : {}),
  };
}
