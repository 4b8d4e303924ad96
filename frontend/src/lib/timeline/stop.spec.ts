import { describe, expect, it } from 'vitest';
import { stopText } from './stop';

describe('stopText', () => {
  it('says every known stop reason in plain words', () => {
    const cases: [string, string, string][] = [
      ['answered', 'Answered', 'ok'],
      ['round_cap', 'Round limit reached', 'warn'],
      ['cancelled', 'Stopped by you', 'neutral'],
      ['error', 'Error', 'error'],
      ['truncated', 'Answer cut off', 'warn'],
      ['interrupted', 'Interrupted', 'warn'],
    ];
    for (const [reason, label, tone] of cases) {
      const t = stopText(reason);
      expect(t.label).toBe(label);
      expect(t.tone).toBe(tone);
      expect(t.explanation.length).toBeGreaterThan(20);
    }
  });

  it('adds the detail to the explanation', () => {
    expect(stopText('error', 'Ollama returned 500.').explanation).toMatch(/error.*Ollama returned 500\.$/);
  });

  it('shows an unknown reason readably', () => {
    expect(stopText('wall_time').label).toBe('wall time');
    expect(stopText('').label).toBe('Stopped');
  });
});
