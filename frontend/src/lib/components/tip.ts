// Where a tooltip goes: beside the thing it is about and always whole
// inside the window. Tooltips are drawn `position: fixed`, so no scrolling
// or clipping box between them and the window can cut them off; this picks
// their place in the window's coordinates.

/** A box in the window's coordinates (a DOMRect will do). */
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}
export interface Size {
  width: number;
  height: number;
}

/** Kept free between a tooltip and the window's edge. */
export const EDGE = 8;

/**
 * The top-left corner of a tooltip of `tip`'s size about `anchor`, in a
 * window of `view`'s size: below the anchor and aligned with its left edge
 * if that fits; moved left as far as needed to stay in the window; above the
 * anchor when there is no room below; and never past the window's top or
 * left edge (a tooltip larger than the window shows its beginning).
 */
export function placeTip(anchor: Box, tip: Size, view: Size, gap = 6): { left: number; top: number } {
  const maxLeft = view.width - EDGE - tip.width;
  const left = Math.max(EDGE, Math.min(anchor.left, maxLeft));
  const below = anchor.bottom + gap;
  const above = anchor.top - gap - tip.height;
  let top: number;
  if (below + tip.height <= view.height - EDGE) top = below;
  else if (above >= EDGE) top = above;
  else top = Math.min(below, view.height - EDGE - tip.height);
  return { left, top: Math.max(EDGE, top) };
}

/** A point as a box (the pointer). */
export const pointBox = (x: number, y: number): Box => ({ left: x, top: y, right: x, bottom: y });

/**
 * Svelte action: places its (position: fixed) element with placeTip about
 * the anchor given, measuring the element's own size, whenever the anchor
 * or the content changes.
 */
export function tipAt(node: HTMLElement, anchor: Box | null) {
  let current = anchor;
  const place = () => {
    if (!current || typeof window === 'undefined') return;
    const r = node.getBoundingClientRect();
    const p = placeTip(current, { width: r.width, height: r.height }, { width: window.innerWidth, height: window.innerHeight });
    node.style.left = `${Math.round(p.left)}px`;
    node.style.top = `${Math.round(p.top)}px`;
  };
  place();
  return {
    update(next: Box | null) {
      current = next;
      place();
    },
  };
}
