// Two sessions side by side, round by round (session.Compare in Go): what
// the compare view draws. Every figure, the alignment and where the two
// diverge are computed in Go; the window's types are Go's with its nil
// lists as empty ones, and that is all comparisonOf changes.
import type { CallFigure, CompareFigures, CompareRow, Comparison as WireComparison, RoundFigures as WireRound, StoredSession } from './go';
import { list } from './json';

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

const round = (r: WireRound): RoundFigures => ({ ...r, calls: list(r.calls) });
const side = (f: CompareFigures): SideFigures => ({ ...f, rounds: list(f.rounds).map(round) });

/** Go's comparison with its nil lists as empty ones. */
export function comparisonOf(c: WireComparison): Comparison {
  return {
    ...c,
    sessions: list(c.sessions),
    a: side(c.a),
    b: side(c.b),
    rows: list(c.rows).map((r) => ({ ...r, a: r.a && round(r.a), b: r.b && round(r.b) })),
  };
}
