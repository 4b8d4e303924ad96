import type { Bridge } from './types';
import { WailsBridge, wailsAvailable } from './wails';

export type { Bridge, Listener, Unsubscribe } from './types';
export { BridgeError } from './types';
export { EventHub, Deduper, frameScheduler, type Scheduler } from './hub';

/**
 * The bridge for this page: the Wails one inside the Loupe window. Outside
 * it, a development build (the Vite dev server) plays a recorded session
 * instead, loaded only then: a production build has no demo in it
 * (scripts/check-bundle.mjs checks). null when there is neither.
 */
export async function createBridge(): Promise<{ bridge: Bridge; demo: boolean } | null> {
  if (wailsAvailable()) return { bridge: new WailsBridge(), demo: false };
  if (import.meta.env.DEV) {
    const { createDemoBridge, demoScenario } = await import('../replay/demo');
    return { bridge: createDemoBridge(demoScenario(globalThis.location?.search ?? '')), demo: true };
  }
  return null;
}
