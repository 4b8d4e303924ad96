// Toasts: short messages at the corner of the window (what was saved,
// what failed), each gone after a few seconds or when dismissed. Every
// other part of the state tells the user things through notify.

export interface Toast {
  id: number;
  tone: 'info' | 'error';
  message: string;
}

/** How a part of the state tells the user something. */
export type Notify = (msg: string, tone?: Toast['tone']) => void;

/** How long a toast stays, by tone: an error is read more slowly. */
const TOAST_MS: Record<Toast['tone'], number> = { info: 4000, error: 8000 };

export class Toasts {
  /** The toasts shown, oldest first. */
  list = $state.raw<Toast[]>([]);

  #id = 0;

  notify(msg: string, tone: Toast['tone'] = 'info'): void {
    const id = ++this.#id;
    this.list = [...this.list, { id, tone, message: msg }];
    setTimeout(() => this.dismiss(id), TOAST_MS[tone]);
  }

  dismiss(id: number): void {
    this.list = this.list.filter((t) => t.id !== id);
  }
}
