import { describe, expect, it } from 'vitest';
import { repeatRun, runOf } from '../replay/long';
import { recording } from '../replay/recordings';
import { EventLog, makeSummary } from '../testing/events';
import { RUNS_SHOWN, SessionState } from './session.svelte';

describe('SessionState', () => {
  it('shows the latest runs of a long session and more on demand', () => {
    const s = new SessionState(makeSummary({ id: 'long' }));
    s.applyEvents(repeatRun(runOf(recording('tour'), 1), RUNS_SHOWN + 5, 'long'));
    expect(s.timeline.runs).toHaveLength(RUNS_SHOWN + 5);
    expect(s.shownRuns).toHaveLength(RUNS_SHOWN);
    expect(s.shownRuns[0]!.run).toBe(6);
    expect(s.hiddenRuns).toBe(5);
    s.showEarlier();
    expect(s.shownRuns).toHaveLength(RUNS_SHOWN + 5);
    expect(s.hiddenRuns).toBe(0);
  });

  it('navigates the cards it shows', () => {
    const s = new SessionState(makeSummary({ id: 's1' }));
    const log = new EventLog('s1');
    log.user('x');
    log.request();
    log.response({ content: 'y' });
    log.end('answered', 'y');
    s.applyEvents(log.events);
    expect(s.moveFocus(1)).toBe('e:1');
    expect(s.moveFocus(1)).toBe('e:2');
    expect(s.moveFocus(-1)).toBe('e:1');
    expect(s.moveFocus(-1)).toBe('e:1');
  });

  it('ignores events of other sessions', () => {
    const s = new SessionState(makeSummary({ id: 's1' }));
    s.applyEvents(new EventLog('s2').events.concat([new EventLog('s2').user('no')]));
    expect(s.events).toEqual([]);
  });
});
