import { describe, expect, it } from 'vitest';
import { changedText, figureText, sideLines } from './tries';

describe('tries', () => {
  it('writes each unit of a figure, and a dash for a side without one', () => {
    expect(figureText({ key: 'total', label: 'Total', unit: 'ns', recorded: 2.5e9, alternative: null }, 'recorded')).toBe('2.50 s');
    expect(figureText({ key: 'total', label: 'Total', unit: 'ns', recorded: 2.5e9, alternative: null }, 'alternative')).toBe('-');
    expect(figureText({ key: 'context_share', label: 's', unit: 'share', recorded: 0.456, alternative: 1 }, 'recorded')).toBe('46 %');
    expect(figureText({ key: 'prompt_tokens', label: 'p', unit: 'tokens', recorded: 12345, alternative: 1 }, 'recorded')).toBe('12,345');
    expect(figureText({ key: 'speed', label: 's', unit: 'tokens_per_second', recorded: 5, alternative: 1 }, 'recorded')).toBe('5.0 tok/s');
  });
  it('keeps the removed lines on the recorded side and the added on the alternative', () => {
    const lines = [
      { op: 'same', text: 'a' },
      { op: 'removed', text: 'b' },
      { op: 'added', text: 'c' },
    ];
    expect(sideLines(lines, 'recorded').map((l) => l.text)).toEqual(['a', 'b']);
    expect(sideLines(lines, 'alternative').map((l) => l.text)).toEqual(['a', 'c']);
  });
  it('says what changed', () => {
    expect(changedText([], true)).toMatch(/byte for byte/);
    expect(changedText(['model', 'num_ctx'], false)).toBe('Changed from the recorded request: the model, num_ctx.');
  });
});
