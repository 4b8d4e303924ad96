// Ollama's status and the installed models: checked on start, again when
// the window gets the focus back, and on a timer whatever the answer (soon
// while Ollama is unreachable, less often while it answers), so a stopped
// Ollama or a model pulled meanwhile shows without a click.
import type { Bridge } from '../bridge/types';
import type { ModelInfo, StatusInfo } from '../types';
import { message } from './errors';
import type { Notify } from './toasts.svelte';

/** How often Ollama's status is checked again while it is unreachable. */
export const STATUS_RETRY_MS = 5000;
/**
 * How often it is checked while it answers: often enough that a stopped
 * Ollama shows within seconds and a model pulled meanwhile appears, and
 * cheap (two small local requests).
 */
export const STATUS_WATCH_MS = 15000;

export function hasCapability(m: ModelInfo, cap: string): boolean {
  return (m.capabilities ?? []).includes(cap);
}

export class OllamaStatus {
  status = $state.raw<StatusInfo | null>(null);
  /** A check is on its way. */
  checking = $state(false);
  models = $state.raw<ModelInfo[]>([]);
  /** The model list has been asked for once (or Ollama was found unreachable). */
  modelsLoaded = $state(false);
  /** Start Ollama was pressed and the server is not up yet. */
  starting = $state(false);
  /** Why the last Start Ollama failed ("" after one that worked). */
  startError = $state('');

  readonly #bridge: Bridge;
  readonly #notify: Notify;
  /** Called when a check finds Ollama back after it was unreachable. */
  readonly #onBack: () => void;
  #retry: ReturnType<typeof setTimeout> | null = null;
  #stopped = false;

  constructor(bridge: Bridge, notify: Notify, onBack: () => void) {
    this.#bridge = bridge;
    this.#notify = notify;
    this.#onBack = onBack;
  }

  /** Checks now and keeps checking; returns what stops it (the timer and the focus listener). */
  watch(): () => void {
    this.#stopped = false;
    // Coming back to the window checks Ollama at once (it may have been
    // started, stopped, or given a new model meanwhile).
    const onFocus = () => void this.refresh(true);
    const hasWindow = typeof window !== 'undefined';
    if (hasWindow) window.addEventListener('focus', onFocus);
    void this.refresh();
    return () => {
      this.#stopped = true;
      if (this.#retry) clearTimeout(this.#retry);
      if (hasWindow) window.removeEventListener('focus', onFocus);
    };
  }

  /**
   * Checks Ollama now, and again later whatever the answer: soon while it
   * is unreachable, less often while it answers. The model list is read
   * again on each check that reaches Ollama (a model pulled since shows);
   * onBack is told once it is back.
   */
  async refresh(quiet = false): Promise<void> {
    if (this.#retry) {
      clearTimeout(this.#retry);
      this.#retry = null;
    }
    // A check of its own accord (the timer, the window's focus) is not
    // shown once there is a status: a spinner and a redraw of everything
    // that reads the status every few seconds is work for nothing.
    if (!quiet || this.status == null) this.checking = true;
    const wasReachable = this.status?.reachable ?? false;
    let next: StatusInfo;
    try {
      next = await this.#bridge.status();
    } catch (e) {
      next = {
        ollama_host: this.status?.ollama_host ?? '',
        reachable: false,
        version: '',
        message: message(e),
        db_path: this.status?.db_path ?? '',
        db_error: this.status?.db_error ?? '',
        // What is known of the host and of this machine's Ollama from the
        // last answer; nothing (not on this machine) before one.
        hosts: this.status?.hosts ?? { host: '', from: '', flag: '', env: '' },
        local: this.status?.local ?? {
          on_this_machine: false,
          installed: false,
          binary: '',
          binary_version: '',
          started_by_loupe: false,
          log_path: '',
          install: '',
          install_url: '',
          last_error: '',
        },
      };
    } finally {
      this.checking = false;
    }
    // The same answer again changes nothing on screen.
    if (this.status == null || JSON.stringify(next) !== JSON.stringify(this.status)) this.status = next;
    if (this.status.reachable) {
      await this.refreshModels(wasReachable);
      if (!wasReachable) this.#onBack();
    } else {
      this.modelsLoaded = true;
    }
    if (!this.#stopped) {
      this.#retry = setTimeout(() => void this.refresh(true), this.status.reachable ? STATUS_WATCH_MS : STATUS_RETRY_MS);
    }
  }

  /**
   * Starts `ollama serve` on the host Loupe uses (the backend waits until
   * it answers), then checks again, which reads the models too.
   */
  async start(): Promise<void> {
    if (this.starting) return;
    this.starting = true;
    this.startError = '';
    try {
      this.status = await this.#bridge.startOllama();
    } catch (e) {
      this.startError = message(e);
    } finally {
      this.starting = false;
    }
    await this.refresh();
  }

  /** Reads the installed models; quiet says a failure is not worth a toast (a background check). */
  async refreshModels(quiet = false): Promise<void> {
    try {
      const models = await this.#bridge.listModels();
      if (!sameModels(models, this.models)) this.models = models;
    } catch (e) {
      if (!quiet) this.#notify(`Could not list models: ${message(e)}`, 'error');
    } finally {
      this.modelsLoaded = true;
    }
  }

  modelInfo(name: string): ModelInfo | undefined {
    return this.models.find((m) => m.name === name);
  }
}

/** The same models, in the same order: a background check changes nothing then. */
function sameModels(a: readonly ModelInfo[], b: readonly ModelInfo[]): boolean {
  return a.length === b.length && a.every((m, i) => m.name === b[i]!.name && m.modified_at === b[i]!.modified_at && m.size === b[i]!.size);
}
