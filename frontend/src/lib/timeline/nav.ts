// The cards of a timeline in display order, for next/previous navigation.
import type { RunGroup } from './group';
import { cardsOf, timelineRows } from './rows';

export type CardKind =
  | 'user'
  | 'request'
  | 'response'
  | 'call'
  | 'observation'
  | 'notice'
  | 'error'
  | 'end'
  | 'checkpoint'
  | 'edit'
  | 'restore'
  | 'compaction'
  | 'hook';

export interface CardRef {
  id: string;
  kind: CardKind;
}

/** Every card of these runs in the order the timeline shows them. */
export function flattenCards(runs: readonly RunGroup[]): CardRef[] {
  return cardsOf(timelineRows(runs)).map((c) => ({ id: c.id, kind: c.kind }));
}

/**
 * The card after (dir 1) or before (dir -1) the current one. With no
 * current card (or one that is gone), next starts at the first card and
 * previous at the last. Stays put at either end.
 */
export function neighbour(ids: readonly string[], current: string | null, dir: 1 | -1): string | null {
  if (ids.length === 0) return null;
  const i = current == null ? -1 : ids.indexOf(current);
  if (i < 0) return dir === 1 ? ids[0]! : ids[ids.length - 1]!;
  const j = Math.min(ids.length - 1, Math.max(0, i + dir));
  return ids[j]!;
}
