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
});
