// The only module that talks to Wails: the bound methods of main.App, as
// the window injects them, typed by go.ts' BoundApp (generated from App's
// Go methods), and Wails' runtime (../../../wailsjs/runtime) for its
// events.
import { BrowserOpenURL, EventsOnMultiple } from '../../../wailsjs/runtime/runtime';
import {
  CHANNELS,
  commandJSON,
  parseEvent,
  type BoundApp,
  type Command,
  type Connection,
  type ModelCheck,
  type ImportResult,
  type ReadinessReport,
  type RenderedPrompt,
  type Delta,
  type HostCheck,
  type ModelInfo,
  type Outcome,
  type PendingDelete,
  type Adopt,
  type Fork,
  type Forked,
  type ForkPreview,
  type Protections,
  type Hook,
  type MCPReach,
  type Tried,
  type MCPServerInfo,
  type Rule,
  type RuleLimits,
  type RuleCheck,
  type ToolInfo,
  type Try,
  type TryDelta,
  type TryResult,
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
  type PullProgress,
  type FilesWaiting,
  list,
  settingsOf,
  comparisonOf,
  searchResultsOf,
  type Comparison,
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

async function call<T>(command: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    throw toBridgeError(command, e);
  }
}

/** Parses a list of events from the backend, dropping anything malformed. */
export function parseEvents(v: unknown): TraceEvent[] {
  const out: TraceEvent[] = [];
  for (const raw of Array.isArray(v) ? (v as unknown[]) : []) {
    const e = parseEvent(raw);
    if (e) out.push(e);
    else console.warn('loupe: dropped a malformed event', raw);
  }
  return out;
}

