// One workspace folder's safety settings as the Settings page shows them:
// its .loupe/settings.json and whether it is trusted, network access for
// its commands, the host paths its commands may also read, and the answers
// remembered "always for this workspace".
// Every change is made by the backend, which answers with the workspace
// as it then is, so what the page shows is what the backend holds.
import type { Bridge } from '../bridge/types';
import type { WorkspaceInfo } from '../types';
import { message } from './errors';

export class WorkspaceState {
  readonly dir: string;
  readonly #bridge: Bridge;
  info = $state.raw<WorkspaceInfo | null>(null);
  loading = $state(false);
  /** A change is on its way: the controls wait. */
  busy = $state(false);
  /** Why the last read or change failed, in the backend's words. */
  error = $state<string | null>(null);
  /** Why the last change to the exposed paths was refused, shown beside them. */
  exposeError = $state<string | null>(null);

  constructor(bridge: Bridge, dir: string) {
    this.#bridge = bridge;
    this.dir = dir;
  }

  /** Reads the workspace again (the settings file may have changed on disk). */
  async load(): Promise<void> {
    this.loading = true;
    try {
      this.info = await this.#bridge.workspace(this.dir);
      this.error = null;
    } catch (e) {
      this.error = message(e);
    } finally {
      this.loading = false;
    }
  }

  /**
   * Makes a change and shows the workspace as the backend then holds it; a
   * refusal reads it back and stays on show (in exposeError for the
   * exposed paths, in error for the rest).
   */
  async #change(what: () => Promise<WorkspaceInfo>, where: 'error' | 'exposeError' = 'error'): Promise<boolean> {
    if (this.busy) return false;
    this.busy = true;
    this.error = null;
    this.exposeError = null;
    let refused: string | null = null;
    try {
      this.info = await what();
    } catch (e) {
      refused = message(e);
      await this.load();
    }
    this.busy = false;
    if (refused != null) this[where] = refused;
    return refused == null;
  }

  /**
   * Trusts the settings file as it was shown (or stops trusting it): Go
   * refuses if it reads otherwise now (another session's command may have
   * rewritten it since).
   */
  setTrusted(trust: boolean): Promise<boolean> {
    const seen = this.info?.digest;
    return this.#change(() => this.#bridge.setWorkspace(this.dir, trust && seen ? { trust, seen } : { trust }));
  }

  setNetwork(allow: boolean): Promise<boolean> {
    return this.#change(() => this.#bridge.setWorkspace(this.dir, { network: allow }));
  }

  /** Sets the host paths the workspace's commands may also read (the whole list). */
  setExpose(paths: string[]): Promise<boolean> {
    return this.#change(() => this.#bridge.setWorkspace(this.dir, { expose: [...paths] }), 'exposeError');
  }

  /** The native folder picker, for a folder to expose; "" when cancelled or when it failed (exposeError says why). */
  async pickExposeFolder(): Promise<string> {
    try {
      return await this.#bridge.pickFolder('Choose a folder commands may read');
    } catch (e) {
      this.exposeError = `Could not open the folder picker: ${message(e)}`;
      return '';
    }
  }

  /** Forgets every answer remembered for this workspace. */
  forgetGrants(): Promise<boolean> {
    return this.#change(() => this.#bridge.setWorkspace(this.dir, { forget_grants: true }));
  }
}
