// A small text diff for "before → after" views: by line, or by word when
// both sides are one line. The diff itself is jsdiff's (the `diff`
// package, imported from its array module alone: its index would bring
// every kind of diff into the bundle); this file only chooses the tokens
// and shapes the result.
import { diffArrays } from 'diff/lib/diff/array.js';

export type TextOpKind = 'eq' | 'add' | 'del';

export interface TextOp {
  kind: TextOpKind;
  text: string;
}

/**
 * Past this many removed plus added tokens jsdiff gives up, and the part
 * between the common start and end is shown as all removed, all added:
 * still true, just not the shortest. jsdiff's time grows with the square
 * of this bound; at 400 giving up takes about 100 ms on a slow machine,
 * and a diff of more changed lines than that is no longer read line by
 * line anyway.
 */
const MAX_EDITS = 400;

/** Splits into lines that keep their "\n", or words that keep their spacing. */
export function tokenize(s: string, by: 'line' | 'word'): string[] {
  if (s === '') return [];
  return by === 'line' ? s.split(/(?<=\n)/) : s.split(/(?<=\s)(?=\S)/);
}

/** Ops over token lists, from jsdiff's Myers diff; consecutive ops of one kind are merged. */
export function diffTokens(a: readonly string[], b: readonly string[]): TextOp[] {
  const ops: TextOp[] = [];
  const push = (kind: TextOpKind, text: string) => {
    if (text === '') return;
    const last = ops[ops.length - 1];
    if (last && last.kind === kind) last.text += text;
    else ops.push({ kind, text });
  };
  const changes = diffArrays([...a], [...b], { maxEditLength: MAX_EDITS });
  if (changes) {
    for (const c of changes) push(c.added ? 'add' : c.removed ? 'del' : 'eq', c.value.join(''));
    return ops;
  }
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  push('eq', a.slice(0, start).join(''));
  push('del', a.slice(start, endA).join(''));
  push('add', b.slice(start, endB).join(''));
  push('eq', a.slice(endA).join(''));
  return ops;
}

/**
 * Diffs two texts: by word when both are a single line, else by line. A
 * line that shares only a few words with the other is shown replaced as a
 * whole: scattered matches of "the" and "in" read worse than no diff.
 */
export function diffText(before: string, after: string): TextOp[] {
  const by = before.includes('\n') || after.includes('\n') ? 'line' : 'word';
  const ops = diffTokens(tokenize(before, by), tokenize(after, by));
  if (by === 'word' && before && after) {
    const same = ops.reduce((n, o) => (o.kind === 'eq' ? n + o.text.length : n), 0);
    if (same * 3 < Math.min(before.length, after.length)) return [{ kind: 'del', text: before }, { kind: 'add', text: after }];
  }
  return ops;
}

/** How much was added and removed, in characters. */
export function textDiffStats(ops: readonly TextOp[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const o of ops) {
    if (o.kind === 'add') added += o.text.length;
    else if (o.kind === 'del') removed += o.text.length;
  }
  return { added, removed };
}
