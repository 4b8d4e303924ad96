// The only module that imports the Wails bindings (../../../wailsjs).
// Results are converted to our own types here, so that the generated
// binding classes never leak into the rest of the UI.
import * as App from '../../../wailsjs/go/main/App';
import { BrowserOpenURL, EventsOnMultiple } from '../../../wailsjs/runtime/runtime';
import {
  CHANNELS,
  commandJSON,
  deltaOf,
  isRecord,
  parseEvent,
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
  type Fork,
  type Forked,
  type ForkPreview,
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
    return call('Status', () => App.Status());
  }

  async listModels(): Promise<ModelInfo[]> {
    return list(await call('Models', () => App.Models()));
  }

  async listModelsOn(host: string): Promise<ModelInfo[]> {
    return list(await call('ModelsOn', () => App.ModelsOn(host)));
  }

  async connections(): Promise<Connection[]> {
    return list(await call('Connections', () => App.Connections()));
  }

  async systemPrompt(template: string, workspace: string): Promise<SystemPromptView> {
    const r = await call<unknown>('SystemPrompt', () => App.SystemPrompt(template, workspace));
    return systemPromptOf(r);
  }

  async listSessions(): Promise<Summary[]> {
    return list<Record<string, unknown>>(await call('Sessions', () => App.Sessions())).map(summaryOf);
  }

  async openSession(id: string): Promise<SessionSnapshot> {
    const r = await call<unknown>('Open', () => App.Open(id));
    if (!isRecord(r) || !isRecord(r['summary'])) throw toBridgeError('Open', 'The session could not be read.');
    return { summary: summaryOf(r['summary']), events: parseEvents(r['events']) };
  }

  async do(cmd: Command): Promise<Outcome> {
    // Plain JSON: the generated parameter type is a class, and the Go side
    // reads the fields only.
    const r = await call<unknown>(cmd.do, () => App.Do(commandJSON(cmd) as unknown as Parameters<typeof App.Do>[0]));
    if (cmd.do === 'delete') this.#hub.forget(cmd.session);
    return outcomeOf(r);
  }

  async search(query: string, filter: SearchFilter, limit: number): Promise<SearchResults> {
    const f = filter as unknown as Parameters<typeof App.Search>[1];
    return searchResultsOf(await call<unknown>('Search', () => App.Search(query, f, limit)));
  }

  async searchStatus(): Promise<SearchStatus> {
    return searchStatusOf(await call<unknown>('SearchStatus', () => App.SearchStatus()));
  }

  async renameSession(id: string, title: string): Promise<Summary> {
    return summaryOf(await call<unknown>('RenameSession', () => App.RenameSession(id, title)));
  }

  async pinSession(id: string, on: boolean): Promise<Summary> {
    return summaryOf(await call<unknown>('PinSession', () => App.PinSession(id, on)));
  }

  async duplicateSession(id: string): Promise<Summary> {
    return summaryOf(await call<unknown>('DuplicateSession', () => App.DuplicateSession(id)));
  }

  async previewFork(id: string, at: number): Promise<ForkPreview> {
    const r = await call<ForkPreview>('PreviewFork', () => App.PreviewFork(id, at));
    return { ...r, changed: r?.changed ?? [], commands: r?.commands ?? [] };
  }

  async forkSession(f: Fork): Promise<Forked> {
    const r = await call<Record<string, unknown>>('ForkSession', () => App.ForkSession(f as never));
    const files = (r['files'] ?? {}) as Forked['files'];
    return {
      summary: summaryOf(r['summary']),
      files: {
        ...files,
        changed: files.changed ?? [],
        restored: files.restored ?? [],
        not_restored: files.not_restored ?? [],
        not_copied: files.not_copied ?? [],
        commands: files.commands ?? [],
      },
    };
  }

  async deleteSessionLater(id: string): Promise<PendingDelete> {
    const r = await call<{ session?: unknown; until?: unknown }>('DeleteSessionLater', () => App.DeleteSessionLater(id));
    return { session: id, until: typeof r?.until === 'string' ? r.until : '' };
  }

  async undoDelete(id: string): Promise<Summary> {
    return summaryOf(await call<unknown>('UndoDelete', () => App.UndoDelete(id)));
  }

  async eventPayload(sessionId: string, seq: number): Promise<string> {
    const body = await call<unknown>('EventPayload', () => App.EventPayload(sessionId, seq));
    if (typeof body !== 'string') throw toBridgeError('EventPayload', 'The event could not be read.');
    return body;
  }

  async pickFolder(title: string): Promise<string> {
    const dir = await call<unknown>('PickFolder', () => App.PickFolder(title));
    return typeof dir === 'string' ? dir : '';
  }

  async rawRequest(sessionId: string, seq: number): Promise<string> {
    const body = await call<unknown>('RawRequest', () => App.RawRequest(sessionId, seq));
    return typeof body === 'string' ? body : JSON.stringify(body);
  }

  async renderedPrompt(sessionId: string, seq: number): Promise<RenderedPrompt> {
    return renderedPromptOf(await call<unknown>('RenderedPrompt', () => App.RenderedPrompt(sessionId, seq)));
  }

  async checkModel(check: ModelCheck): Promise<ReadinessReport> {
    const plain = { ...check, ...(check.tools ? { tools: [...check.tools] } : {}) };
    return readinessOf(await call<unknown>('CheckModel', () => App.CheckModel(plain as unknown as Parameters<typeof App.CheckModel>[0])));
  }

  async getSettings(): Promise<Settings> {
    return settingsOf(await call<unknown>('Settings', () => App.Settings()));
  }

  async saveSettings(s: Settings): Promise<void> {
    // The generated parameter type is a class with helper methods; the Go
    // side only reads the JSON fields, which a plain object carries.
    const plain = { ...s, tools: { ...s.tools }, rules: s.rules.map((r) => ({ ...r })) };
    await call('SaveSettings', () => App.SaveSettings(plain as unknown as Parameters<typeof App.SaveSettings>[0]));
  }

  async checkHost(host: string): Promise<HostCheck> {
    const r = await call<unknown>('CheckHost', () => App.CheckHost(host));
    const o = isRecord(r) ? r : {};
    return {
      host: typeof o['host'] === 'string' ? o['host'] : host,
      reachable: o['reachable'] === true,
      version: typeof o['version'] === 'string' ? o['version'] : '',
      message: typeof o['message'] === 'string' ? o['message'] : '',
    };
  }

  async ruleLimits(rule: Rule): Promise<RuleLimits> {
    const plain = { ...rule };
    return ruleLimitsOf(await call<unknown>('RuleLimits', () => App.RuleLimits(plain as unknown as Parameters<typeof App.RuleLimits>[0])));
  }

  async checkRule(rule: Rule): Promise<RuleCheck> {
    const plain = { ...rule };
    return call('CheckRule', () => App.CheckRule(plain as unknown as Parameters<typeof App.CheckRule>[0]));
  }

  async tools(): Promise<ToolInfo[]> {
    return list(await call('Tools', () => App.Tools()));
  }

  async workspace(dir: string): Promise<WorkspaceInfo> {
    return workspaceInfoOf(await call<unknown>('Workspace', () => App.Workspace(dir)));
  }

  async setWorkspace(dir: string, change: WorkspaceChange): Promise<WorkspaceInfo> {
    const plain = { ...change };
    return workspaceInfoOf(await call<unknown>('SetWorkspace', () => App.SetWorkspace(dir, plain as unknown as Parameters<typeof App.SetWorkspace>[1])));
  }

  async protections(): Promise<Protections> {
    return call('Protections', () => App.Protections());
  }

  startOllama(): Promise<StatusInfo> {
    return call('StartOllama', () => App.StartOllama());
  }

  async pullModel(name: string): Promise<void> {
    await call('PullModel', () => App.PullModel(name));
  }

  async cancelPull(name: string): Promise<boolean> {
    return (await call<unknown>('CancelPull', () => App.CancelPull(name))) === true;
  }

  async deleteModel(name: string): Promise<void> {
    await call('DeleteModel', () => App.DeleteModel(name));
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
