// Where a search's text is in what a card shows: the backend matches a
// query as a substring ignoring case (store.matchesFold, as the trigram
// index folds it); the window marks the same places.

/** Each character of `s` with its start, as code-unit offsets. */
function chars(s: string): { c: string; at: number }[] {
  const out: { c: string; at: number }[] = [];
  let at = 0;
  for (const c of s) {
    out.push({ c, at });
    at += c.length;
  }
  return out;
}

/** A character lowercased to one character, as Go's unicode.ToLower does (İ is i). */
function lowerOne(c: string): string {
  const l = c.toLowerCase();
  return l.length === c.length ? l : ([...l][0] ?? l);
}

/**
 * The [start, end) code-unit ranges of the occurrences of `q` in `text`,
 * without overlaps, comparing characters lowercased one by one (so that a
 * character whose lowercase is longer, as İ, is one character still).
 * A query of only white space matches nothing.
 */
export function foldRanges(text: string, q: string, max = 1000): [number, number][] {
  const qs = [...q].map(lowerOne);
  if (q.trim() === '' || qs.length === 0) return [];
  const ts = chars(text);
  const lower = ts.map((x) => lowerOne(x.c));
  const out: [number, number][] = [];
  for (let i = 0; i + qs.length <= ts.length && out.length < max; ) {
    let k = 0;
    while (k < qs.length && lower[i + k] === qs[k]) k++;
    if (k === qs.length) {
      const last = ts[i + k - 1]!;
      out.push([ts[i]!.at, last.at + last.c.length]);
      i += k;
    } else {
      i++;
    }
  }
  return out;
}