export class WailsBridge implements Bridge {
  #hub: EventHub;
  #off: Unsubscribe[] = [];
  /** Who hears of files dropped on the native window (rare: no batching). */
  #dropped = new Set<(paths: string[]) => void>();

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
        (p: PullProgress) => this.#hub.push('pulls', p),
        -1,
      ),
      EventsOnMultiple(
        CHANNELS.waiting,
        (w: FilesWaiting) => this.#hub.push('waits', w),
        -1,
      ),
      EventsOnMultiple(
        CHANNELS.try,
        (d: TryDelta) => this.#hub.push('tries', d),
        -1,
      ),
      EventsOnMultiple(
        CHANNELS.dropped,
        (v: unknown) => {
          if (!Array.isArray(v)) return;
          const paths = v.filter((p): p is string => typeof p === 'string');
          for (const fn of this.#dropped) fn(paths);
        },
        -1,
      ),
      EventsOnMultiple(
        CHANNELS.delta,
        (d: Delta) => this.#hub.push('deltas', d),
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
    return call('SystemPrompt', () => app().SystemPrompt(template, workspace));
  }

  async listSessions(): Promise<Summary[]> {
    return list(await call('Sessions', () => app().Sessions()));
  }

  async openSession(id: string): Promise<SessionSnapshot> {
    const r = await call('Open', () => app().Open(id));
    return { summary: r.summary, events: parseEvents(r.events) };
  }

  async do(cmd: Command): Promise<Outcome> {
    // Go's JSON of the command (empty fields left out), as a recording keeps it.
    const r = await call(cmd.do, () => app().Do(commandJSON(cmd)));
    if (cmd.do === 'delete') this.#hub.forget(cmd.session);
    return r;
  }

  async search(query: string, filter: SearchFilter, limit: number): Promise<SearchResults> {
    return searchResultsOf(await call('Search', () => app().Search(query, filter, limit)));
  }

  async searchStatus(): Promise<SearchStatus> {
    return call('SearchStatus', () => app().SearchStatus());
  }

  async renameSession(id: string, title: string): Promise<Summary> {
    return call('RenameSession', () => app().RenameSession(id, title));
  }

  async pinSession(id: string, on: boolean): Promise<Summary> {
    return call('PinSession', () => app().PinSession(id, on));
  }

  async duplicateSession(id: string): Promise<Summary> {
    return call('DuplicateSession', () => app().DuplicateSession(id));
  }

  async previewFork(id: string, at: number): Promise<ForkPreview> {
    const r = await call('PreviewFork', () => app().PreviewFork(id, at));
    return { ...r, changed: r?.changed ?? [], commands: r?.commands ?? [] };
  }

  async forkSession(f: Fork): Promise<Forked> {
    return forked(await call('ForkSession', () => app().ForkSession(f)));
  }

  async runFromHere(f: Fork): Promise<Forked> {
    return forked(await call('RunFromHere', () => app().RunFromHere(f)));
  }

  async adoptTry(a: Adopt): Promise<Forked> {
    return forked(await call('AdoptTry', () => app().AdoptTry(a)));
  }

  async deleteSessionLater(id: string): Promise<PendingDelete> {
    return call('DeleteSessionLater', () => app().DeleteSessionLater(id));
  }

  async undoDelete(id: string): Promise<Summary> {
    return call('UndoDelete', () => app().UndoDelete(id));
  }

  async compareSessions(a: string, b: string): Promise<Comparison> {
    return comparisonOf(await call('CompareSessions', () => app().CompareSessions(a, b)));
  }

  async eventPayload(sessionId: string, seq: number): Promise<string> {
    return call('EventPayload', () => app().EventPayload(sessionId, seq));
  }

  async shareSession(id: string): Promise<string> {
    return call('ShareSession', () => app().ShareSession(id));
  }

  async pickFolder(title: string): Promise<string> {
    return call('PickFolder', () => app().PickFolder(title));
  }

  async importFile(path: string, how: string): Promise<ImportResult> {
    return call('ImportFile', () => app().ImportFile(path, how));
  }

  async importText(text: string, how: string): Promise<ImportResult> {
    return call('ImportText', () => app().ImportText(text, how));
  }

  async pickImportFile(title: string): Promise<string> {
    return call('PickImportFile', () => app().PickImportFile(title));
  }

  onFilesDropped(fn: (paths: string[]) => void): Unsubscribe {
    this.#dropped.add(fn);
    return () => this.#dropped.delete(fn);
  }

  async rawRequest(sessionId: string, seq: number): Promise<string> {
    return call('RawRequest', () => app().RawRequest(sessionId, seq));
  }

  async renderedPrompt(sessionId: string, seq: number): Promise<RenderedPrompt> {
    return call('RenderedPrompt', () => app().RenderedPrompt(sessionId, seq));
  }

  async checkModel(check: ModelCheck): Promise<ReadinessReport> {
    return call('CheckModel', () => app().CheckModel(check));
  }

  async getSettings(): Promise<Settings> {
    return settingsOf(await call('Settings', () => app().Settings()));
  }

  async saveSettings(s: Settings): Promise<void> {
    await call('SaveSettings', () => app().SaveSettings(s));
  }

  async checkHost(host: string): Promise<HostCheck> {
    return call('CheckHost', () => app().CheckHost(host));
  }

  async ruleLimits(rule: Rule): Promise<RuleLimits> {
    return call('RuleLimits', () => app().RuleLimits(rule));
  }

  async checkRule(rule: Rule): Promise<RuleCheck> {
    return call('CheckRule', () => app().CheckRule(rule));
  }

  async tools(): Promise<ToolInfo[]> {
    return list(await call('Tools', () => app().Tools()));
  }

  async workspace(dir: string): Promise<WorkspaceInfo> {
    return call('Workspace', () => app().Workspace(dir));
  }

  async setWorkspace(dir: string, change: WorkspaceChange): Promise<WorkspaceInfo> {
    return call('SetWorkspace', () => app().SetWorkspace(dir, change));
  }

  async protections(): Promise<Protections> {
    return call('Protections', () => app().Protections());
  }

  async tryHooks(sessionId: string, hooks: Hook[]): Promise<Tried[]> {
    return list(await call('TryHooks', () => app().TryHooks(sessionId, hooks)));
  }

  async mcpReach(dir: string): Promise<MCPReach[]> {
    return list(await call('MCPReach', () => app().MCPReach(dir)));
  }

  async mcpServers(dir: string): Promise<MCPServerInfo[]> {
    return list(await call('MCPServers', () => app().MCPServers(dir)));
  }

  async addMCPServers(pasted: string): Promise<string[]> {
    return list(await call('AddMCPServers', () => app().AddMCPServers(pasted)));
  }

  removeMCPServer(name: string): Promise<void> {
    return call('RemoveMCPServer', () => app().RemoveMCPServer(name));
  }

  mcpLog(name: string): Promise<string> {
    return call('MCPLog', () => app().MCPLog(name));
  }

  startOllama(): Promise<StatusInfo> {
    return call('StartOllama', () => app().StartOllama());
  }

  tryRequest(t: Try): Promise<TryResult> {
    return call('TryRequest', () => app().TryRequest(t));
  }

  async cancelTry(id: string): Promise<boolean> {
    return call('CancelTry', () => app().CancelTry(id));
  }

  onTry(fn: Listener<TryDelta>): Unsubscribe {
    return this.#hub.on('tries', fn);
  }

  async pullModel(name: string): Promise<void> {
    await call('PullModel', () => app().PullModel(name));
  }

  async cancelPull(name: string): Promise<boolean> {
    return call('CancelPull', () => app().CancelPull(name));
  }

  async deleteModel(name: string): Promise<void> {
    await call('DeleteModel', () => app().DeleteModel(name));
  }

  onPull(fn: Listener<PullProgress>): Unsubscribe {
    return this.#hub.on('pulls', fn);
  }

  onFilesWaiting(fn: Listener<FilesWaiting>): Unsubscribe {
    return this.#hub.on('waits', fn);
  }

  async stopWaiting(session: string): Promise<boolean> {
    return call('StopWaiting', () => app().StopWaiting(session));
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

/** A fork as Go made it: Go sends the lists it has none of as null; the window reads them as empty. */
function forked(r: Forked): Forked {
  const files = r.files;
  return {
    ...r,
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
