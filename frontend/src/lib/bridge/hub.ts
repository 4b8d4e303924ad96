// The event side of the bridge: one queue for every runtime channel,
// flushed once per animation frame, with timeline events de-duplicated by
// (session_id, seq). Kept apart from Wails so tests can drive it.
import type { Delta, FilesWaiting, PullProgress, TraceEvent, TryDelta } from '../types';
import type { Listener, Unsubscribe } from './types';

export interface ChannelPayloads {
  events: TraceEvent;
  deltas: Delta;
  pulls: PullProgress;
  tries: TryDelta;
  waits: FilesWaiting;
}

export type Channel = keyof ChannelPayloads;

/** Runs a callback soon (once per frame in the app). */
export type Scheduler = (flush: () => void) => void;

/**
 * Flushes on the next animation frame, or after 100 ms if no frame comes
 * (a hidden window gets no frames, but the queue must not grow forever).
 */
export const frameScheduler: Scheduler = (flush) => {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    flush();
  };
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(once);
  setTimeout(once, 100);
};

/** Remembers which (session_id, seq) pairs were delivered. */
export class Deduper {
  #seen = new Map<string, Set<number>>();

  /** True the first time a pair is seen, false afterwards. */
  admit(sessionId: string, seq: number): boolean {
    let seqs = this.#seen.get(sessionId);
    if (!seqs) {
      seqs = new Set();
      this.#seen.set(sessionId, seqs);
    }
    if (seqs.has(seq)) return false;
    seqs.add(seq);
    return true;
  }

  forget(sessionId: string): void {
    this.#seen.delete(sessionId);
  }
}

type Queued = { [C in Channel]: { channel: C; value: ChannelPayloads[C] } }[Channel];

export class EventHub {
  #listeners: { [C in Channel]: Set<Listener<ChannelPayloads[C]>> } = {
    events: new Set(),
    deltas: new Set(),
    pulls: new Set(),
    tries: new Set(),
    waits: new Set(),
  };
  #queue: Queued[] = [];
  #scheduled = false;
  #dedupe = new Deduper();
  #schedule: Scheduler;

  constructor(schedule: Scheduler = frameScheduler) {
    this.#schedule = schedule;
  }

  on<C extends Channel>(channel: C, fn: Listener<ChannelPayloads[C]>): Unsubscribe {
    const set = this.#listeners[channel] as Set<Listener<ChannelPayloads[C]>>;
    set.add(fn);
    return () => set.delete(fn);
  }

  /** Queues a value; an event already delivered for its (session, seq) is dropped. */
  push<C extends Channel>(channel: C, value: ChannelPayloads[C]): void {
    if (channel === 'events') {
      const e = value as TraceEvent;
      if (!this.#dedupe.admit(e.session_id, e.seq)) return;
    }
    this.#queue.push({ channel, value } as Queued);
    if (!this.#scheduled) {
      this.#scheduled = true;
      this.#schedule(() => this.flush());
    }
  }

  /** Forgets a deleted session's seqs. */
  forget(sessionId: string): void {
    this.#dedupe.forget(sessionId);
  }

  /**
   * Delivers everything queued. Consecutive values of one channel go out as
   * one batch, and batches keep arrival order across channels (a delta
   * of a round never comes before the round's request).
   */
  flush(): void {
    this.#scheduled = false;
    const queue = this.#queue;
    this.#queue = [];
    let i = 0;
    while (i < queue.length) {
      const channel = queue[i]!.channel;
      const batch: unknown[] = [];
      while (i < queue.length && queue[i]!.channel === channel) {
        batch.push(queue[i]!.value);
        i++;
      }
      for (const fn of [...this.#listeners[channel]]) {
        try {
          (fn as Listener<unknown>)(batch);
        } catch (err) {
          // One broken listener must not starve the others of events.
          console.error(`loupe: ${channel} listener failed`, err);
        }
      }
    }
  }

  get pending(): number {
    return this.#queue.length;
  }
}
