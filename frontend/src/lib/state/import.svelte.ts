// Import: a session exported as JSON (loupe export --format json) brought
// back into the list and opened. The file comes from the Import dialog (a
// path typed or picked), or is dropped on the window: the native window
// tells Go its path, and a page that is given the file itself (a browser)
// reads it and hands over its text. Go judges the file; a session there
// already comes back as a clash, and the dialog asks: keep both, or skip.
import type { Bridge, Unsubscribe } from '../bridge/types';
import { visible } from '../timeline';
import type { Clash, ImportResult } from '../types';
import { message } from './errors';
import type { Router } from './routing.svelte';
import type { SessionList } from './summaries.svelte';
import type { Toasts } from './toasts.svelte';

/** What is being imported: a file Go reads, or the text of one the page read. */
type Source = { path: string } | { name: string; text: string };

export class ImportState {
  /** The dialog is open. */
  open = $state(false);
  /** The path in the dialog's field. */
  path = $state('');
  busy = $state(false);
  /** What Go said is wrong with the file, or null. */
  error = $state<string | null>(null);
  /** The session the file holds is here already: the dialog asks what to do. */
  clash = $state.raw<Clash | null>(null);

  #source: Source | null = null;
  readonly #bridge: Bridge;
  readonly #sessions: SessionList;
  readonly #router: Router;
  readonly #toasts: Toasts;

  constructor(bridge: Bridge, sessions: SessionList, router: Router, toasts: Toasts) {
    this.#bridge = bridge;
    this.#sessions = sessions;
    this.#router = router;
    this.#toasts = toasts;
  }

  /** Opens the dialog, empty. */
  show(): void {
    this.open = true;
    this.error = null;
    this.clash = null;
    this.#source = null;
  }

  close(): void {
    if (this.busy) return;
    this.open = false;
    this.error = null;
    this.clash = null;
    this.#source = null;
  }

  /** The native file picker fills the path. */
  async pick(): Promise<void> {
    try {
      const p = await this.#bridge.pickImportFile('Import a Loupe session');
      if (p) this.path = p;
    } catch (e) {
      this.error = message(e);
    }
  }

  /** Imports the file at the dialog's path. */
  importPath(): Promise<void> {
    const path = this.path.trim();
    if (!path) {
      this.error = 'Name the file to import: a session exported as JSON.';
      return Promise.resolve();
    }
    return this.#run({ path }, '');
  }

  /** Files dropped on the native window, by path: the first is imported. */
  dropPaths(paths: string[]): Promise<void> {
    const path = paths[0];
    if (path === undefined) return Promise.resolve();
    this.show();
    this.path = path;
    return this.#run({ path }, '');
  }

  /** A file dropped on the page itself: its text goes to Go. */
  async dropFile(file: File): Promise<void> {
    this.show();
    this.path = file.name;
    let text: string;
    try {
      text = await file.text();
    } catch (e) {
      this.error = `Could not read ${file.name}: ${message(e)}`;
      return;
    }
    return this.#run({ name: file.name, text }, '');
  }

  /** The answer to a clash: "as_new" keeps both, "skip" leaves the one here. */
  resolve(how: 'as_new' | 'skip'): Promise<void> {
    if (!this.#source) return Promise.resolve();
    return this.#run(this.#source, how);
  }

  /** Listens for files dropped on the native window. */
  listen(): Unsubscribe {
    return this.#bridge.onFilesDropped((paths) => void this.dropPaths(paths));
  }

  async #run(source: Source, how: string): Promise<void> {
    this.#source = source;
    this.busy = true;
    this.error = null;
    this.clash = null;
    let res: ImportResult;
    try {
      res = 'path' in source ? await this.#bridge.importFile(source.path, how) : await this.#bridge.importText(source.text, how);
    } catch (e) {
      this.error = message(e);
      return;
    } finally {
      this.busy = false;
    }
    if (res.clash) {
      this.clash = res.clash;
      return;
    }
    const s = res.session;
    this.open = false;
    this.#source = null;
    if (res.skipped) {
      this.#toasts.notify(`Skipped: “${visible(s.title)}” is here already.`);
    } else {
      this.#sessions.take(s, null);
      this.#toasts.notify(`Imported “${visible(s.title)}”: ${res.events} events.`);
      for (const n of res.notices ?? []) this.#toasts.notify(visible(n.message), 'error');
    }
    await this.#router.openSession(s.id);
  }
}
