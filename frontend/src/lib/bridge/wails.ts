// The only module that talks to Wails: the bound methods of main.App, as
// the window injects them, typed by go.ts' BoundApp (generated from App's
// Go methods), and Wails' runtime (../../../wailsjs/runtime) for its
// events.
import { BrowserOpenURL, EventsOnMultiple } from '../../../wailsjs/runtime/runtime';
import {
  CHANNELS,
  commandJSON,
  deltaOf,
  isRecord,
  parseEvent,
  type BoundApp,
  type Command,
  type Connection,
  type ModelCheck,
  type ReadinessReport,
  type RenderedPrompt,
  type Delta,
  type HostCheck,
  type ModelInfo,
  type Outcome,
  type PendingDelete,
  type Protections,
  type Rule,
  type RuleLimits,
  type RuleCheck,
  type ToolInfo,
  type SearchFilter,
  type SearchResults,
  type SearchStatus,
  type SessionSnapshot,
  type Settings,
  type StatusInfo,
  type Summary,
  type SystemPromptView,
  type TraceEvent,
  type WorkspaceChange,
  type WorkspaceInfo,
  pullProgressOf,
  type PullProgress,
  readinessOf,
  renderedPromptOf,
  restoreResultOf,
  ruleLimitsOf,
  settingsOf,
  summaryOf,
  systemPromptOf,
  workspaceInfoOf,
  outcomeOf,
  searchResultsOf,
  searchStatusOf,
} from '../types';
import { EventHub, frameScheduler, type Scheduler } from './hub';
import { toBridgeError, type Bridge, type Listener, type Unsubscribe } from './types';

/** True when the page runs inside a Wails window (bindings are injected). */
export function wailsAvailable(): boolean {
  const w = globalThis as { go?: { main?: { App?: unknown } }; runtime?: unknown };
  return Boolean(w.go?.main?.App && w.runtime);
}

/**
 * The bound methods (window.go.main.App), read at each call: Wails injects
 * them into the window after this module loads.
 */
function app(): BoundApp {
  return (globalThis as unknown as { go: { main: { App: BoundApp } } }).go.main.App;
}

async function call<T>(command: string, run: () => Promise<unknown>): Promise<T> {
  try {
    return (await run()) as T;
  } catch (e) {
    throw toBridgeError(command, e);
  }
}

function list<T>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

/** Parses a list of events from the backend, dropping anything malformed. */
export function parseEvents(v: unknown): TraceEvent[] {
  const out: TraceEvent[] = [];
  for (const raw of list<unknown>(v)) {
    const e = parseEvent(raw);
    if (e) out.push(e);
    else console.warn('loupe: dropped a malformed event', raw);
  }
  return out;
}

export class WailsBridge implements Bridge {
  #hub: EventHub;
  #off: Unsubscribe[] = [];

