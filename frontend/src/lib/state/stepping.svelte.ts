// Step-through of the open session: Step mode and breakpoints, and what is
// done at a pause: send the edits typed there, Step or Continue, answer a
// paused call with an observation instead of running it. Each command
// names the pause it was meant for (at); a refusal is shown where the user
// typed (the pause draft) or as a toast.
import type { BreakpointTarget } from '../timeline';
import type { Breakpoints } from '../types';
import type { Do } from './commands.svelte';
import { message } from './errors';
import type { SessionState } from './session.svelte';
import type { Notify } from './toasts.svelte';

export class Stepping {
  readonly #do: Do;
  /** The open session, or null. */
  readonly #current: () => SessionState | null;
  readonly #notify: Notify;

  constructor(run: Do, current: () => SessionState | null, notify: Notify) {
    this.#do = run;
    this.#current = current;
    this.#notify = notify;
  }

  /** Step mode on or off for the open session. */
  async setStepping(on: boolean): Promise<void> {
    const cur = this.#current();
    if (!cur) return;
    try {
      await this.#do({ do: 'set_stepping', session: cur.id, on });
    } catch (e) {
      this.#notify(`Could not turn Step mode ${on ? 'on' : 'off'}: ${message(e)}`, 'error');
    }
  }

  /** Adds or removes a breakpoint: a checkpoint kind, or a tool (before_tool for its calls). */
  async toggleBreakpoint(target: BreakpointTarget): Promise<void> {
    const cur = this.#current();
    if (!cur) return;
    const bp = cur.summary.breakpoints;
    const flip = <T>(list: readonly T[] | null, v: T): T[] => {
      const l = [...(list ?? [])];
      return l.includes(v) ? l.filter((x) => x !== v) : [...l, v];
    };
    const next: Breakpoints =
      'point' in target
        ? { points: flip<string>(bp.points, target.point), tools: [...(bp.tools ?? [])] }
        : { points: [...(bp.points ?? [])], tools: flip(bp.tools, target.tool) };
    try {
      await this.#do({ do: 'set_breakpoints', session: cur.id, breakpoints: next });
    } catch (e) {
      this.#notify(`Could not change the breakpoints: ${message(e)}`, 'error');
    }
  }

  /**
   * Sends what the user typed at the pause (request, arguments, result).
   * Returns false, with the reason in the draft, when it was refused.
   */
  async applyEdits(cur: SessionState | null = this.#current()): Promise<boolean> {
    const d = cur?.pauseDraft;
    if (!cur || !d || !d.dirty) return true;
    d.error = null;
    d.argsError = null;
    try {
      const at = d.pause.seq;
      if (d.pause.point === 'before_request') {
        const request = d.requestEdit();
        if (request) await this.#do({ do: 'edit_request', session: cur.id, at, request });
      } else if (d.pause.point === 'before_tool') {
        try {
          await this.#do({ do: 'edit_args', session: cur.id, at, text: d.args });
        } catch (e) {
          d.argsError = message(e);
          return false;
        }
      } else if (d.pause.point === 'after_result') {
        await this.#do({ do: 'edit_result', session: cur.id, at, text: d.result });
      }
      d.applied();
      return true;
    } catch (e) {
      d.error = message(e);
      return false;
    }
  }

  /** Ends the pause: Step to the next checkpoint, Continue to a breakpoint or the end. Edits typed so far go first. */
  async resume(action: 'step' | 'continue' | 'step_into'): Promise<void> {
    const cur = this.#current();
    const p = cur?.pause;
    if (!cur || !p || cur.resuming) return;
    cur.resuming = true;
    try {
      if (!(await this.applyEdits(cur))) return;
      // The edits sent are events now: the pause to leave is the same one.
      const at = cur.pause?.seq ?? p.seq;
      cur.leaving = at;
      // Into a task call's sub-agent is a step that pauses inside it.
      await this.#do(action === 'step_into' ? { do: 'step', session: cur.id, at, into: true } : { do: action, session: cur.id, at });
    } catch (e) {
      cur.leaving = null;
      this.#notify(`Could not ${action}: ${message(e)}`, 'error');
    } finally {
      cur.resuming = false;
    }
  }

  /** Answers the paused call with the user's observation instead of running it. */
  async skipCall(): Promise<void> {
    const cur = this.#current();
    const d = cur?.pauseDraft;
    if (!cur || !d || d.pause.point !== 'before_tool' || cur.resuming) return;
    if (!d.skip.trim()) {
      d.error = 'Write the observation the model should get instead of the tool’s result.';
      return;
    }
    cur.resuming = true;
    d.error = null;
    cur.leaving = d.pause.seq;
    try {
      await this.#do({ do: 'skip', session: cur.id, at: d.pause.seq, text: d.skip });
    } catch (e) {
      cur.leaving = null;
      d.error = message(e);
    } finally {
      cur.resuming = false;
    }
  }

  /** Sends the typed edits and stays paused. */
  async applyPauseEdits(): Promise<void> {
    const cur = this.#current();
    if (!cur || cur.resuming) return;
    cur.resuming = true;
    try {
      await this.applyEdits(cur);
    } finally {
      cur.resuming = false;
    }
  }
}
