// "Try this request on…": the words and numbers the comparison panel shows
// of what Go compared (session.TryResult). Nothing is compared here.
import type { TryDiffLine, TryFigure } from '../types';
import { formatCount, formatDuration, formatRate } from './metrics';

/** One figure as the panel writes it ("-" for a side that has none). */
export function figureText(f: TryFigure, side: 'recorded' | 'alternative'): string {
  const v = f[side];
  if (v == null) return '-';
  switch (f.unit) {
    case 'ns':
      return formatDuration(v / 1e6);
    case 'share':
      return `${Math.round(v * 100)} %`;
    case 'tokens_per_second':
      return formatRate(v);
    default:
      return formatCount(v);
  }
}

/** The lines of one side of a text diff: the recorded side keeps the removed lines, the alternative the added ones. */
export function sideLines(lines: TryDiffLine[] | null, side: 'recorded' | 'alternative'): TryDiffLine[] {
  const drop = side === 'recorded' ? 'added' : 'removed';
  return (lines ?? []).filter((l) => l.op !== drop);
}

/** What a verdict on a pair of calls says. */
export const CALL_VERDICTS: Record<string, string> = {
  same: 'the same',
  args_differ: 'other arguments',
  only_recorded: 'only the recorded answer',
  only_alternative: 'only the alternative',
};

/** What a try changed of the recorded request, in words. */
export function changedText(changed: string[] | null, exact: boolean): string {
  if (exact) return 'The recorded request, byte for byte.';
  const names: Record<string, string> = { body: 'the body (edited)', model: 'the model', temperature: 'the temperature', num_ctx: 'num_ctx', host: 'the host' };
  const list = (changed ?? []).map((c) => names[c] ?? c);
  return list.length ? `Changed from the recorded request: ${list.join(', ')}.` : 'The recorded request, written again.';
}
