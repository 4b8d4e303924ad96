import { describe, expect, it } from 'vitest';
import { ReplayBridge } from '../replay/bridge';
import { repeatRun, runOf } from '../replay/long';
import { recording } from '../replay/recordings';
import { EventLog, makeSummary } from '../testing/events';
import { parseEvent } from '../types';
import { SessionState } from './session.svelte';

describe('SessionState', () => {
  it('lists every run of a long session, drawn or not', () => {
    const s = new SessionState(makeSummary({ id: 'long' }));
    s.applyEvents(repeatRun(runOf(recording('tour'), 1), 25, 'long'));
    expect(s.timeline.runs).toHaveLength(25);
    const heads = s.rows.filter((r) => r.type === 'run');
    expect(heads).toHaveLength(25);
    // j from nothing goes to the first card of the first run, k to the last card of the last.
    expect(s.moveFocus(1)).toBe(s.cards[0]!.id);
    s.focusedCard = null;
    expect(s.moveFocus(-1)).toBe(s.cards.at(-1)!.id);
    expect(s.cards.at(-1)!.run).toBe(25);
  });

  it('narrows to a kind of card, searches, and goes to a round', () => {
    const s = new SessionState(makeSummary({ id: 's1' }));
    const log = new EventLog('s1');
    log.user('look around');
    log.request();
    log.response({ content: 'first answer mentions apples' });
    log.notice('retry', 'Ollama answered 503; trying again');
    log.request();
    log.response({ content: 'second answer mentions apples too' });
    log.end('answered', 'done');
    s.applyEvents(log.events);
    expect(s.marks).toMatchObject({ retried: 1, notice: 1, error: 0 });
    s.filter = 'retried';
    const kept = s.shownRows.filter((r) => r.type === 'card');
    expect(kept.map((r) => r.type === 'card' && r.card.kind)).toEqual(['notice']);
    // j and k walk only the cards the filter keeps.
    expect(s.moveFocus(1)).toBe(kept[0]!.key);
    expect(s.moveFocus(1)).toBe(kept[0]!.key);
    s.filter = null;

    s.query = 'APPLES';
    expect(s.matches).toHaveLength(2);
    const first = s.nextMatch(1);
    expect(first).toBe(s.matches[0]);
    expect(s.nextMatch(1)).toBe(s.matches[1]);
    expect(s.nextMatch(1)).toBe(s.matches[0]);
    expect(s.nextMatch(-1)).toBe(s.matches[1]);

    const r2 = s.roundTarget(2);
    expect(r2).not.toBeNull();
    expect(s.cards.find((c) => c.id === r2)).toMatchObject({ kind: 'request', round: 2 });
    expect(s.roundTarget(3)).toBeNull();
  });

  it('drops the filter when a card it hides is gone to', () => {
    const s = new SessionState(makeSummary({ id: 's1' }));
    const log = new EventLog('s1');
    log.user('x');
    log.request();
    log.response({ content: 'y' });
    log.end('answered', 'y');
    s.applyEvents(log.events);
    s.filter = 'error';
    expect(s.shownRows).toEqual([]);
    s.showCardOf('e:1');
    expect(s.filter).toBeNull();
    // The view says once why the filter went.
    expect(s.filterDropped).toBe('error');
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
