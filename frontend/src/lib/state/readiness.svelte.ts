// The readiness check of a model, as a view asks it: again whenever what
// is checked changes (the workspace typed, the model picked, the tools
// ticked, the round trip), a moment after the last change, and an answer
// that a later question overtook is dropped.
import type { Bridge } from '../bridge/types';
import type { ModelCheck, ReadinessReport } from '../types';
import { message } from './errors';

/** How long the check waits for the next change before it asks. */
const SETTLE_MS = 300;

export class ReadinessCheck {
  report = $state.raw<ReadinessReport | null>(null);
  busy = $state(false);
  error = $state<string | null>(null);

  readonly #bridge: Bridge;
  #asked = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(bridge: Bridge) {
    this.#bridge = bridge;
  }

  /** Checks c a moment from now; null clears the report (nothing to check). */
  ask(c: ModelCheck | null): void {
    if (this.#timer) clearTimeout(this.#timer);
    const n = ++this.#asked;
    if (!c) {
      this.report = null;
      this.busy = false;
      return;
    }
    this.busy = true;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#bridge.checkModel(c).then(
        (r) => {
          if (n !== this.#asked) return;
          this.report = r;
          this.error = null;
          this.busy = false;
        },
        (e: unknown) => {
          if (n !== this.#asked) return;
          this.error = message(e);
          this.busy = false;
        },
      );
    }, SETTLE_MS);
  }

  /** Stops a check not yet asked (the view is going away). */
  cancel(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#asked++;
  }
}
