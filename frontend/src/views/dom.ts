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

/** Focuses a card and scrolls it into view. */
export function focusCard(id: string): void {
  const el = document.getElementById(`card-${id}`);
  if (!el) return;
  el.focus({ preventScroll: true });
  el.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
}

/** Scrolls a card into view without taking the focus (the slider keeps it). */
export function showCard(id: string): void {
  document.getElementById(`card-${id}`)?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
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
