// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { ReplayBridge } from '../replay/bridge';
import { recording } from '../replay/recordings';
import { makeSummary } from '../testing/events';
import { SessionList, sortSessions } from './summaries.svelte';

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('SessionList', () => {
  it('flags a session that is not open as waiting for an answer, from its events alone', async () => {
    const replay = new ReplayBridge(recording('approve_command'));
    const list = new SessionList(replay, vi.fn());
    const off = replay.onEvents((batch) => list.after(batch));
    await list.refresh();
    expect(list.list.map((s) => s.id)).toEqual(['session-1']);
    // The run was started elsewhere: only its events arrive.
    await replay.do({ do: 'send', session: 'session-1', text: 'Write hello.txt with a command' });
    await settle();
    expect(list.list[0]).toMatchObject({ id: 'session-1', running: true, open_run: 1, standing: 'asking', event_count: 5 });
    expect(list.waiting.has('session-1')).toBe(true);
    await replay.do({ do: 'answer', session: 'session-1', call_id: 'call_1', allow: true, scope: 'once' });
    await settle();
    expect(list.waiting.has('session-1')).toBe(false);
    expect(list.list[0]).toMatchObject({ running: false, open_run: 0, standing: '', last_reason: 'answered', event_count: 10 });
    off();
  });

  it('takes what a command changed from its summary, and what the newer events said of the log', () => {
    const list = new SessionList(new ReplayBridge(recording('approve_command')), vi.fn());
    const seen = makeSummary({ id: 's', event_count: 12, running: false, open_run: 0, last_reason: 'answered', updated_at: '2026-01-05T11:00:00Z' });
    list.list = [seen, makeSummary({ id: 'other', updated_at: '2026-01-05T10:30:00Z' })];
    const late = makeSummary({ id: 's', title: 'Renamed', stepping: true, event_count: 9, running: true, open_run: 1, updated_at: '2026-01-05T10:00:00Z' });
    const taken = list.take(late, null);
    expect(taken).toMatchObject({ title: 'Renamed', stepping: true, event_count: 12, running: false, open_run: 0, last_reason: 'answered' });
    // Still the most recent: the newer time was kept.
    expect(list.list.map((s) => s.id)).toEqual(['s', 'other']);
    // The open session's summary is newer than the list's: it wins.
    const open = { ...seen, event_count: 14, standing: 'paused' as const };
    expect(list.take(late, open)).toMatchObject({ event_count: 14, standing: 'paused', title: 'Renamed' });
    // A summary newer than anything seen is taken whole.
    const newer = { ...late, event_count: 20 };
    expect(list.take(newer, open)).toEqual(newer);
  });

  it('tells the user when the list cannot be read, and stops waiting for it', async () => {
    const replay = new ReplayBridge(recording('approve_command'));
    replay.listSessions = () => Promise.reject(new Error('database is locked'));
    const notify = vi.fn();
    const list = new SessionList(replay, notify);
    await list.refresh();
    expect(notify).toHaveBeenCalledWith('Could not list sessions: database is locked', 'error');
    expect(list.loaded).toBe(true);
  });
});

describe('sortSessions', () => {
  it('puts the most recently updated first, whatever the time zone offset', () => {
    const list = sortSessions([
      makeSummary({ id: 'old', updated_at: '2026-01-05T10:00:00+02:00' }),
      makeSummary({ id: 'new', updated_at: '2026-01-05T09:30:00Z' }),
    ]);
    expect(list.map((s) => s.id)).toEqual(['new', 'old']);
  });
});
