// What the session list does to a session: rename, pin, duplicate, and a
// delete that can be taken back for a few seconds. The backend keeps the
// deleted session whole until its time is up (or Loupe closes), so Undo
// brings it back as it was; if Loupe dies meanwhile, it is still there.
import type { Bridge } from '../bridge/types';
import { visible } from '../timeline';
import type { Summary } from '../types';
import { message } from './errors';
import type { Router } from './routing.svelte';
import type { SessionList } from './summaries.svelte';
import type { Toasts } from './toasts.svelte';

interface Pending {
  summary: Summary;
  toast: number;
  timer: ReturnType<typeof setTimeout>;
}

export class SessionOps {
  /** The session whose name is being edited in the list, or null. */
  renaming = $state<string | null>(null);
  /** Deletes that can still be taken back, the latest last (Ctrl+Z takes it). */
  pending = $state.raw<string[]>([]);

  readonly #bridge: Bridge;
  readonly #sessions: SessionList;
  readonly #router: Router;
  readonly #toasts: Toasts;
  readonly #waiting = new Map<string, Pending>();

  constructor(bridge: Bridge, sessions: SessionList, router: Router, toasts: Toasts) {
    this.#bridge = bridge;
    this.#sessions = sessions;
    this.#router = router;
    this.#toasts = toasts;
  }

  /** Saves a new name; false (and the reason in a toast) when refused, and the field stays. */
  async rename(id: string, title: string): Promise<boolean> {
    const old = this.#sessions.find(id);
    if (old && title.trim() === old.title) {
      this.renaming = null;
      return true;
    }
    try {
      this.#take(await this.#bridge.renameSession(id, title));
      this.renaming = null;
      return true;
    } catch (e) {
      this.#toasts.notify(`Could not rename the session: ${message(e)}`, 'error');
      return false;
    }
  }

  async pin(id: string, on: boolean): Promise<void> {
    try {
      this.#take(await this.#bridge.pinSession(id, on));
    } catch (e) {
      this.#toasts.notify(`Could not ${on ? 'pin' : 'unpin'} the session: ${message(e)}`, 'error');
    }
  }

  /** A copy of the session's conversation, opened. */
  async duplicate(id: string): Promise<string | null> {
    try {
      const s = this.#take(await this.#bridge.duplicateSession(id));
      this.#toasts.notify(`Made “${visible(s.title)}”, a copy of the conversation.`);
      await this.#router.openSession(s.id);
      return s.id;
    } catch (e) {
      this.#toasts.notify(`Could not duplicate the session: ${message(e)}`, 'error');
      return null;
    }
  }

  /** Deletes a session, with Undo for a few seconds. */
  async remove(id: string): Promise<void> {
    const summary = this.#sessions.find(id);
    if (!summary) return;
    let until: number;
    try {
      const p = await this.#bridge.deleteSessionLater(id);
      until = Date.parse(p.until);
    } catch (e) {
      this.#toasts.notify(`Could not delete the session: ${message(e)}`, 'error');
      return;
    }
    this.#sessions.remove(id);
    this.#router.leave(id);
    const ms = Math.max(1000, (Number.isFinite(until) ? until : Date.now() + 6000) - Date.now());
    const toast = this.#toasts.notify(`Deleted “${visible(summary.title) || 'Untitled session'}”.`, 'info', {
      ms,
      action: { label: 'Undo', run: () => void this.undo(id) },
    });
    const timer = setTimeout(() => this.#forget(id), ms);
    this.#waiting.set(id, { summary, toast, timer });
    this.pending = [...this.pending.filter((x) => x !== id), id];
  }

  /** Takes back a delete (the latest when no id is given); false when there is none to take back. */
  async undo(id: string | null = null): Promise<boolean> {
    const which = id ?? this.pending.at(-1) ?? null;
    if (which == null) return false;
    const p = this.#waiting.get(which);
    this.#forget(which);
    try {
      const s = await this.#bridge.undoDelete(which);
      this.#sessions.take(s, null);
      this.#toasts.notify(`“${visible(s.title) || 'Untitled session'}” is back.`);
      return true;
    } catch (e) {
      this.#toasts.notify(`Could not bring the session back: ${message(e)}`, 'error');
      return false;
    } finally {
      if (p) this.#toasts.dismiss(p.toast);
    }
  }

  #forget(id: string): void {
    const p = this.#waiting.get(id);
    if (p) clearTimeout(p.timer);
    this.#waiting.delete(id);
    this.pending = this.pending.filter((x) => x !== id);
  }

  #take(s: Summary): Summary {
    const cur = this.#router.current;
    const merged = this.#sessions.take(s, cur?.summary ?? null);
    if (cur?.id === s.id) cur.setSummary(merged);
    return merged;
  }
}
