// The guided tour: five stops that point at the parts of the session view
// a newcomer needs to follow the loop. It opens by itself the first time
// the demo starts, can be skipped at any stop, and reopens from Help.
// Whether it was seen is kept in the page's storage.

/** One stop: what it says, and the element (its data-tour) it points at. */
export interface TourStop {
  id: 'loop' | 'step' | 'saw' | 'raw' | 'playback';
  title: string;
  body: string;
  /** The data-tour of the element the stop points at; the first one found counts. */
  target: string;
  /** Where the element is when it is not on screen yet. */
  missing: string;
}

export const TOUR_STOPS: readonly TourStop[] = [
  {
    id: 'loop',
    title: 'The loop',
    body:
      'Every agent works this way: Loupe sends the model a request, the model answers with text or tool calls, Loupe checks and runs each call, and the results go back in the next request, until the model answers without a call. This diagram lights the step the run is at.',
    target: 'loop-diagram',
    missing: 'The diagram is at the top of a session.',
  },
  {
    id: 'step',
    title: 'Step mode',
    body:
      'The run pauses at every checkpoint: before each request, after each answer, before each tool call and after each result. Step (s) goes to the next one, Continue (c) runs to the end. Commands and edits wait for your Approve (a) or Deny (d): deny one and see what the demo does.',
    target: 'step-controls',
    missing: 'The step controls are at the top of a session.',
  },
  {
    id: 'saw',
    title: 'What the model saw',
    body:
      'Press m to see exactly what a request held: the system prompt, every message, the tools and the options, and what changed since the request before. Every round sends the whole history again.',
    target: 'model-saw-button',
    missing: 'The button is at the top of a session.',
  },
  {
    id: 'raw',
    title: 'Raw',
    body:
      'Raw, on each card, shows the JSON as it was sent or stored: the request body, the answer, a call and its result. The demo is a script, not an AI: its answers say so in their Raw.',
    target: 'raw-toggle',
    missing: 'Raw is on the cards of the timeline, once there is one.',
  },
  {
    id: 'playback',
    title: 'Playback',
    body:
      'Playback (p, then ← and →) goes through a stored session event by event, without calling the model: try it once this run ends. Help (?) opens this tour again.',
    target: 'playback-toggle',
    missing: 'Playback is at the top of a session.',
  },
];

/** The storage key that says the tour was seen (finished or skipped). */
export const TOUR_SEEN_KEY = 'loupe.tourSeen';

export class Tour {
  /** The tour is on screen. */
  open = $state(false);
  /** The stop shown, 0-based. */
  at = $state(0);

  get stop(): TourStop {
    return TOUR_STOPS[this.at]!;
  }

  get total(): number {
    return TOUR_STOPS.length;
  }

  get last(): boolean {
    return this.at === TOUR_STOPS.length - 1;
  }

  /** The tour was finished or skipped before (in this window's storage). */
  get seen(): boolean {
    try {
      return localStorage.getItem(TOUR_SEEN_KEY) === '1';
    } catch {
      // No storage: offer the tour each time rather than never.
      return false;
    }
  }

  /** Opens the tour at its first stop. */
  start(): void {
    this.at = 0;
    this.open = true;
  }

  /** Opens the tour unless it was seen: the first demo. */
  offer(): void {
    if (!this.seen) this.start();
  }

  /** The next stop; the last one ends the tour. */
  next(): void {
    if (!this.open) return;
    if (this.last) this.close();
    else this.at++;
  }

  back(): void {
    if (this.open && this.at > 0) this.at--;
  }

  /** Ends the tour (skipped or done): it does not open by itself again. */
  close(): void {
    this.open = false;
    try {
      localStorage.setItem(TOUR_SEEN_KEY, '1');
    } catch {
      // Not remembering means the next demo offers the tour again: harmless.
    }
  }
}
