import { createDemoBridge, type DemoScenario } from './demo';
import type { Bridge } from './types';
import { WailsBridge, wailsAvailable } from './wails';

export type { Bridge, Listener, Unsubscribe } from './types';
export { BridgeError } from './types';
export { FakeBridge } from './fake';
export { EventHub, Deduper, frameScheduler, type Scheduler } from './hub';

/**
 * The bridge for this page: the Wails one inside the Loupe window, a demo
 * with sample data anywhere else (a browser pointed at the dev server).
 */
export function createBridge(): { bridge: Bridge; demo: boolean } {
  if (wailsAvailable()) return { bridge: new WailsBridge(), demo: false };
  const param = new URLSearchParams(globalThis.location?.search ?? '').get('demo');
  const scenario: DemoScenario =
    param === 'offline' || param === 'empty' || param === 'long' || param === 'unsandboxed' ? param : 'sample';
  return { bridge: createDemoBridge(scenario), demo: true };
}
