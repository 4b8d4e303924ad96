import { describe, expect, it } from 'vitest';
import { ReplayBridge } from '../replay/bridge';
import { repeatRun, runOf } from '../replay/long';
import { recording } from '../replay/recordings';
import { EventLog, makeSummary } from '../testing/events';
import { parseEvent } from '../types';
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

  it('reads the pause from the log, hides the one being left, and shows the next', async () => {
    const replay = new ReplayBridge(recording('step_through'), { from: 'paused before_tool' });
    const snap = await replay.openSession('session-1');
    const s = new SessionState(snap.summary);
    s.applyEvents(snap.events);
    expect(s.pause).toMatchObject({ seq: 9, point: 'before_tool', tool: 'list_dir' });
    expect(s.pauseDraft?.key).toBe('9');
    expect(s.active).toBe(true);
    // Step is on its way: the editor goes, Stop still has a run to stop.
    s.leaving = 9;
    expect(s.pause).toBeNull();
    expect(s.active).toBe(true);
    // The engine ran the call and paused after it: that pause shows.
    await replay.do({ do: 'step', session: 'session-1', at: 9 });
    await new Promise((r) => setTimeout(r, 0));
    s.applyEvents(replay.events);
    expect(s.pause).toMatchObject({ seq: 13, point: 'after_result', result: { content: 'README.md\nnotes.txt\n' } });
    expect(s.summary.standing).toBe('paused');
  });

  it('has no pause and nothing to stop once the run ended', () => {
    const s = new SessionState(makeSummary({ id: 'session-1' }));
    s.applyEvents(recording('stop_paused').steps.flatMap((st) => (st.event !== undefined ? [parseEvent(st.event)!] : [])));
    expect(s.events.at(-1)?.kind).toBe('run_end');
    expect(s.pause).toBeNull();
    expect(s.asks).toEqual([]);
    expect(s.active).toBe(false);
    expect(s.summary).toMatchObject({ running: false, open_run: 0, standing: '', last_reason: 'cancelled' });
  });
});
