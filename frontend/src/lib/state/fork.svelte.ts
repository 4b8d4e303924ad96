// The fork dialog: which session and event it forks at, what Go says a
// fork there would be (PreviewFork: or why there is none), what the user
// picks (model, where the fork works), and the fork itself (ForkSession),
// which opens the new session. In its "Run from here on…" form the fork
// works in a copy, on the model (and host) picked, and goes on at once
// (RunFromHere), and the two sessions open side by side (CompareState).
// Adopt, from a try's comparison, is a fork too (AdoptTry). Every
// judgement is Go's: the dialog shows the preview's problem, files and
// commands as they come.
import type { Bridge } from '../bridge/types';
import type { ForkPreview, Forked, Summary, TryResult } from '../types';
import type { CompareState } from './compare.svelte';
import { message } from './errors';
import type { Router } from './routing.svelte';
import type { SessionList } from './summaries.svelte';
import type { Toasts } from './toasts.svelte';

export type ForkFilesChoice = 'here' | 'copy';

export class ForkState {
  /** The fork point the dialog is open for, or null when closed. */
  target = $state.raw<{ session: string; at: number } | null>(null);
  preview = $state.raw<ForkPreview | null>(null);
  model = $state('');
  /** The host the run goes on ("": the session's), in the "Run from here on…" form. */
  host = $state('');
  /** The dialog is "Run from here on…": a copy, another model, and the run goes on at once. */
  run = $state(false);
  files = $state<ForkFilesChoice>('here');
  folder = $state('');
  busy = $state(false);
  error = $state<string | null>(null);
  /** What the last fork made, for the dialog's report of its files. */
  made = $state.raw<Forked | null>(null);

  readonly #bridge: Bridge;
  readonly #sessions: SessionList;
  readonly #router: Router;
  readonly #toasts: Toasts;
  readonly #compare: CompareState;

  constructor(bridge: Bridge, sessions: SessionList, router: Router, toasts: Toasts, compare: CompareState) {
    this.#bridge = bridge;
    this.#sessions = sessions;
    this.#router = router;
    this.#toasts = toasts;
    this.#compare = compare;
  }

  /** Opens the dialog for a fork of session at event at (run: as "Run from here on…"), and asks Go what it would be. */
  async open(session: string, at: number, run = false): Promise<void> {
    this.target = { session, at };
    this.preview = null;
    this.error = null;
    this.made = null;
    this.run = run;
    this.files = run ? 'copy' : 'here';
    this.folder = '';
    this.host = '';
    const parent = this.#sessions.find(session);
    // An imported session's model is another agent's: the fork picks a
    // local one (the dialog offers the installed models).
    this.model = parent?.source ? '' : (parent?.model ?? '');
    try {
      const p = await this.#bridge.previewFork(session, at);
      if (this.target?.session === session && this.target.at === at) this.preview = p;
    } catch (e) {
      this.error = message(e);
    }
  }

  close(): void {
    this.target = null;
    this.preview = null;
    this.busy = false;
  }

  /** Makes the fork and opens it (or, run from here on, the two side by side); false (the reason shown in the dialog) when refused. */
  async submit(): Promise<boolean> {
    if (this.run) return this.#runFrom();
    const t = this.target;
    if (!t || this.busy) return false;
    this.busy = true;
    this.error = null;
    try {
      const parent = this.#sessions.find(t.session);
      const made = await this.#bridge.forkSession({
        session: t.session,
        at: t.at,
        model: this.model && this.model !== parent?.model ? this.model : undefined,
        files: this.files,
        folder: this.files === 'copy' && this.folder.trim() ? this.folder.trim() : undefined,
      });
      this.made = made;
      const s: Summary = this.#sessions.take(made.summary, null);
      const skipped = made.files.not_restored?.length ?? 0;
      this.#toasts.notify(
        skipped
          ? `Forked at event ${t.at}. ${skipped} file${skipped === 1 ? '' : 's'} could not be put back as ${skipped === 1 ? 'it was' : 'they were'}: ${made.files.not_restored!.map((n) => n.path).join(', ')}.`
          : `Forked at event ${t.at}, working in ${made.files.workspace}.`,
        skipped ? 'error' : undefined,
      );
      this.close();
      await this.#router.openSession(s.id);
      return true;
    } catch (e) {
      this.error = message(e);
      return false;
    } finally {
      this.busy = false;
    }
  }

  /** "Run from here on…": the fork in a copy on the model picked, going on at once, then the compare view of the two. */
  async #runFrom(): Promise<boolean> {
    const t = this.target;
    if (!t || this.busy) return false;
    this.busy = true;
    this.error = null;
    try {
      const made = await this.#bridge.runFromHere({
        session: t.session,
        at: t.at,
        model: this.model,
        host: this.host.trim() || undefined,
        files: 'copy',
        folder: this.folder.trim() || undefined,
      });
      this.made = made;
      this.#sessions.take(made.summary, null);
      this.#toasts.notify(`Running the rest from event ${t.at} on ${made.summary.model}, in ${made.files.workspace}.`);
      this.close();
      await this.#compare.open(t.session, made.summary.id);
      return true;
    } catch (e) {
      this.error = message(e);
      return false;
    } finally {
      this.busy = false;
    }
  }

  /** Adopt: forks the try's session with the try's answer and opens the fork; rejects with why not, for the try panel to say. */
  async adopt(result: TryResult): Promise<void> {
    const made = await this.#bridge.adoptTry({ try: result });
    const s: Summary = this.#sessions.take(made.summary, null);
    this.#toasts.notify(`Adopted the answer of ${made.summary.model} to request ${result.at}: a fork that goes on from it.`);
    await this.#router.openSession(s.id);
  }
}
