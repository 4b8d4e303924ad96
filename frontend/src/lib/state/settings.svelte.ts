// The user's settings: read on start, saved from the Settings page (with
// the backend's reason when it refuses), the draft typed and not saved yet,
// the section the page opens at, and the check of an Ollama host typed
// there before it is saved.
import type { Bridge } from '../bridge/types';
import type { HostCheck, Settings } from '../types';
import { message } from './errors';
import type { Notify } from './toasts.svelte';

/** A section of the Settings page to bring into view when it opens. */
export type SettingsSection = 'permissions' | 'workspace' | 'protections';

export class SettingsState {
  settings = $state.raw<Settings | null>(null);
  /** Why the last save was refused, in the backend's words (a rule that does not parse…). */
  error = $state<string | null>(null);
  /** What was typed on the Settings page and not saved: kept when the page is left, until saved or cancelled. */
  draft = $state.raw<Settings | null>(null);
  /** The Settings section to show when the page opens. */
  section = $state<SettingsSection | null>(null);

  readonly #bridge: Bridge;
  readonly #notify: Notify;
  /** Called once a save is done: the Ollama host may have changed. */
  readonly #afterSave: () => void;

  constructor(bridge: Bridge, notify: Notify, afterSave: () => void) {
    this.#bridge = bridge;
    this.#notify = notify;
    this.#afterSave = afterSave;
  }

  async load(): Promise<void> {
    try {
      this.settings = await this.#bridge.getSettings();
    } catch (e) {
      this.#notify(`Could not read the settings: ${message(e)}`, 'error');
    }
  }

  /**
   * Saves; when the backend refuses, error says why and the form keeps
   * what was typed. Once saved, the settings are read back (the backend
   * normalises the Ollama host) and afterSave is told (Ollama is checked at
   * once, so the status shows whether the host saved answers).
   */
  async save(s: Settings): Promise<boolean> {
    this.error = null;
    try {
      await this.#bridge.saveSettings(s);
    } catch (e) {
      this.error = message(e);
      return false;
    }
    this.settings = s;
    this.#notify('Settings saved.');
    // In the background: the page closes as soon as the save is done.
    void this.#readBack();
    return true;
  }

  async #readBack(): Promise<void> {
    this.#afterSave();
    try {
      this.settings = await this.#bridge.getSettings();
    } catch (e) {
      this.#notify(`Saved, but the settings could not be read back: ${message(e)}`, 'error');
    }
  }

  /** Asks an Ollama host typed in Settings for its version, without saving it; rejects with what to type. */
  checkHost(host: string): Promise<HostCheck> {
    return this.#bridge.checkHost(host);
  }

  /** The page opens afresh at a section: an old refusal is not shown again. */
  opening(section: SettingsSection | null): void {
    this.error = null;
    this.section = section;
  }
}
