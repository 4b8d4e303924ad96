// The sidebar's list of sessions: their summaries, most recently updated
// first. How each stands (running, paused, waiting for an answer) is read
// from the events that arrive, which are newer than what a command's
// answer says of the log.
import type { Bridge } from '../bridge/types';
import { summaryAfter } from '../timeline';
import type { Summary, TraceEvent } from '../types';
import { message } from './errors';
import type { Notify } from './toasts.svelte';

export class SessionList {
  list = $state.raw<Summary[]>([]);
  /** The list has been asked for once. */
  loaded = $state(false);
  /** Sessions that wait for an answer, for the sidebar: read from their logs. */
  waiting = $derived(new Set(this.list.filter((s) => s.standing === 'asking').map((s) => s.id)));

  readonly #bridge: Bridge;
  readonly #notify: Notify;

  constructor(bridge: Bridge, notify: Notify) {
    this.#bridge = bridge;
    this.#notify = notify;
  }

  async refresh(): Promise<void> {
    try {
      this.list = sortSessions(await this.#bridge.listSessions());
    } catch (e) {
      this.#notify(`Could not list sessions: ${message(e)}`, 'error');
    } finally {
      this.loaded = true;
    }
  }

  find(id: string): Summary | undefined {
    return this.list.find((s) => s.id === id);
  }

  /** The summaries after events of their sessions: how each stands is read from its log. */
  after(events: readonly TraceEvent[]): void {
    let changed = false;
    const next = this.list.map((s) => {
      let out = s;
      for (const e of events) if (e.session_id === s.id) out = summaryAfter(out, e);
      changed ||= out !== s;
      return out;
    });
    if (changed) this.list = sortSessions(next);
  }

  /**
   * Takes a summary a command returned, and returns it as taken. What it
   * says of the log (events, the open run, what it waits for) may be older
   * than the events already seen (in the list, or in open, the open
   * session's summary), which then win; what commands change (title,
   * model, stepping, breakpoints) is taken.
   */
  take(s: Summary, open: Summary | null): Summary {
    const held = open?.id === s.id ? open : this.find(s.id);
    const merged = held && held.event_count > s.event_count ? { ...s, ...logFields(held) } : s;
    const others = this.list.filter((x) => x.id !== s.id);
    this.list = sortSessions([...others, merged]);
    return merged;
  }

  remove(id: string): void {
    this.list = this.list.filter((s) => s.id !== id);
  }
}

/** Most recently updated first. Times are compared as instants, not strings (offsets may differ). */
export function sortSessions(list: readonly Summary[]): Summary[] {
  const t = (s: Summary) => {
    const v = Date.parse(s.updated_at);
    return Number.isFinite(v) ? v : 0;
  };
  return [...list].sort((a, b) => t(b) - t(a));
}

/** What a summary says of the session's log, which the newer view of the log keeps. */
function logFields(s: Summary): Pick<Summary, 'event_count' | 'updated_at' | 'open_run' | 'running' | 'standing' | 'last_reason'> {
  return { event_count: s.event_count, updated_at: s.updated_at, open_run: s.open_run, running: s.running, standing: s.standing, last_reason: s.last_reason };
}
