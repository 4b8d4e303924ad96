import { describe, expect, it, vi } from 'vitest';
import { EventLog } from '../testing/events';
import { Deduper, EventHub, frameScheduler, type Scheduler } from './hub';

/** A scheduler the test fires by hand, like one animation frame. */
function manualFrames() {
  const pending: (() => void)[] = [];
  const schedule: Scheduler = (f) => pending.push(f);
  return {
    schedule,
    frames: () => pending.length,
    frame: () => {
      for (const f of pending.splice(0)) f();
    },
  };
}

describe('Deduper', () => {
  it('admits a (session, seq) pair once', () => {
    const d = new Deduper();
    expect(d.admit('a', 1)).toBe(true);
    expect(d.admit('a', 1)).toBe(false);
    expect(d.admit('b', 1)).toBe(true);
    expect(d.admit('a', 2)).toBe(true);
  });

  it('forgets a session', () => {
    const d = new Deduper();
    d.admit('a', 1);
    d.forget('a');
    expect(d.admit('a', 1)).toBe(true);
  });
});

describe('EventHub', () => {
  it('delivers everything that arrived in one frame as one batch', () => {
    const f = manualFrames();
    const hub = new EventHub(f.schedule);
    const got: number[][] = [];
    hub.on('events', (b) => got.push(b.map((e) => e.seq)));
    const log = new EventLog();
    hub.push('events', log.user('hi'));
    hub.push('events', log.request());
    hub.push('events', log.response({ content: 'yo' }));
    expect(got).toEqual([]);
    expect(f.frames()).toBe(1);
    f.frame();
    expect(got).toEqual([[1, 2, 3]]);
  });

  it('drops an event seen before, even in a later frame', () => {
    const f = manualFrames();
    const hub = new EventHub(f.schedule);
    const got: number[] = [];
    hub.on('events', (b) => got.push(...b.map((e) => e.seq)));
    const log = new EventLog();
    const e1 = log.user('hi');
    hub.push('events', e1);
    hub.push('events', e1);
    f.frame();
    hub.push('events', e1);
    hub.push('events', { ...e1, session_id: 'other' });
    f.frame();
    expect(got).toEqual([1, 1]);
  });

  it('keeps arrival order across channels', () => {
    const f = manualFrames();
    const hub = new EventHub(f.schedule);
    const order: string[] = [];
    hub.on('events', (b) => order.push(`events:${b.map((e) => e.seq).join(',')}`));
    hub.on('deltas', (b) => order.push(`delta:${b.map((d) => d.content).join('')}`));
    const log = new EventLog();
    hub.push('events', log.user('hi'));
    hub.push('events', log.request());
    hub.push('deltas', { session_id: 's1', run: 1, round: 1, content: 'a', thinking: '' });
    hub.push('deltas', { session_id: 's1', run: 1, round: 1, content: 'b', thinking: '' });
    hub.push('events', log.response({ content: 'ab' }));
    f.frame();
    // The round's request comes before its text, and its response after.
    expect(order).toEqual(['events:1,2', 'delta:ab', 'events:3']);
  });

  it('schedules one flush per frame however many values arrive', () => {
    const f = manualFrames();
    const hub = new EventHub(f.schedule);
    for (let i = 0; i < 50; i++) hub.push('deltas', { session_id: 's', run: 1, round: 1, content: 'x', thinking: '' });
    expect(f.frames()).toBe(1);
    expect(hub.pending).toBe(50);
    f.frame();
    expect(hub.pending).toBe(0);
  });

  it('stops delivering to an unsubscribed listener', () => {
    const f = manualFrames();
    const hub = new EventHub(f.schedule);
    const fn = vi.fn();
    const kept = vi.fn();
    const off = hub.on('events', fn);
    hub.on('events', kept);
    off();
    hub.push('events', new EventLog().user('hi'));
    f.frame();
    expect(fn).not.toHaveBeenCalled();
    expect(kept).toHaveBeenCalledTimes(1);
  });

  it('keeps delivering to other listeners when one throws', () => {
    const f = manualFrames();
    const hub = new EventHub(f.schedule);
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    const good = vi.fn();
    hub.on('deltas', () => {
      throw new Error('boom');
    });
    hub.on('deltas', good);
    hub.push('deltas', { session_id: 's', run: 1, round: 1, content: 'x', thinking: '' });
    f.frame();
    expect(good).toHaveBeenCalledTimes(1);
    expect(err).toHaveBeenCalled();
    err.mockRestore();
  });

  it('asks for a frame only when something arrived, and keeps no frame loop or timer going after', async () => {
    vi.useFakeTimers();
    // A frame every 16 ms, counted.
    const raf = vi.fn((cb: FrameRequestCallback) => setTimeout(() => cb(0), 16));
    vi.stubGlobal('requestAnimationFrame', raf);
    try {
      const hub = new EventHub(frameScheduler);
      const got = vi.fn();
      hub.on('events', got);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(raf).not.toHaveBeenCalled();
      expect(vi.getTimerCount()).toBe(0);
      hub.push('events', new EventLog().user('hi'));
      await vi.advanceTimersByTimeAsync(200);
      expect(got).toHaveBeenCalledTimes(1);
      expect(raf).toHaveBeenCalledTimes(1);
      // Delivered: nothing is left waiting, and idle seconds ask for nothing.
      expect(vi.getTimerCount()).toBe(0);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(raf).toHaveBeenCalledTimes(1);
    } finally {
      vi.unstubAllGlobals();
      vi.useRealTimers();
    }
  });
});
