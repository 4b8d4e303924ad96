// The sidebar's search over every session's log: the query and filters,
// the results (grouped by session), the hit the keyboard is on, and how
// far the index of older events is. A query is sent a moment after the
// last key, and only the latest answer is kept.
import type { Bridge } from '../bridge/types';
import { dayRange, hitOrder, stepHit } from '../sidebar/list';
import type { SearchFilter, SearchResults, SearchStatus } from '../types';
import { message } from './errors';

export interface SearchFilters {
  model: string;
  workspace: string;
  outcome: string;
  /** Local days, YYYY-MM-DD, "" for none. */
  from: string;
  to: string;
}

export const noFilters = (): SearchFilters => ({ model: '', workspace: '', outcome: '', from: '', to: '' });

/** How long after the last key a query is sent. */
export const SEARCH_DEBOUNCE_MS = 150;
/** How often the index's progress is read while it builds. */
export const STATUS_POLL_MS = 1500;

export class SearchState {
  query = $state('');
  filters = $state<SearchFilters>(noFilters());
  results = $state.raw<SearchResults | null>(null);
  /** Why the query cannot run, in the backend's words ("type at least 3 characters…"). */
  error = $state('');
  busy = $state(false);
  status = $state.raw<SearchStatus | null>(null);
  /** The hit the keyboard is on (hitKey), or null for the box. */
  selected = $state<string | null>(null);
  /** Search shows instead of the list. */
  active = $derived(this.query.trim() !== '');
  hits = $derived(hitOrder(this.results));

  readonly #bridge: Bridge;
  #asked = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #poll: ReturnType<typeof setTimeout> | null = null;

  constructor(bridge: Bridge) {
    this.#bridge = bridge;
  }

  setQuery(q: string): void {
    this.query = q;
    this.#schedule();
  }

  setFilters(f: Partial<SearchFilters>): void {
    this.filters = { ...this.filters, ...f };
    this.#schedule(0);
  }

  clear(): void {
    this.query = '';
    this.filters = noFilters();
    this.results = null;
    this.error = '';
    this.selected = null;
    this.#asked++;
    if (this.#timer) clearTimeout(this.#timer);
  }

  /** ↑ / ↓ through the hits; returns the hit now selected (null: the box). */
  move(dir: 1 | -1): string | null {
    this.selected = stepHit(this.hits, this.selected, dir);
    return this.selected;
  }

  filter(): SearchFilter {
    const f = this.filters;
    return {
      ...(f.model ? { model: f.model } : {}),
      ...(f.workspace ? { workspace: f.workspace } : {}),
      ...(f.outcome ? { outcome: f.outcome } : {}),
      ...dayRange(f.from, f.to),
    };
  }

  #schedule(ms = SEARCH_DEBOUNCE_MS): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.run(), ms);
  }

  /** Sends the query now. */
  async run(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    const asked = ++this.#asked;
    if (!this.active) {
      this.results = null;
      this.error = '';
      this.selected = null;
      return;
    }
    this.busy = true;
    try {
      const r = await this.#bridge.search(this.query, this.filter(), 50);
      if (asked !== this.#asked) return;
      this.results = r;
      this.status = r.status;
      this.error = '';
      this.selected = null;
      if (r.partial) this.#watch();
    } catch (e) {
      if (asked !== this.#asked) return;
      this.results = null;
      this.error = message(e);
    } finally {
      if (asked === this.#asked) this.busy = false;
    }
  }

  /** Reads the index's progress, and again while it builds; returns the stop. */
  watch(): () => void {
    void this.#readStatus();
    return () => {
      if (this.#poll) clearTimeout(this.#poll);
      this.#poll = null;
    };
  }

  #watch(): void {
    if (this.#poll == null) this.#poll = setTimeout(() => void this.#readStatus(), STATUS_POLL_MS);
  }

  async #readStatus(): Promise<void> {
    this.#poll = null;
    let st: SearchStatus;
    try {
      st = await this.#bridge.searchStatus();
    } catch {
      return; // the database is not open: the window says so elsewhere
    }
    const was = this.status;
    this.status = st;
    if (st.indexed < st.total) {
      this.#watch();
    } else if (was && was.indexed < was.total && this.active) {
      // The index is whole now: what was missing may be found.
      void this.run();
    }
  }
}
