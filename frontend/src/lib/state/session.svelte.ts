// One open session: its event log and what the user is doing with it.
import type { Summary, TraceEvent } from '../types';
import { buildTimeline, flattenCards, mergeEvents, neighbour, type Timeline } from '../timeline';

/** Runs rendered at first and added per "show earlier": keeps long sessions fast. */
export const RUNS_SHOWN = 20;

export class SessionState {
  readonly id: string;
  summary = $state<Summary>() as Summary;
  events = $state.raw<TraceEvent[]>([]);
  loading = $state(true);
  loadError = $state<string | null>(null);
  /** What is typed in the composer, kept per session. */
  draft = $state('');
  sending = $state(false);
  sendError = $state<string | null>(null);
  /** The card the keyboard is on. */
  focusedCard = $state<string | null>(null);

  #prevTimeline: Timeline | undefined;
  timeline = $derived.by(() => {
    const t = buildTimeline(this.events, this.#prevTimeline);
    this.#prevTimeline = t;
    return t;
  });
  /** How many of the latest runs are shown; older ones load on demand. */
  runLimit = $state(RUNS_SHOWN);
  shownRuns = $derived(this.timeline.runs.slice(-this.runLimit));
  hiddenRuns = $derived(Math.max(0, this.timeline.runs.length - this.runLimit));
  cards = $derived(flattenCards(this.shownRuns));
  #cardIds = $derived(this.cards.map((c) => c.id));

  constructor(summary: Summary) {
    this.id = summary.id;
    this.summary = summary;
  }

  get running(): boolean {
    return this.summary.running;
  }

  /** Adds committed events (live or from the snapshot), in seq order. */
  applyEvents(incoming: readonly TraceEvent[]): void {
    const mine = incoming.filter((e) => e.session_id === this.id);
    if (mine.length === 0) return;
    const next = mergeEvents(this.events, mine);
    if (next !== this.events) this.events = next;
    // A run_end means the run is over even if the summary update is late.
    if (mine.some((e) => e.kind === 'run_end') && this.summary.running) {
      const lastEnd = mine.filter((e) => e.kind === 'run_end').at(-1)!;
      const lastUser = this.events.filter((e) => e.kind === 'user_message').at(-1);
      if (!lastUser || lastUser.run <= lastEnd.run) this.summary = { ...this.summary, running: false };
    }
  }

  showEarlier(): void {
    this.runLimit += RUNS_SHOWN;
  }

  setSummary(s: Summary): void {
    if (s.id === this.id) this.summary = s;
  }

  /** Moves the keyboard focus to the next (1) or previous (-1) card. */
  moveFocus(dir: 1 | -1): string | null {
    const next = neighbour(this.#cardIds, this.focusedCard, dir);
    this.focusedCard = next;
    return next;
  }
}
