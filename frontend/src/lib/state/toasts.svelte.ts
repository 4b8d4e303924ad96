// Toasts: short messages at the corner of the window (what was saved,
// what failed), each gone after a few seconds or when dismissed. Every
// other part of the state tells the user things through notify.

export interface Toast {
  id: number;
  tone: 'info' | 'error';
  message: string;
  /** A button on the toast (Undo): what it says and does. */
  action?: { label: string; run: () => void };
}

export interface ToastOptions {
  /** How long it stays, instead of the tone's time. */
  ms?: number;
  action?: Toast['action'];
}

/** How a part of the state tells the user something. */
export type Notify = (msg: string, tone?: Toast['tone']) => void;

/** How long a toast stays, by tone: an error is read more slowly. */
const TOAST_MS: Record<Toast['tone'], number> = { info: 4000, error: 8000 };

export class Toasts {
  /** The toasts shown, oldest first. */
  list = $state.raw<Toast[]>([]);

  #id = 0;

  /** Shows a toast; returns its id (for dismiss). */
  notify(msg: string, tone: Toast['tone'] = 'info', opts: ToastOptions = {}): number {
    const id = ++this.#id;
    this.list = [...this.list, { id, tone, message: msg, ...(opts.action ? { action: opts.action } : {}) }];
    setTimeout(() => this.dismiss(id), opts.ms ?? TOAST_MS[tone]);
    return id;
  }

  dismiss(id: number): void {
    this.list = this.list.filter((t) => t.id !== id);
  }
}
