// Events whole and raw, for the cards of the open session: an event that
// came cut (trace.Preview) is fetched whole once, when the user unfolds it
// or opens its Raw view, and kept in the session; each event gets one
// Expandable and one Raw source, so a card that redraws keeps them.
import type { Bridge } from '../bridge/types';
import { isDemoModel } from '../timeline';
import { rawOf, wholeEvent, type Expandable, type RawSource, type TraceEvent } from '../types';
import { message } from './errors';
import type { SessionState } from './session.svelte';
import type { Notify } from './toasts.svelte';

export class Raws {
  readonly #bridge: Bridge;
  /** The open session, or null. */
  readonly #current: () => SessionState | null;
  readonly #notify: Notify;
  /** One Raw source per event, so an open Raw view is not reloaded on every update. */
  #raw = new WeakMap<TraceEvent, RawSource>();
  /** One Expandable per cut event, so cards get the same one on every update. */
  #expandable = new WeakMap<TraceEvent, Expandable>();
  /** Whole events on their way, so that one is fetched once. */
  #fetching = new WeakMap<TraceEvent, Promise<TraceEvent>>();

  constructor(bridge: Bridge, current: () => SessionState | null, notify: Notify) {
    this.#bridge = bridge;
    this.#current = current;
    this.#notify = notify;
  }

  /**
   * An event of the open session whole: as it is when it came whole, else
   * fetched (once) and kept in the session, whose cards then draw it.
   */
  whole(e: TraceEvent): Promise<TraceEvent> {
    const s = this.#current();
    const have = s?.id === e.session_id ? s.whole.get(e.seq) : undefined;
    if (!e.preview || have) return Promise.resolve(have ?? e);
    let p = this.#fetching.get(e);
    if (!p) {
      p = this.#bridge.eventPayload(e.session_id, e.seq).then((json) => {
        const w = wholeEvent(e, json);
        const cur = this.#current();
        if (cur?.id === e.session_id) cur.setWhole(w);
        return w;
      });
      // A failed fetch may be tried again.
      p.catch(() => this.#fetching.delete(e));
      this.#fetching.set(e, p);
    }
    return p;
  }

  /** What a card needs to draw an event that came cut whole; null when it came whole or was fetched. */
  expandable(e: TraceEvent | undefined): Expandable | null {
    if (!e?.preview || this.#current()?.whole.has(e.seq)) return null;
    let x = this.#expandable.get(e);
    if (!x) {
      x = {
        cuts: e.preview,
        load: async () => {
          try {
            await this.whole(e);
          } catch (err) {
            this.#notify(`Could not load the whole event: ${message(err)}`, 'error');
          }
        },
      };
      this.#expandable.set(e, x);
    }
    return x;
  }

  /**
   * What a card's Raw toggle shows: the exact request body for a
   * model_request (rebuilt by the backend), Ollama's wire JSON for a
   * model_response, and the event itself for the rest; an event that came
   * cut is fetched whole first.
   */
  rawSource(e: TraceEvent): RawSource {
    let src = this.#raw.get(e);
    if (!src) {
      if (e.kind === 'model_request') {
        src = { load: () => this.#bridge.rawRequest(e.session_id, e.seq), exact: true, scripted: isDemoModel(e.payload.model) };
      } else if (e.preview) {
        src = {
          load: async () => {
            const w = await this.whole(e);
            return JSON.stringify(w.kind === 'model_response' && w.payload.raw != null ? w.payload.raw : w);
          },
          exact: false,
        };
      } else if (e.kind === 'model_response' && e.payload.raw != null) {
        src = rawOf(e.payload.raw);
      } else {
        src = rawOf(e);
      }
      this.#raw.set(e, src);
    }
    return src;
  }
}
