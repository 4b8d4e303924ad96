import { describe, expect, it } from 'vitest';
import { diffText, diffTokens, textDiffStats, tokenize } from './textdiff';

describe('diffText', () => {
  it('diffs one line by word', () => {
    expect(diffText('read the README file', 'read the main file')).toEqual([
      { kind: 'eq', text: 'read the ' },
      { kind: 'del', text: 'README ' },
      { kind: 'add', text: 'main ' },
      { kind: 'eq', text: 'file' },
    ]);
  });

  it('diffs several lines by line', () => {
    const ops = diffText('a\nb\nc\n', 'a\nB\nc\nd\n');
    expect(ops).toEqual([
      { kind: 'eq', text: 'a\n' },
      { kind: 'del', text: 'b\n' },
      { kind: 'add', text: 'B\n' },
      { kind: 'eq', text: 'c\n' },
      { kind: 'add', text: 'd\n' },
    ]);
    expect(textDiffStats(ops)).toEqual({ added: 4, removed: 2 });
  });

  it('replaces a line as a whole when it shares only a few words', () => {
    expect(diffText('You are a coding agent working in the workspace.', 'Answer in one word.')).toEqual([
      { kind: 'del', text: 'You are a coding agent working in the workspace.' },
      { kind: 'add', text: 'Answer in one word.' },
    ]);
  });

  it('handles empty sides and equal texts', () => {
    expect(diffText('', 'new')).toEqual([{ kind: 'add', text: 'new' }]);
    expect(diffText('old', '')).toEqual([{ kind: 'del', text: 'old' }]);
    expect(diffText('same', 'same')).toEqual([{ kind: 'eq', text: 'same' }]);
  });

  it('keeps every token: joining the sides gives back each text', () => {
    const a = 'The quick brown fox\njumps over\nthe lazy dog\n';
    const b = 'The quick red fox\njumps over\nthe dog\nand runs\n';
    const ops = diffText(a, b);
    expect(ops.filter((o) => o.kind !== 'add').map((o) => o.text).join('')).toBe(a);
    expect(ops.filter((o) => o.kind !== 'del').map((o) => o.text).join('')).toBe(b);
  });

  it('tokenizes keeping separators', () => {
    expect(tokenize('a b  c', 'word')).toEqual(['a ', 'b  ', 'c']);
    expect(tokenize('x\ny', 'line')).toEqual(['x\n', 'y']);
  });

  it('falls back to remove-all add-all when the middle is huge', () => {
    const a = Array.from({ length: 3000 }, (_, i) => `a${i}`);
    const b = Array.from({ length: 3000 }, (_, i) => `b${i}`);
    const ops = diffTokens(a, b);
    expect(ops.map((o) => o.kind)).toEqual(['del', 'add']);
  });

  it('keeps the shared start and end when it falls back', () => {
    const a = ['same\n', ...Array.from({ length: 3000 }, (_, i) => `a${i}\n`), 'end\n'];
    const b = ['same\n', ...Array.from({ length: 3000 }, (_, i) => `b${i}\n`), 'end\n'];
    const ops = diffTokens(a, b);
    expect(ops.map((o) => o.kind)).toEqual(['eq', 'del', 'add', 'eq']);
    expect(ops[0]!.text).toBe('same\n');
    expect(ops[3]!.text).toBe('end\n');
  });

  it('finds a shortest diff that gives back both sides (random lines)', () => {
    // Reference: the length of the longest common subsequence, by dynamic programming.
    const lcs = (a: string[], b: string[]): number => {
      const dp = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
      for (let i = a.length - 1; i >= 0; i--)
        for (let j = b.length - 1; j >= 0; j--)
          dp[i]![j] = a[i] === b[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
      return dp[0]![0]!;
    };
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const text = () => Array.from({ length: rand(20) }, () => 'abcd'[rand(4)] + '\n');
    for (let k = 0; k < 500; k++) {
      const a = text();
      const b = text();
      const ops = diffTokens(a, b);
      expect(ops.filter((o) => o.kind !== 'add').map((o) => o.text).join('')).toBe(a.join(''));
      expect(ops.filter((o) => o.kind !== 'del').map((o) => o.text).join('')).toBe(b.join(''));
      const edits = ops.filter((o) => o.kind !== 'eq').reduce((n, o) => n + o.text.length / 2, 0);
      expect(edits).toBe(a.length + b.length - 2 * lcs(a, b));
    }
  });
});
