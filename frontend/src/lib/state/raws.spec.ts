// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { ReplayBridge } from '../replay/bridge';
import { recording } from '../replay/recordings';
import type { TraceEvent } from '../types';
import { Raws } from './raws.svelte';
import { SessionState } from './session.svelte';

/** The open session of a replay, as the Router fills it from its snapshot, and its Raws. */
async function setup(name: string, from: string) {
  const replay = new ReplayBridge(recording(name), { from });
  const snap = await replay.openSession('session-1');
  const session = new SessionState(snap.summary);
  session.applyEvents(snap.events);
  session.loading = false;
  const notify = vi.fn();
  const raws = new Raws(replay, () => session, notify);
  return { replay, session, raws, notify, events: snap.events };
}

describe('Raws', () => {
  it('caches one Raw source per event, and loads what the backend rebuilt', async () => {
    const { raws, replay, events } = await setup('approve_command', 'end');
    const req = events.find((e) => e.kind === 'model_request')!;
    const a = raws.rawSource(req);
    expect(raws.rawSource(req)).toBe(a);
    expect(a.exact).toBe(true);
    expect(await a.load()).toBe(replay.recording.raw_requests[String(req.seq)]);
  });

  it('fetches a cut event whole once, keeps it in the session, and then has nothing to expand', async () => {
    const { raws, replay, session, events } = await setup('long_read', 'reopened');
    const cut = events.find((e) => e.kind === 'tool_result')!;
    const x = raws.expandable(cut);
    expect(x?.cuts['/content']).toEqual({ bytes: 18984, lines: 601 });
    expect(raws.expandable(cut)).toBe(x);
    // Unfolding the text and opening the Raw view at once asks for it once.
    const raw = raws.rawSource(cut);
    expect(raw.exact).toBe(false);
    const [, text] = await Promise.all([x!.load(), raw.load()]);
    expect(replay.callsOf('eventPayload')).toEqual([['session-1', cut.seq]]);
    expect(text).toContain('release 1: fixes');
    expect((session.whole.get(cut.seq)?.payload as { content: string }).content).toContain('release 1: fixes');
    expect(raws.expandable(cut)).toBeNull();
  });

  it('tells the user when a whole event cannot be loaded, and tries again on the next unfold', async () => {
    const { raws, replay, notify, events } = await setup('long_read', 'reopened');
    const cut = events.find((e) => e.kind === 'tool_result')!;
    const fetch = replay.eventPayload.bind(replay);
    replay.eventPayload = () => Promise.reject(new Error('database is locked'));
    await raws.expandable(cut)!.load();
    expect(notify).toHaveBeenCalledWith('Could not load the whole event: database is locked', 'error');
    replay.eventPayload = fetch;
    await raws.expandable(cut)!.load();
    expect(raws.expandable(cut)).toBeNull();
  });

  it('shows an event that came whole as it is, without asking the backend', async () => {
    const { raws, replay, events } = await setup('approve_command', 'end');
    const call = events.find((e) => e.kind === 'tool_call') as TraceEvent;
    expect(raws.expandable(call)).toBeNull();
    expect(JSON.parse(await raws.rawSource(call).load())).toEqual(JSON.parse(JSON.stringify(call)));
    expect(replay.callsOf('eventPayload')).toEqual([]);
  });
});
