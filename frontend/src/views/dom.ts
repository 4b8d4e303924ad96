// DOM helpers for the views: keyboard focus of timeline cards, and the marks
// of a search's text in the card it opened.
import { foldRanges } from '../lib/timeline/fold';

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

/** The system asks for less motion: scroll at once, animate nothing. */
export function reducedMotion(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/** A box's top and bottom (a DOMRect will do). */
export interface Span {
  top: number;
  bottom: number;
}

/**
 * Whether `box` is as much in `view` as it can be: whole, or, taller than
 * the view, from its top (up to `margin` below the view's top: the
 * element's scroll-margin). 1 px either way is rounding.
 */
export function inView(box: Span, view: Span, margin = 0): boolean {
  if (box.bottom - box.top > view.bottom - view.top) return box.top >= view.top - 1 && box.top <= view.top + margin + 1;
  return box.top >= view.top - 1 && box.bottom <= view.bottom + 1;
}

const frame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));

/**
 * The timeline's scroll has one aim at a time: each bringIntoView takes
 * it, and following the end or the user's own scrolling ends it. An older
 * aim that kept going would scroll the view back to its own element once
 * its scroll settled (the bar naming one card while the view shows the
 * one before; several steps in a row pulling the view to and fro for
 * seconds after the last one, drawing every frame).
 */
let aim = 0;

/**
 * Ends the aim in progress (the view is the user's, or follows the end)
 * and returns a mark: `aimedSince(mark)` tells whether an aim took the
 * scroll after it.
 */
export function stopAiming(): number {
  return ++aim;
}
export function aimedSince(mark: number): boolean {
  return aim !== mark;
}

/**
 * Resolves once `el` has not scrolled for a few frames (a smooth scroll
 * ended), after about 1.5 s, or as soon as `live` turns false.
 */
async function scrollSettled(el: HTMLElement, live: () => boolean): Promise<void> {
  let last = el.scrollTop;
  for (let n = 0, still = 0; n < 90 && still < 3 && live(); n++) {
    await frame();
    still = el.scrollTop === last ? still + 1 : 0;
    last = el.scrollTop;
  }
}

/**
 * Scrolls the element `get` finds into view and keeps it there: the
 * timeline's rows are measured as they are drawn on the way, which moves
 * the element after a scroll aimed at where it was (it ended just off
 * screen). Once the scroll has settled, it aims again, at once, until the
 * element is in view, unless another aim has taken the scroll meanwhile.
 * Returns whether this aim is still the scroll's.
 */
export async function bringIntoView(get: () => HTMLElement | null): Promise<boolean> {
  const mine = ++aim;
  const live = () => aim === mine;
  const first = get();
  if (!first?.scrollIntoView) return live();
  const scroller = first.closest<HTMLElement>('[data-part="timeline"]');
  first.scrollIntoView({ block: blockFor(first, scroller), behavior: reducedMotion() ? 'auto' : 'smooth' });
  if (!scroller || typeof requestAnimationFrame !== 'function') return live();
  for (let n = 0; n < 4; n++) {
    await scrollSettled(scroller, live);
    if (!live()) return false;
    const el = get();
    if (!el || inView(el.getBoundingClientRect(), scroller.getBoundingClientRect(), parseFloat(getComputedStyle(el).scrollMarginTop) || 0)) return true;
    el.scrollIntoView({ block: blockFor(el, scroller) });
  }
  return live();
}

/**
 * Where a card goes in the view: as little scrolling as will show it
 * whole, or, for a card taller than the view, its top at the top ("nearest"
 * would show only its bottom when coming from below: the card's header,
 * what it is, off screen).
 */
function blockFor(el: HTMLElement, scroller: HTMLElement | null): ScrollLogicalPosition {
  if (!scroller) return 'nearest';
  return el.getBoundingClientRect().height > scroller.clientHeight ? 'start' : 'nearest';
}

/** Focuses a card and scrolls it into view, drawing it first when it is far off screen. */
export async function focusCard(id: string): Promise<boolean> {
  const el = await cardElement(id);
  if (!el) return false;
  el.focus({ preventScroll: true });
  // Aiming again goes on in the background: the caller has its card now.
  void bringIntoView(() => document.getElementById(`card-${id}`));
  return true;
}

/** Scrolls a card into view without taking the focus (the slider keeps it). */
export async function showCard(id: string): Promise<void> {
  if (await cardElement(id)) void bringIntoView(() => document.getElementById(`card-${id}`));
}

/**
 * Gives the pause editor the keyboard: its first field (or its Step
 * button when it has none), or with intoField false the editor itself, so
 * that single-letter shortcuts still work.
 */
export function focusPauseEditor(intoField = true): boolean {
  const ed = document.querySelector<HTMLElement>('[data-part="pause-editor"]');
  if (!ed) return false;
  const target = intoField
    ? (ed.querySelector<HTMLElement>('textarea, input') ?? ed.querySelector<HTMLElement>('[data-part="pause-step"]'))
    : ed;
  target?.focus({ preventScroll: true });
  void bringIntoView(() => document.querySelector<HTMLElement>('[data-part="pause-editor"]'));
  return target != null;
}

/** The name of the highlight that marks a search's text in the card it opened (app.css draws it). */
export const SEARCH_HIGHLIGHT = 'loupe-search';

/**
 * Marks where `q` is in the text a card shows (the card a search result
 * opened), drawing the card first when it is far off screen, and returns
 * how many places it marked. The marks are a CSS highlight over ranges of
 * the card's text: nothing is added to the card's DOM, and the next mark
 * replaces them. Where the engine has no CSS highlights, the first place
 * is selected instead. Text split across elements (a highlighted line of
 * code) is matched as one.
 */
export async function markMatches(id: string, q: string): Promise<number> {
  const el = await cardElement(id);
  const registry = typeof CSS !== 'undefined' ? (CSS as unknown as { highlights?: Map<string, unknown> }).highlights : undefined;
  registry?.delete(SEARCH_HIGHLIGHT);
  if (!el) return 0;
  const nodes: { node: Text; from: number }[] = [];
  let text = '';
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    nodes.push({ node: n as Text, from: text.length });
    text += (n as Text).data;
  }
  // The text node holding offset `at` (an end goes in the node it ends).
  const place = (at: number, end: boolean): [Text, number] => {
    let i = nodes.length - 1;
    while (i > 0 && (end ? nodes[i]!.from >= at : nodes[i]!.from > at)) i--;
    return [nodes[i]!.node, at - nodes[i]!.from];
  };
  const ranges = foldRanges(text, q).map(([a, b]) => {
    const r = document.createRange();
    r.setStart(...place(a, false));
    r.setEnd(...place(b, true));
    return r;
  });
  if (ranges.length === 0) return 0;
  const H = (globalThis as unknown as { Highlight?: new (...r: Range[]) => unknown }).Highlight;
  if (registry && H) {
    registry.set(SEARCH_HIGHLIGHT, new H(...ranges));
  } else {
    const sel = getSelection();
    sel?.removeAllRanges();
    sel?.addRange(ranges[0]!);
  }
  return ranges.length;
}
