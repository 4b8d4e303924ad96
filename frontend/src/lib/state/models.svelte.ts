// The models of Ollama as the window manages them: pulls under way (their
// progress comes from the backend on the bridge's pull stream, added up
// over the layers there), cancel, and delete. What a pull is and how far
// it is comes from the backend; this only keeps what is shown.
import type { Bridge } from '../bridge/types';
import type { PullProgress } from '../types';
import { message } from './errors';
import type { Notify } from './toasts.svelte';

/** One pull the window started, as the Models page shows it. */
export interface PullView {
  name: string;
  /** The latest progress; null until the first arrives. */
  progress: PullProgress | null;
  /** Cancel was pressed and the pull is not over yet. */
  cancelling: boolean;
  /** Why it failed; the row stays until dismissed, so the reason can be read. */
  error: string;
}

export class ModelPulls {
  /** Pulls by name, in the order they were started. */
  pulls = $state.raw<PullView[]>([]);
  /** The model whose delete waits for the user's yes, or null. */
  confirmDelete = $state<string | null>(null);
  /** Models being deleted. */
  deleting = $state.raw<ReadonlySet<string>>(new Set());

  readonly #bridge: Bridge;
  readonly #notify: Notify;
  /** Reads the model list again (a pull or delete changed it). */
  readonly #refresh: () => Promise<void>;

  constructor(bridge: Bridge, notify: Notify, refresh: () => Promise<void>) {
    this.#bridge = bridge;
    this.#notify = notify;
    this.#refresh = refresh;
  }

  /** Listens to the pulls' progress; returns what stops it. */
  watch(): () => void {
    return this.#bridge.onPull((batch) => {
      for (const p of batch) this.#update(p.model, (v) => ({ ...v, progress: p }));
    });
  }

  #update(name: string, f: (v: PullView) => PullView): void {
    if (!this.pulls.some((v) => v.name === name)) return;
    this.pulls = this.pulls.map((v) => (v.name === name ? f(v) : v));
  }

  /** The pull of name that is under way (not failed), if any. */
  running(name: string): PullView | undefined {
    return this.pulls.find((v) => v.name === name && !v.error);
  }

  /**
   * Pulls name. Resolves when the pull is over: the model installed (and
   * the list read again), cancelled, or failed (the reason stays on its
   * row).
   */
  async pull(raw: string): Promise<void> {
    const name = raw.trim();
    if (!name || this.running(name)) return;
    this.pulls = [...this.pulls.filter((v) => v.name !== name), { name, progress: null, cancelling: false, error: '' }];
    try {
      await this.#bridge.pullModel(name);
      const cancelled = this.pulls.find((v) => v.name === name)?.cancelling ?? false;
      this.pulls = this.pulls.filter((v) => v.name !== name);
      await this.#refresh();
      this.#notify(cancelled ? `The pull of ${name} was cancelled; nothing of it is installed.` : `${name} is installed.`);
    } catch (e) {
      this.#update(name, (v) => ({ ...v, cancelling: false, error: message(e) }));
    }
  }

  /** Cancels the pull of name; the pull's own end removes its row. */
  async cancel(name: string): Promise<void> {
    this.#update(name, (v) => ({ ...v, cancelling: true }));
    try {
      await this.#bridge.cancelPull(name);
    } catch (e) {
      this.#update(name, (v) => ({ ...v, cancelling: false }));
      this.#notify(`Could not cancel the pull of ${name}: ${message(e)}`, 'error');
    }
  }

  /** Forgets a failed pull's row. */
  dismiss(name: string): void {
    this.pulls = this.pulls.filter((v) => v.name !== name || !v.error);
  }

  /** Deletes a model once the user said yes (confirmDelete). */
  async remove(name: string): Promise<void> {
    this.confirmDelete = null;
    this.deleting = new Set([...this.deleting, name]);
    try {
      await this.#bridge.deleteModel(name);
      await this.#refresh();
      this.#notify(`${name} is deleted.`);
    } catch (e) {
      this.#notify(`Could not delete ${name}: ${message(e)}`, 'error');
    } finally {
      const left = new Set(this.deleting);
      left.delete(name);
      this.deleting = left;
    }
  }
}
