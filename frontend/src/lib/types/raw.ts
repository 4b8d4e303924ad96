/** Where a card's Raw view gets its text. */
export interface RawSource {
  load: () => Promise<string>;
  /**
   * True when the loaded text is the exact bytes (the request body Loupe
   * sent); false when it is JSON re-serialised for display.
   */
  exact: boolean;
}

/** A Raw source for a value already in memory (an event or a payload field). */
export function rawOf(value: unknown): RawSource {
  return { load: async () => JSON.stringify(value), exact: false };
}
