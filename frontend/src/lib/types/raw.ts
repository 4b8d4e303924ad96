import type { Cut } from './go';

/** Where a card's Raw view gets its text. */
export interface RawSource {
  load: () => Promise<string>;
  /**
   * True when the loaded text is the exact bytes (the request body Loupe
   * sent); false when it is JSON re-serialised for display.
   */
  exact: boolean;
  /** The request went to the scripted demo (backend/demo), not to Ollama. */
  scripted?: boolean;
}

/** A Raw source for a value already in memory (an event or a payload field). */
export function rawOf(value: unknown): RawSource {
  return { load: async () => JSON.stringify(value), exact: false };
}

/**
 * What a card needs for an event that came cut: which fields, how long
 * they are whole, and how to get the event whole (the card then draws it).
 */
export interface Expandable {
  /** The cut fields by JSON Pointer into the payload (TraceEvent.preview). */
  cuts: Record<string, Cut>;
  load: () => Promise<void>;
}

/** One cut text of an Expandable: its whole length and how to get it. */
export interface More {
  cut: Cut;
  load: () => Promise<void>;
}

/** The cut text at pointer, or null when it came whole. */
export function moreAt(x: Expandable | null | undefined, pointer: string): More | null {
  const cut = x?.cuts[pointer];
  return x && cut ? { cut, load: x.load } : null;
}

/** Whether any field other than those named came cut. */
export function cutBesides(x: Expandable | null | undefined, ...pointers: string[]): boolean {
  return x != null && Object.keys(x.cuts).some((p) => !pointers.includes(p));
}
