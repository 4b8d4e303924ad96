// One open session: its event log and what the user is doing with it.
import { untrack } from 'svelte';
import type { Approval, ModelRequestEvent, Pause, PendingRequest, Summary, TraceEvent } from '../types';
import type { Phase } from '../timeline';
import {
  buildTimeline,
  cardIdForEvent,
  cardsOf,
  filterRows,
  markCounts,
  roundCard,
  searchCards,
  timelineRows,
  type Mark,
  clampPosition,
  eventAt,
  eventsAt,
  findPosition,
  loopPosition,
  mergeEvents,
  movePosition,
  neighbour,
  requestAt,
  standingOf,
  summaryAfter,
  type Timeline,
} from '../timeline';
import { PauseDraft } from './pause.svelte';

/**
 * The body a pending request amounts to, in the shape of the bodies
 * RawRequest returns (Ollama's chat request), for "What the model saw"
 * at a pause before it is sent. The tools are named only: their schemas
 * are sent as the session's tool set.
 */
export function pendingBody(req: PendingRequest): string {
  const messages = [
    ...(req.system ? [{ role: 'system', content: req.system }] : []),
    ...(req.messages ?? []).map((m) => ({
      role: m.role,
      content: m.content,
      ...(m.tool_calls?.length ? { tool_calls: m.tool_calls.map((c) => ({ function: { name: c.name, arguments: c.args } })) } : {}),
      ...(m.tool_name ? { tool_name: m.tool_name } : {}),
    })),
  ];
  return JSON.stringify({ model: req.model, messages, tools: (req.tools ?? []).map((name) => ({ type: 'function', function: { name } })), options: req.options });
}

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
  /** An event to bring into view once the log is in (a search result opened): its seq. */
  revealSeq = $state<number | null>(null);
  /** The text the search matched in that event, to mark in its card. */
  revealMatch = $state<string | null>(null);

  // --- playback ----------------------------------------------------------------

  /** Playback position 1..N over the events, or null when showing everything live. */
  playback = $state<number | null>(null);
  /**
   * Events that came cut (previews, see TraceEvent.preview) and were
   * fetched whole because the user opened them, by seq. Only those: the
   * log itself stays previews, so a long session stays small in memory.
   */
  whole = $state.raw<ReadonlyMap<number, TraceEvent>>(new Map());
  /** The log as the cards draw it: the events fetched whole in place of their previews. */
  #drawn = $derived(this.whole.size === 0 ? this.events : this.events.map((e) => this.whole.get(e.seq) ?? e));
  /** The events the timeline shows: all of them, or those up to the playback position. */
  shownEvents = $derived(this.playback == null ? this.#drawn : eventsAt(this.#drawn, this.playback));
  /** The event the playback position is on. */
  positionEvent = $derived(this.playback == null ? undefined : eventAt(this.events, this.playback));

  #prevTimeline: Timeline | undefined;
  timeline = $derived.by(() => {
    const t = buildTimeline(this.shownEvents, this.#prevTimeline);
    this.#prevTimeline = t;
    return t;
  });
  /** The card of the event at the playback position. */
  positionCard = $derived(this.positionEvent ? cardIdForEvent(this.timeline, this.positionEvent) : null);
  /** Every row the timeline lists (run and round heads, cards), drawn or not. */
  rows = $derived(timelineRows(this.timeline.runs));
  /** Every card, in order: what j / k, jumps, filters and search walk. */
  cards = $derived(cardsOf(this.rows));
  #cardIds = $derived(this.cards.map((c) => c.id));

  // --- finding things ------------------------------------------------------------

  /** The kind of card the timeline is narrowed to (null: all of them). */
  filter = $state<Mark | null>(null);
  /** The rows drawn: all, or those the filter keeps. */
  shownRows = $derived(filterRows(this.rows, this.filter));
  /** How many cards of each mark there are, for the filter's counts. */
  marks = $derived(markCounts(this.cards));
  /** What is searched for in the session's cards. */
  query = $state('');
  /** The cards that hold the query, in order. */
  matches = $derived(searchCards(this.cards, this.query));
  #matchSet = $derived(new Set(this.matches));
  /** The filter that went because a card it hid was gone to: the view says so once. */
  filterDropped = $state<Mark | null>(null);
  /** The match the search is on (its index in matches). */
  matchAt = $state(0);
  /** What the user opened on cards (Raw), kept while the virtual list redraws them. */
  readonly cardMemory = { raws: new Set<string>() };
  /**
   * The overview lane and context chart are shown above the cards (o): at
   * first only in a window tall enough to leave the cards room.
   */
  overviewOpen = $state(typeof window === 'undefined' || window.innerHeight >= 800);

  // --- step-through ------------------------------------------------------------

  /** Where the last run stands, read from the log: open, its pause, its questions. */
  standing = $derived(standingOf(this.events));
  /**
   * Where the run stands in what the timeline shows: the log's standing
   * live, the standing at the position in playback. The cards (badges,
   * pause cards, Explain) read this one, the header and the composer the
   * live one.
   */
  shownStanding = $derived(this.playback == null ? this.standing : standingOf(this.shownEvents));
  /** The questions the run waits for the user to answer. */
  asks = $derived<readonly Approval[]>(this.standing.asks);
  /** The paused checkpoint (its seq) being resumed: hidden while the command is on its way. */
  leaving = $state<number | null>(null);
  /** A Step, Continue, Skip or edit is on its way to the backend. */
  resuming = $state(false);
  /** Where the run waits, unless that pause is being resumed. */
  pause = $derived.by((): Pause | null => {
    const p = this.standing.pause;
    return p && p.seq !== this.leaving ? p : null;
  });
  /** The pause as text: changes only when the pause itself does. */
  #pauseJson = $derived(this.pause ? JSON.stringify(this.pause) : '');
  /** What the user typed at the pause; a new pause (or an applied edit) starts afresh. */
  pauseDraft = $derived.by(() => {
    const json = this.#pauseJson;
    return json ? untrack(() => new PauseDraft(JSON.parse(json) as Pause)) : null;
  });
  /**
   * The card of the paused checkpoint: the pause is shown once, on it, with
   * its editor (null: the checkpoint is not in the timeline yet, and the
   * editor waits at the end).
   */
  pauseCard = $derived(this.playback == null && this.pause ? (this.timeline.checkpointCards.get(this.pause.seq) ?? null) : null);
  /** Where the loop is: live, or at the playback position. */
  loop = $derived(
    this.playback == null ? loopPosition(this.shownEvents, this.pause, this.standing.open) : loopPosition(this.shownEvents, null),
  );

  // --- what the model saw --------------------------------------------------------

  /** The "What the model saw" panel is open. */
  sawOpen = $state(false);
  /** The request it shows; null follows the latest request (live or at the position). */
  sawSeq = $state<number | null>(null);
  sawRequest = $derived.by((): ModelRequestEvent | undefined => {
    const events = this.shownEvents;
    if (this.sawSeq != null) {
      const e = events.find((x) => x.seq === this.sawSeq);
      if (e?.kind === 'model_request') return e;
    }
    // Paused before a request: the latest one is the request about to go.
    return this.pendingRequest ?? requestAt(events, events.length);
  });
  /**
   * The request a before_request pause holds, as the request it will be
   * (its seq is the pause's): what the model will see if you step now,
   * with the edits applied there. Its body is pendingBody's.
   */
  pendingRequest = $derived.by((): ModelRequestEvent | undefined => {
    const p = this.playback == null ? this.pause : null;
    const req = p?.point === 'before_request' ? p.request : null;
    if (!p || !req) return undefined;
    const body = pendingBody(req);
    return {
      session_id: this.id,
      seq: p.seq,
      kind: 'model_request',
      time: '',
      run: p.run,
      round: p.round,
      payload: {
        model: req.model,
        options: req.options,
        system: req.system,
        tool_names: req.tools ?? [],
        history_added: null,
        message_count: (req.messages ?? []).length + (req.system ? 1 : 0),
        prompt_estimate: Math.ceil(new TextEncoder().encode(body).length / 4),
      },
    };
  });

  constructor(summary: Summary) {
    this.id = summary.id;
    this.summary = summary;
  }

  get running(): boolean {
    return this.summary.running;
  }

  /** How the run stands, in one word (timeline/standing.ts Phase): what the header, sidebar and composer say. */
  get phase(): Phase {
    return this.standing.phase;
  }

  /** A run is going or waits at a pause: Stop has something to stop. */
  get active(): boolean {
    return this.summary.running || this.standing.open;
  }

  /** Adds committed events (live or from the snapshot), in seq order. */
  applyEvents(incoming: readonly TraceEvent[]): void {
    const mine = incoming.filter((e) => e.session_id === this.id);
    if (mine.length === 0) return;
    const next = mergeEvents(this.events, mine);
    if (next !== this.events) this.events = next;
    // Whether a run goes, and how the last one ended, is the log's.
    let sum = this.summary;
    for (const e of mine) sum = summaryAfter(sum, e);
    if (sum !== this.summary) this.summary = sum;
  }

  /** Keeps an event fetched whole. */
  setWhole(e: TraceEvent): void {
    if (e.session_id !== this.id) return;
    const next = new Map(this.whole);
    next.set(e.seq, e);
    this.whole = next;
  }

  /** Whether a card holds the query. */
  isMatch(id: string): boolean {
    return this.#matchSet.has(id);
  }

  /** Moves to the next (1) or previous (-1) match; returns its card, which gets the focus. */
  nextMatch(dir: 1 | -1): string | null {
    const n = this.matches.length;
    if (n === 0) return null;
    // From the focused card when it is one of them, so Enter goes on from where you are.
    const at = this.focusedCard ? this.matches.indexOf(this.focusedCard) : -1;
    const i = at >= 0 ? (at + dir + n) % n : dir === 1 ? this.matchAt % n : (this.matchAt - 1 + n) % n;
    this.matchAt = i;
    const id = this.matches[i]!;
    this.showCardOf(id);
    this.focusedCard = id;
    return id;
  }

  /** The first card of round N (of the given run, or the latest run that has one). */
  roundTarget(round: number, run?: number): string | null {
    return roundCard(this.cards, round, run);
  }

  /** A card hidden by the filter comes back into view: the filter goes. */
  showCardOf(id: string): void {
    const f = this.filter;
    if (f != null && !this.cards.find((c) => c.id === id)?.marks.includes(f)) {
      this.filter = null;
      this.filterDropped = f;
    }
  }

  setSummary(s: Summary): void {
    if (s.id !== this.id) return;
    this.summary = s;
  }

  /** Moves the keyboard focus to the next (1) or previous (-1) card (of those the filter keeps). */
  moveFocus(dir: 1 | -1): string | null {
    const ids = this.filter == null ? this.#cardIds : cardsOf(this.shownRows).map((c) => c.id);
    const next = neighbour(ids, this.focusedCard, dir);
    this.focusedCard = next;
    return next;
  }

  // --- playback ------------------------------------------------------------------

  /** Starts playback at a position (the first event by default). */
  startPlayback(pos = 1): void {
    if (this.events.length === 0) return;
    this.setPosition(pos);
  }

  stopPlayback(): void {
    this.playback = null;
  }

  /** Moves playback to a position; the card of its event gets the focus. Returns that card's id. */
  setPosition(pos: number): string | null {
    const p = clampPosition(pos, this.events.length);
    if (p === 0) return null;
    this.playback = p;
    this.sawSeq = null;
    const e = eventAt(this.events, p);
    const id = e ? cardIdForEvent(this.timeline, e) : null;
    if (id) this.showCardOf(id);
    this.focusedCard = id;
    return id;
  }

  /** Events forward (positive) or back; when playback is off it starts from the end. */
  movePosition(delta: number): string | null {
    const from = this.playback ?? this.events.length;
    return this.setPosition(movePosition(from, this.events.length, delta));
  }

  /** The next or previous model request. */
  jumpRequest(dir: 1 | -1): string | null {
    const from = this.playback ?? this.events.length;
    return this.setPosition(findPosition(this.events, from, dir, (e) => e.kind === 'model_request'));
  }

  // --- what the model saw ----------------------------------------------------------

  /** Opens the panel on a request (null: follow the latest), or closes it when it shows that one. */
  toggleSaw(seq: number | null = null): void {
    if (this.sawOpen && (seq == null || this.sawRequest?.seq === seq)) {
      this.sawOpen = false;
      return;
    }
    this.sawSeq = seq;
    this.sawOpen = true;
  }
}
