// A small text diff for "before → after" views: by line, or by word when
// both sides are one line. Longest common subsequence over the part that
// differs, after trimming what both sides share at the start and the end.

export type TextOpKind = 'eq' | 'add' | 'del';

export interface TextOp {
  kind: TextOpKind;
  text: string;
}

/** Above this many cells the middle is shown as all removed, all added. */
const MAX_CELLS = 2_000_000;

/** Splits into lines that keep their "\n", or words that keep their spacing. */
export function tokenize(s: string, by: 'line' | 'word'): string[] {
  if (s === '') return [];
  return by === 'line' ? s.split(/(?<=\n)/) : s.split(/(?<=\s)(?=\S)/);
}

/** Ops over token lists; consecutive ops of one kind are merged. */
export function diffTokens(a: readonly string[], b: readonly string[]): TextOp[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops: TextOp[] = [];
  const push = (kind: TextOpKind, text: string) => {
    if (text === '') return;
    const last = ops[ops.length - 1];
    if (last && last.kind === kind) last.text += text;
    else ops.push({ kind, text });
  };
  for (let i = 0; i < start; i++) push('eq', a[i]!);

  const ma = a.slice(start, endA);
  const mb = b.slice(start, endB);
  const n = ma.length;
  const m = mb.length;
  if (n * m > MAX_CELLS) {
    push('del', ma.join(''));
    push('add', mb.join(''));
  } else {
    // lcs[i][j]: length of the LCS of ma[i:] and mb[j:], in one flat array.
    const w = m + 1;
    const lcs = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * w + j] = ma[i] === mb[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (ma[i] === mb[j]) {
        push('eq', ma[i]!);
        i++;
        j++;
      } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) {
        push('del', ma[i]!);
        i++;
      } else {
        push('add', mb[j]!);
        j++;
      }
    }
    while (i < n) push('del', ma[i++]!);
    while (j < m) push('add', mb[j++]!);
  }

  for (let i = endA; i < a.length; i++) push('eq', a[i]!);
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
