import { describe, expect, it } from 'vitest';
import { allRecordings } from '../replay/recordings';
import { isRecord } from '../types';
import { explainEnd, explainNotice } from './explain';
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
      ['printed_call', 'Call not recovered', 'warn'],
    ];
    for (const [reason, label, tone] of cases) {
      const t = stopText(reason);
      expect(t.label).toBe(label);
      expect(t.tone).toBe(tone);
      expect(t.explanation.length).toBeGreaterThan(20);
    }
  });

  it('has its own words for every reason and notice the recorded runs end or stop with', () => {
    const reasons = new Set<string>();
    const notices = new Set<string>();
    for (const r of allRecordings().values()) {
      for (const s of r.steps) {
        const e = s.event;
        if (!isRecord(e) || !isRecord(e['payload'])) continue;
        if (e['kind'] === 'run_end') reasons.add(String(e['payload']['reason']));
        if (e['kind'] === 'notice') notices.add(String(e['payload']['code']));
      }
    }
    expect(reasons).toContain('printed_call');
    for (const reason of reasons) {
      expect(stopText(reason).explanation, reason).not.toBe('');
      expect(explainEnd(reason), reason).not.toBe(explainEnd('some_new_reason'));
    }
    expect(notices).toContain('printed_call_unrecovered');
    expect(explainNotice('printed_call_unrecovered')).not.toBe(explainNotice('some_new_notice'));
  });

  it('adds the detail to the explanation', () => {
    expect(stopText('error', 'Ollama returned 500.').explanation).toMatch(/error.*Ollama returned 500\.$/);
  });

  it('shows an unknown reason readably', () => {
    expect(stopText('wall_time').label).toBe('wall time');
    expect(stopText('').label).toBe('Stopped');
  });
});
