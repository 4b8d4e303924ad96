// Forks as the window draws them: which event a card forks at, which forks
// a card carries the mark of, and the session list as a tree (a fork under
// the session it came from). Pure functions of the card and the list.
import type { Summary } from '../types';
import type { CardModel } from './rows';

/** The event a Fork from this card forks at: the card's event, or for a call the last event it has. */
export function cardForkSeq(card: CardModel): number | null {
  if (card.kind === 'call') {
    const it = card.item;
    return (it.result ?? it.permission ?? it.call)?.seq ?? null;
  }
  return card.event?.seq ?? null;
}

/** Every event a card draws. */
export function cardSeqs(card: CardModel): number[] {
  if (card.kind === 'call') {
    const it = card.item;
    return [it.call?.seq, it.permission?.seq, it.result?.seq].filter((s): s is number => s != null);
  }
  return card.event ? [card.event.seq] : [];
}

/** The sessions forked from session at one of the events seqs, oldest point first. */
export function forksAt(sessions: readonly Summary[], session: string, seqs: readonly number[]): Summary[] {
  return sessions
    .filter((s) => s.forked_from === session && seqs.includes(s.fork_seq ?? 0))
    .sort((a, b) => (a.fork_seq ?? 0) - (b.fork_seq ?? 0));
}

/**
 * The list as a tree: each fork right after the session it came from (and
 * that one's other forks), with its depth; a fork whose parent is not in
 * the list stays where the list puts it, at depth 0. The order of the
 * roots, and of the forks of one parent, is the list's.
 */
export function forkTree(list: readonly Summary[]): { summary: Summary; depth: number }[] {
  const ids = new Set(list.map((s) => s.id));
  const children = new Map<string, Summary[]>();
  for (const s of list) {
    const p = s.forked_from ?? '';
    if (p && ids.has(p) && p !== s.id) children.set(p, [...(children.get(p) ?? []), s]);
  }
  const out: { summary: Summary; depth: number }[] = [];
  const seen = new Set<string>();
  const walk = (s: Summary, depth: number) => {
    if (seen.has(s.id)) return;
    seen.add(s.id);
    out.push({ summary: s, depth });
    for (const c of children.get(s.id) ?? []) walk(c, depth + 1);
  };
  for (const s of list) if (!(s.forked_from && ids.has(s.forked_from))) walk(s, 0);
  for (const s of list) walk(s, 0); // a cycle written by hand
  return out;
}
