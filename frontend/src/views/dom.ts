// DOM helpers for the views: keyboard focus of timeline cards.

/** True when keys typed now go into a text field. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag === 'INPUT') {
    const type = (target as HTMLInputElement).type;
    return !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(type);
  }
  return false;
}

/** True when the user has text in the field that has focus: don't take the focus away. */
export function isTypingSomething(el: Element | null): boolean {
  if (!isTyping(el)) return false;
  const v = (el as HTMLInputElement | HTMLTextAreaElement).value;
  return typeof v === 'string' ? v.trim() !== '' : true;
}

/**
 * Brings a card the timeline does not draw now (it lists only the rows
 * near the viewport) into the DOM; the open session's view sets it.
 */
type Revealer = (id: string) => Promise<boolean>;
let revealer: Revealer | null = null;

/** Sets how cards far off screen are brought in; returns the undo. */
export function setRevealer(r: Revealer): () => void {
  revealer = r;
  return () => {
    if (revealer === r) revealer = null;
  };
}

async function cardElement(id: string): Promise<HTMLElement | null> {
  const el = document.getElementById(`card-${id}`);
  if (el || !revealer) return el;
  await revealer(id);
  return document.getElementById(`card-${id}`);
}

/** Focuses a card and scrolls it into view, drawing it first when it is far off screen. */
export async function focusCard(id: string): Promise<boolean> {
  const el = await cardElement(id);
  if (!el) return false;
  el.focus({ preventScroll: true });
  el.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  return true;
}

/** Scrolls a card into view without taking the focus (the slider keeps it). */
export async function showCard(id: string): Promise<void> {
  (await cardElement(id))?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
}

/**
 * Gives the pause editor the keyboard: its first field (or its Step
 * button when it has none), or with intoField false the editor itself, so
 * that single-letter shortcuts still work.
 */
export function focusPauseEditor(intoField = true): boolean {
  const ed = document.querySelector<HTMLElement>('[data-testid="pause-editor"]');
  if (!ed) return false;
  const target = intoField
    ? (ed.querySelector<HTMLElement>('textarea, input') ?? ed.querySelector<HTMLElement>('[data-testid="pause-step"]'))
    : ed;
  target?.focus({ preventScroll: true });
  ed.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  return target != null;
}