  constructor(schedule: Scheduler = frameScheduler) {
    this.#hub = new EventHub(schedule);
    // Each runtime event is registered exactly once, for the life of the
    // bridge; UI code subscribes to the hub instead.
    this.#off.push(
      EventsOnMultiple(
        CHANNELS.event,
        (v: unknown) => {
          const e = parseEvent(v);
          if (e) this.#hub.push('events', e);
          else console.warn('loupe: dropped a malformed event', v);
        },
        -1,
      ),
      EventsOnMultiple(
        CHANNELS.pull,
        (v: unknown) => {
          const p = pullProgressOf(v);
          if (p) this.#hub.push('pulls', p);
        },
        -1,
      ),
      EventsOnMultiple(
        CHANNELS.delta,
        (v: unknown) => {
          const d = deltaOf(v);
          if (d) this.#hub.push('deltas', d);
        },
        -1,
      ),
    );
  }

  /** Unregisters the runtime listeners. */
  close(): void {
    for (const off of this.#off) off();
    this.#off = [];
  }

  status(): Promise<StatusInfo> {
    return call('Status', () => app().Status());
  }

  async listModels(): Promise<ModelInfo[]> {
    return list(await call('Models', () => app().Models()));
  }

  async listModelsOn(host: string): Promise<ModelInfo[]> {
    return list(await call('ModelsOn', () => app().ModelsOn(host)));
  }

  async connections(): Promise<Connection[]> {
    return list(await call('Connections', () => app().Connections()));
  }

  async systemPrompt(template: string, workspace: string): Promise<SystemPromptView> {
    const r = await call<unknown>('SystemPrompt', () => app().SystemPrompt(template, workspace));
    return systemPromptOf(r);
  }

  async listSessions(): Promise<Summary[]> {
    return list<Record<string, unknown>>(await call('Sessions', () => app().Sessions())).map(summaryOf);
  }

  async openSession(id: string): Promise<SessionSnapshot> {
    const r = await call<unknown>('Open', () => app().Open(id));
    if (!isRecord(r) || !isRecord(r['summary'])) throw toBridgeError('Open', 'The session could not be read.');
    return { summary: summaryOf(r['summary']), events: parseEvents(r['events']) };
  }

  async do(cmd: Command): Promise<Outcome> {
    // Go's JSON of the command (empty fields left out), as a recording keeps it.
    const r = await call<unknown>(cmd.do, () => app().Do(commandJSON(cmd)));
    if (cmd.do === 'delete') this.#hub.forget(cmd.session);
    return outcomeOf(r);
  }

  async search(query: string, filter: SearchFilter, limit: number): Promise<SearchResults> {
    return searchResultsOf(await call<unknown>('Search', () => app().Search(query, filter, limit)));
  }

  async searchStatus(): Promise<SearchStatus> {
    return searchStatusOf(await call<unknown>('SearchStatus', () => app().SearchStatus()));
  }

  async renameSession(id: string, title: string): Promise<Summary> {
    return summaryOf(await call<unknown>('RenameSession', () => app().RenameSession(id, title)));
  }

  async pinSession(id: string, on: boolean): Promise<Summary> {
    return summaryOf(await call<unknown>('PinSession', () => app().PinSession(id, on)));
  }

  async duplicateSession(id: string): Promise<Summary> {
    return summaryOf(await call<unknown>('DuplicateSession', () => app().DuplicateSession(id)));
  }

  async deleteSessionLater(id: string): Promise<PendingDelete> {
    const r = await call<{ session?: unknown; until?: unknown }>('DeleteSessionLater', () => app().DeleteSessionLater(id));
    return { session: id, until: typeof r?.until === 'string' ? r.until : '' };
  }

  async undoDelete(id: string): Promise<Summary> {
    return summaryOf(await call<unknown>('UndoDelete', () => app().UndoDelete(id)));
  }

  async eventPayload(sessionId: string, seq: number): Promise<string> {
    const body = await call<unknown>('EventPayload', () => app().EventPayload(sessionId, seq));
    if (typeof body !== 'string') throw toBridgeError('EventPayload', 'The event could not be read.');
    return body;
  }

  async pickFolder(title: string): Promise<string> {
    const dir = await call<unknown>('PickFolder', () => app().PickFolder(title));
    return typeof dir === 'string' ? dir : '';
  }

  async rawRequest(sessionId: string, seq: number): Promise<string> {
    const body = await call<unknown>('RawRequest', () => app().RawRequest(sessionId, seq));
    return typeof body === 'string' ? body : JSON.stringify(body);
  }

  async renderedPrompt(sessionId: string, seq: number): Promise<RenderedPrompt> {
    return renderedPromptOf(await call<unknown>('RenderedPrompt', () => app().RenderedPrompt(sessionId, seq)));
  }

  async checkModel(check: ModelCheck): Promise<ReadinessReport> {
    return readinessOf(await call<unknown>('CheckModel', () => app().CheckModel(check)));
  }

  async getSettings(): Promise<Settings> {
    return settingsOf(await call<unknown>('Settings', () => app().Settings()));
  }

  async saveSettings(s: Settings): Promise<void> {
    await call('SaveSettings', () => app().SaveSettings(s));
  }

  async checkHost(host: string): Promise<HostCheck> {
    const r = await call<unknown>('CheckHost', () => app().CheckHost(host));
    const o = isRecord(r) ? r : {};
    return {
      host: typeof o['host'] === 'string' ? o['host'] : host,
      reachable: o['reachable'] === true,
      version: typeof o['version'] === 'string' ? o['version'] : '',
      message: typeof o['message'] === 'string' ? o['message'] : '',
    };
  }

  async ruleLimits(rule: Rule): Promise<RuleLimits> {
    return ruleLimitsOf(await call<unknown>('RuleLimits', () => app().RuleLimits(rule)));
  }

  async checkRule(rule: Rule): Promise<RuleCheck> {
    return call('CheckRule', () => app().CheckRule(rule));
  }

  async tools(): Promise<ToolInfo[]> {
    return list(await call('Tools', () => app().Tools()));
  }

  async workspace(dir: string): Promise<WorkspaceInfo> {
    return workspaceInfoOf(await call<unknown>('Workspace', () => app().Workspace(dir)));
  }

  async setWorkspace(dir: string, change: WorkspaceChange): Promise<WorkspaceInfo> {
    return workspaceInfoOf(await call<unknown>('SetWorkspace', () => app().SetWorkspace(dir, change)));
  }

  async protections(): Promise<Protections> {
    return call('Protections', () => app().Protections());
  }

  startOllama(): Promise<StatusInfo> {
    return call('StartOllama', () => app().StartOllama());
  }

  async pullModel(name: string): Promise<void> {
    await call('PullModel', () => app().PullModel(name));
  }

  async cancelPull(name: string): Promise<boolean> {
    return (await call<unknown>('CancelPull', () => app().CancelPull(name))) === true;
  }

  async deleteModel(name: string): Promise<void> {
    await call('DeleteModel', () => app().DeleteModel(name));
  }

  onPull(fn: Listener<PullProgress>): Unsubscribe {
    return this.#hub.on('pulls', fn);
  }

  openURL(url: string): void {
    BrowserOpenURL(url);
  }

  onEvents(fn: Listener<TraceEvent>): Unsubscribe {
    return this.#hub.on('events', fn);
  }

  onDeltas(fn: Listener<Delta>): Unsubscribe {
    return this.#hub.on('deltas', fn);
  }
}
