// The compare view's state: the first session picked in the list ("Compare
// with…", then another row), the two being compared, and what Go computed
// of them (session.Compare). Nothing here computes a figure: the alignment,
// the totals and where the two diverge come whole from the bridge.
import type { Bridge } from '../bridge/types';
import type { Comparison, TraceEvent } from '../types';
import { message } from './errors';
import type { Router } from './routing.svelte';

/** How long events may keep coming before a running session's comparison is read again. */
const REFRESH_MS = 600;

export class CompareState {
  /** The session chosen first with "Compare with…", waiting for the second; null when none. */
  picking = $state<string | null>(null);
  /** The two sessions compared, in order (the first is A). */
  pair = $state.raw<[string, string] | null>(null);
  result = $state.raw<Comparison | null>(null);
  loading = $state(false);
  error = $state<string | null>(null);

  readonly #bridge: Bridge;
  readonly #router: Router;
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** Counts reads, so that an older answer never replaces a newer one. */
  #reads = 0;

  constructor(bridge: Bridge, router: Router) {
    this.#bridge = bridge;
    this.#router = router;
  }

  /** "Compare with…" on a session: it is the first; the next row picked is the second. */
  start(id: string): void {
    this.picking = this.picking === id ? null : id;
  }

  cancelPick(): void {
    this.picking = null;
  }

  /** A row picked while one waits: compares the two (the same row again cancels). */
  pick(id: string): boolean {
    const first = this.picking;
    if (first == null) return false;
    this.picking = null;
    if (first === id) return true;
    void this.open(first, id);
    return true;
  }

  /** Opens the compare view on two sessions. */
  async open(a: string, b: string): Promise<void> {
    this.pair = [a, b];
    this.result = null;
    this.#router.view = 'compare';
    await this.load();
  }

  /** Back to the comparison from a session opened at one of its rounds. */
  back(): void {
    if (!this.pair) return;
    this.#router.view = 'compare';
    void this.load();
  }

  /** Leaves the view: the comparison is over. */
  close(): void {
    this.pair = null;
    this.result = null;
    this.error = null;
    this.#router.view = this.#router.current ? 'session' : 'home';
  }

  /** The two the other way round. */
  async swap(): Promise<void> {
    if (this.pair) await this.open(this.pair[1], this.pair[0]);
  }

  async load(): Promise<void> {
    const pair = this.pair;
    if (!pair) return;
    const n = ++this.#reads;
    this.loading = true;
    try {
      const r = await this.#bridge.compareSessions(pair[0], pair[1]);
      if (n !== this.#reads) return;
      this.result = r;
      this.error = null;
    } catch (e) {
      if (n !== this.#reads) return;
      this.error = message(e);
    } finally {
      if (n === this.#reads) this.loading = false;
    }
  }

  /** Events of either session while the view is open: read the comparison again once they settle. */
  after(batch: readonly TraceEvent[]): void {
    const pair = this.pair;
    if (!pair || this.#router.view !== 'compare') return;
    if (!batch.some((e) => e.session_id === pair[0] || e.session_id === pair[1])) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.load();
    }, REFRESH_MS);
  }
}
