// Every network connection Loupe made since it started, as the backend
// counts them where they are made (the Ollama client's transport): read
// on start and every few seconds, and when the list is opened.
import type { Bridge } from '../bridge/types';
import type { Connection } from '../types';
import { message } from './errors';

/** How often the list is read again: cheap (a count in memory), and a new host shows within seconds. */
export const CONNECTIONS_POLL_MS = 5000;

export class NetworkState {
  connections = $state.raw<Connection[]>([]);
  /** The list has been read once. */
  loaded = $state(false);
  /** Why the last read failed, if it did. */
  error = $state<string | null>(null);

  readonly #bridge: Bridge;

  constructor(bridge: Bridge) {
    this.#bridge = bridge;
  }

  /** Reads now and every CONNECTIONS_POLL_MS; returns what stops it. */
  watch(): () => void {
    void this.refresh();
    const timer = setInterval(() => void this.refresh(), CONNECTIONS_POLL_MS);
    return () => clearInterval(timer);
  }

  async refresh(): Promise<void> {
    try {
      const list = await this.#bridge.connections();
      if (!sameConnections(list, this.connections)) this.connections = list;
      this.error = null;
    } catch (e) {
      this.error = message(e);
    } finally {
      this.loaded = true;
    }
  }
}

function sameConnections(a: readonly Connection[], b: readonly Connection[]): boolean {
  return (
    a.length === b.length &&
    a.every((c, i) => {
      const d = b[i]!;
      return c.host === d.host && c.port === d.port && c.count === d.count && c.failed === d.failed && c.loopback === d.loopback;
    })
  );
}
