// What the user opened on the timeline's cards (their Raw view), kept
// outside the cards: the virtual list drops a card that scrolls far away
// and draws it anew when it comes back, and it should come back as it was.
import { getContext, setContext } from 'svelte';

const KEY = Symbol('card-memory');

export interface CardMemory {
  /** The ids of the cards whose Raw view is open. */
  readonly raws: Set<string>;
}

/** Gives the cards below a memory (the open session's view calls this). */
export function provideCardMemory(memory: () => CardMemory): void {
  setContext(KEY, memory);
}

/** The memory of the cards' open parts, if a timeline gave one. */
export function cardMemory(): CardMemory | undefined {
  return getContext<(() => CardMemory) | undefined>(KEY)?.();
}
