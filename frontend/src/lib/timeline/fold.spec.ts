import { describe, expect, it } from 'vitest';
import { foldRanges } from './fold';

const cut = (text: string, q: string) => foldRanges(text, q).map(([a, b]) => text.slice(a, b));

describe('foldRanges', () => {
  it('finds a query as the backend does: substrings, any case, no overlaps', () => {
    expect(cut('opts = parse_args(argv); PARSE_ARGS(x)', 'parse_args(')).toEqual(['parse_args(', 'PARSE_ARGS(']);
    expect(cut('open .ENV and .env', '.env')).toEqual(['.ENV', '.env']);
    expect(cut('aaaa', 'aa')).toEqual(['aa', 'aa']);
    expect(cut('"ENOENT" and ENOENT', '"enoent"')).toEqual(['"ENOENT"']);
  });
  it('maps back to the text where lowercasing changes lengths or characters take two units', () => {
    expect(cut('İstanbul istanbul', 'istanbul')).toEqual(['İstanbul', 'istanbul']);
    expect(cut('日本 🙂 needle', 'NEEDLE')).toEqual(['needle']);
    expect(cut('Straße STRASSE', 'straße')).toEqual(['Straße']);
  });
  it('matches nothing for white space or nothing', () => {
    expect(foldRanges('a b', ' ')).toEqual([]);
    expect(foldRanges('abc', '')).toEqual([]);
    expect(foldRanges('abc', 'zzz')).toEqual([]);
  });
});
