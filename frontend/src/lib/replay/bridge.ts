// A Bridge that plays a recording of the Go engine into the real state
// classes and components (the playing is RecordingPlayer's, player.ts):
// what the engine answered comes from the recording, as Go wrote it (the
// types go.ts declares); what the machine around it answers (Ollama's
// state, models, pulls, protections, the folder picker) comes from the
// options; what a recording of one session cannot do (compare, fork,
// try) is refused, saying so.
import { BridgeError, type Bridge, type Listener, type Unsubscribe } from '../bridge/types';
import {
  commandJSON,
  list,
  parseEvent,
  type Comparison,
  type Command,
  type Hook,
  type Tried,
  type Connection,
  type ModelCheck,
  type ReadinessReport,
  type RenderedPrompt,
  type HostCheck,
  type ModelInfo,
  type Outcome,
  type PullProgress,
  type FilesWaiting,
  type Try,
  type TryDelta,
  type TryResult,
  type Protections,
  type Rule,
  type RuleLimits,
  type PendingDelete,
  type Adopt,
  type Fork,
  type Forked,
  type ForkPreview,
  type ImportResult,
  type SearchFilter,
  type SearchResults,
  type SearchStatus,
  type SessionDetail,
  type SessionSnapshot,
  type Settings,
  type StatusInfo,
  type Summary,
  type SystemPromptView,
  type TraceEvent,
  type WorkspaceChange,
  type WorkspaceInfo,
  type RuleCheck,
  type ToolInfo,
} from '../types';
import { builtinTools, models as machineModels, reachableStatus, recordedRuleCheck, sandboxedProtections } from './machine';
import type { ReplayOptions } from './options';
import { RecordingPlayer, REPLAY_MARK } from './player';
import { playPull, type RecordedPull } from './pulls';
import type { Recording } from './recording';
import { searchPlayed } from './search';

export type { ReplayCall, ReplayOptions } from './options';
export { REPLAY_MARK } from './player';

export class ReplayBridge extends RecordingPlayer implements Bridge {
  /** Links the UI opened. */
  readonly opened: string[] = [];
  statusInfo: StatusInfo;
  models: ModelInfo[];
  protectionsInfo: Protections;
  pick: string;
  pulls: Record<string, RecordedPull>;
  pullStepMs: number;
  start: { status?: Partial<StatusInfo>; error?: string };
  /** The pulls under way, by name: how each is cancelled. */
  readonly #pulling = new Map<string, () => void>();
  /** What listModelsOn answers for each named host. */
  hostModels: Record<string, ModelInfo[]> = {};
  /** What connections answers. */
  connectionsInfo: Connection[] = [];
  /** What systemPrompt answers when the recording has no answer of the engine's. */
  systemPromptInfo: SystemPromptView | null = null;

  constructor(recording: Recording, opts: ReplayOptions = {}) {
    super(recording, opts);
    this.statusInfo = { ...reachableStatus, ...opts.status };
    this.models = opts.models ?? machineModels;
    this.protectionsInfo = opts.protections ?? sandboxedProtections();
    this.pick = opts.pick ?? '';
    this.pulls = opts.pulls ?? {};
    this.pullStepMs = opts.pullStepMs ?? 0;
    this.start = opts.start ?? {};
  }

  async status(): Promise<StatusInfo> {
    this.calls.push({ method: 'status', args: [] });
    return { ...this.statusInfo };
  }

  async startOllama(): Promise<StatusInfo> {
    this.calls.push({ method: 'startOllama', args: [] });
    if (this.start.error !== undefined) throw new BridgeError(this.start.error, 'StartOllama');
    this.statusInfo = { ...this.statusInfo, ...this.start.status };
    return { ...this.statusInfo };
  }

  /** Plays the recorded pull of name on onPull, then installs its model or rejects with its error. */
  pullModel(name: string): Promise<void> {
    this.calls.push({ method: 'pullModel', args: [name] });
    const rec = this.pulls[name];
    if (!rec) {
      const names = Object.keys(this.pulls);
      if (this.lenient) return Promise.reject(new BridgeError(`This demo plays recorded pulls only${names.length ? `: try ${names.join(', ')}` : ''}.`, 'PullModel'));
      this.problems.push(`the UI pulled ${name}, which no recorded pull is of`);
      return Promise.reject(new BridgeError(`${REPLAY_MARK}: no recorded pull of ${name}`, 'PullModel'));
    }
    const pull = playPull(rec, this.pullStepMs, (p) => this.hub.push('pulls', p));
    this.#pulling.set(name, pull.cancel);
    return pull.done.then(
      (model) => {
        if (this.#pulling.get(name) === pull.cancel) this.#pulling.delete(name);
        if (model) this.models = [model, ...this.models.filter((m) => m.name !== model.name)];
      },
      (err: unknown) => {
        if (this.#pulling.get(name) === pull.cancel) this.#pulling.delete(name);
        throw err;
      },
    );
  }

  async cancelPull(name: string): Promise<boolean> {
    this.calls.push({ method: 'cancelPull', args: [name] });
    const cancel = this.#pulling.get(name);
    cancel?.();
    return cancel !== undefined;
  }

  async deleteModel(name: string): Promise<void> {
    this.calls.push({ method: 'deleteModel', args: [name] });
    this.refuseIfRejected('deleteModel', 'DeleteModel');
    if (!this.models.some((m) => m.name === name)) this.problems.push(`the UI deleted ${name}, which is not installed`);
    this.models = this.models.filter((m) => m.name !== name);
  }

  onPull(fn: Listener<PullProgress>): Unsubscribe {
    return this.hub.on('pulls', fn);
  }

  /** Waits a spec plays (filesWait): the recordings' Undos and Restores waited for nothing. */
  onFilesWaiting(fn: Listener<FilesWaiting>): Unsubscribe {
    return this.hub.on('waits', fn);
  }

  #waiting = new Map<string, number>();

  /** A wait the spec plays: a session's Undo waits for commands of another session in its folder. */
  filesWait(w: FilesWaiting): void {
    this.#waiting.set(w.session, w.commands);
    this.hub.push('waits', w);
  }

  async stopWaiting(session: string): Promise<boolean> {
    this.calls.push({ method: 'stopWaiting', args: [session] });
    return (this.#waiting.get(session) ?? 0) > 0;
  }

  /** A recording holds no second answer: trying a request is refused, saying so. */
  tryRequest(t: Try): Promise<TryResult> {
    this.calls.push({ method: 'tryRequest', args: [t] });
    return Promise.reject(new BridgeError('This replay plays recorded sessions only: sending a request again needs Ollama and the app.', 'TryRequest'));
  }

  async cancelTry(id: string): Promise<boolean> {
    this.calls.push({ method: 'cancelTry', args: [id] });
    return false;
  }

  onTry(fn: Listener<TryDelta>): Unsubscribe {
    return this.hub.on('tries', fn);
  }

  async listModels(): Promise<ModelInfo[]> {
    this.calls.push({ method: 'listModels', args: [] });
    return this.statusInfo.reachable ? [...this.models] : [];
  }

  /** A named host's models as the engine listed them when recorded; else what hostModels gives it, else none. */
  async listModelsOn(host: string): Promise<ModelInfo[]> {
    if (host === '') return this.listModels();
    if (this.recorded('listModelsOn', [host])) {
      return list(this.query('listModelsOn', [host]) as ModelInfo[] | null);
    }
    this.calls.push({ method: 'listModelsOn', args: [host] });
    this.refuseIfRejected('listModelsOn');
    return [...(this.hostModels[host] ?? [])];
  }

  async connections(): Promise<Connection[]> {
    this.calls.push({ method: 'connections', args: [] });
    return this.connectionsInfo.map((c) => ({ ...c }));
  }

  /** The engine's answer when the recording has one; else systemPromptInfo, or the template as it is. */
  async systemPrompt(template: string, workspace: string): Promise<SystemPromptView> {
    const recorded = this.recorded('systemPrompt', [template, workspace]);
    if (recorded) return this.query('systemPrompt', [template, workspace]) as unknown as SystemPromptView;
    this.calls.push({ method: 'systemPrompt', args: [template, workspace] });
    return structuredClone(this.systemPromptInfo ?? { text: template });
  }

  async listSessions(): Promise<Summary[]> {
    this.calls.push({ method: 'listSessions', args: [] });
    return this.current && !this.#deleting ? [{ ...this.current }] : [];
  }

  /** A delete waiting for its time (deleteSessionLater). */
  #deleting: ReturnType<typeof setTimeout> | null = null;

  /** Search over the events played so far, as searchPlayed looks (none while the session's delete waits). */
  async search(query: string, filter: SearchFilter, limit: number): Promise<SearchResults> {
    this.calls.push({ method: 'search', args: [query, filter, limit] });
    return searchPlayed(query, filter, limit, this.played, this.#deleting ? null : this.current);
  }

  async searchStatus(): Promise<SearchStatus> {
    this.calls.push({ method: 'searchStatus', args: [] });
    return { indexed: this.played.length, total: this.played.length };
  }

  #ownSummary(id: string, method: string): Summary {
    if (!this.current || this.current.id !== id) throw new BridgeError(`${REPLAY_MARK}: no session ${id}`, method);
    return this.current;
  }

  async renameSession(id: string, title: string): Promise<Summary> {
    this.calls.push({ method: 'renameSession', args: [id, title] });
    const s = this.#ownSummary(id, 'renameSession');
    const t = title.split(/\s+/).filter(Boolean).join(' ');
    if (!t) throw new BridgeError('type a name for the session (Esc keeps the old one)', 'renameSession');
    this.current = { ...s, title: t };
    return { ...this.current };
  }

  async pinSession(id: string, on: boolean): Promise<Summary> {
    this.calls.push({ method: 'pinSession', args: [id, on] });
    this.current = { ...this.#ownSummary(id, 'pinSession'), pinned: on };
    return { ...this.current };
  }

  async duplicateSession(id: string): Promise<Summary> {
    this.calls.push({ method: 'duplicateSession', args: [id] });
    this.#ownSummary(id, 'duplicateSession');
    throw new BridgeError('a recorded session cannot be duplicated here: open Loupe to duplicate sessions', 'duplicateSession');
  }

  async previewFork(id: string, at: number): Promise<ForkPreview> {
    this.calls.push({ method: 'previewFork', args: [id, at] });
    const s = this.#ownSummary(id, 'previewFork');
    return { at, workspace: s.workspace, changed: [], commands: [], copy_folder: '', problem: 'a recorded session cannot be forked here: open Loupe to fork sessions' };
  }

  async forkSession(f: Fork): Promise<Forked> {
    this.calls.push({ method: 'forkSession', args: [f] });
    this.#ownSummary(f.session, 'forkSession');
    throw new BridgeError('a recorded session cannot be forked here: open Loupe to fork sessions', 'forkSession');
  }

  async runFromHere(f: Fork): Promise<Forked> {
    this.calls.push({ method: 'runFromHere', args: [f] });
    this.#ownSummary(f.session, 'runFromHere');
    throw new BridgeError('a recorded session cannot be forked here: open Loupe to run it on another model', 'runFromHere');
  }

  async adoptTry(a: Adopt): Promise<Forked> {
    this.calls.push({ method: 'adoptTry', args: [a] });
    throw new BridgeError('This replay plays recorded sessions only: adopting a try needs Ollama and the app.', 'adoptTry');
  }

  async deleteSessionLater(id: string): Promise<PendingDelete> {
    this.calls.push({ method: 'deleteSessionLater', args: [id] });
    this.#ownSummary(id, 'deleteSessionLater');
    const ms = 6000;
    if (this.#deleting) clearTimeout(this.#deleting);
    this.#deleting = setTimeout(() => {
      this.#deleting = null;
      this.current = null;
    }, ms);
    return { session: id, until: new Date(Date.now() + ms).toISOString() };
  }

  async undoDelete(id: string): Promise<Summary> {
    this.calls.push({ method: 'undoDelete', args: [id] });
    if (!this.#deleting) throw new BridgeError('the session is deleted already', 'undoDelete');
    clearTimeout(this.#deleting);
    this.#deleting = null;
    return { ...this.#ownSummary(id, 'undoDelete') };
  }

  async importFile(path: string, how: string): Promise<ImportResult> {
    this.calls.push({ method: 'importFile', args: [path, how] });
    throw new BridgeError('a recording holds one session: open Loupe to import sessions', 'importFile');
  }

  async importText(text: string, how: string): Promise<ImportResult> {
    this.calls.push({ method: 'importText', args: [text.length, how] });
    throw new BridgeError('a recording holds one session: open Loupe to import sessions', 'importText');
  }

  async pickImportFile(title: string): Promise<string> {
    this.calls.push({ method: 'pickImportFile', args: [title] });
    return '';
  }

  onFilesDropped(): Unsubscribe {
    return () => {};
  }

  async compareSessions(a: string, b: string): Promise<Comparison> {
    this.calls.push({ method: 'compareSessions', args: [a, b] });
    throw new BridgeError('a recording holds one session: open Loupe to compare two', 'compareSessions');
  }

  /**
   * The engine's answer when the recording has one from where it has got
   * to (Manager.Open: events as previews; one recorded later would hold
   * events not played yet); else the events played so far, whole, as they
   * streamed.
   */
  async openSession(id: string): Promise<SessionSnapshot> {
    this.calls.push({ method: 'openSession', args: [id] });
    this.playNow();
    if (!this.current || this.current.id !== id) throw new BridgeError(`${REPLAY_MARK}: no session ${id}`, 'openSession');
    const recorded = this.recorded('openSession', [id], true);
    if (recorded?.result) {
      const r = recorded.result as unknown as SessionDetail;
      return { summary: r.summary, events: list(r.events).map(parseEvent).filter((e): e is TraceEvent => e != null) };
    }
    return { summary: { ...this.current }, events: [...this.played] };
  }

  /** The engine's answer when recorded; else the payload of the event as it streamed (whole). */
  async eventPayload(sessionId: string, seq: number): Promise<string> {
    this.calls.push({ method: 'eventPayload', args: [sessionId, seq] });
    const recorded = this.recorded('eventPayload', [sessionId, seq]);
    if (recorded?.error !== undefined) throw new BridgeError(recorded.error, 'eventPayload');
    if (typeof recorded?.result === 'string') return recorded.result;
    const e = this.played.find((x) => x.session_id === sessionId && x.seq === seq);
    if (!e) throw new BridgeError(`${REPLAY_MARK}: no event ${seq} in ${this.recording.scenario}`, 'eventPayload');
    return JSON.stringify(e.payload);
  }

  async do(cmd: Command): Promise<Outcome> {
    return ((await this.command('do', [commandJSON(cmd)])) ?? {}) as unknown as Outcome;
  }

  async pickFolder(title: string): Promise<string> {
    this.calls.push({ method: 'pickFolder', args: [title] });
    return this.pick;
  }

  async rawRequest(sessionId: string, seq: number): Promise<string> {
    this.calls.push({ method: 'rawRequest', args: [sessionId, seq] });
    const body = this.recording.raw_requests[String(seq)];
    if (body === undefined || !this.played.some((e) => e.seq === seq && e.kind === 'model_request')) {
      throw new BridgeError(`${REPLAY_MARK}: no request ${seq} in ${this.recording.scenario}`, 'rawRequest');
    }
    return body;
  }

  async renderedPrompt(sessionId: string, seq: number): Promise<RenderedPrompt> {
    return this.query('renderedPrompt', [sessionId, seq]) as unknown as RenderedPrompt;
  }

  async checkModel(check: ModelCheck): Promise<ReadinessReport> {
    return this.query('checkModel', [check]) as unknown as ReadinessReport;
  }

  async getSettings(): Promise<Settings> {
    this.calls.push({ method: 'getSettings', args: [] });
    return structuredClone(this.settings);
  }

  async saveSettings(s: Settings): Promise<void> {
    await this.command('saveSettings', [s]);
  }

  /** The recordings have no second Ollama: any host answers as the replay's status does. */
  async checkHost(host: string): Promise<HostCheck> {
    this.calls.push({ method: 'checkHost', args: [host] });
    this.refuseIfRejected('checkHost');
    const s = this.statusInfo;
    return { host: host || s.ollama_host, reachable: s.reachable, version: s.version, message: s.message };
  }

  async ruleLimits(rule: Rule): Promise<RuleLimits> {
    return this.query('ruleLimits', [rule]) as unknown as RuleLimits;
  }

  async checkRule(rule: Rule): Promise<RuleCheck> {
    this.calls.push({ method: 'checkRule', args: [rule] });
    const c = recordedRuleCheck(rule);
    if (!c) throw new BridgeError(`${REPLAY_MARK}: Go was not asked about the rule ${JSON.stringify(rule)}: add it to judgedRules in window_judgements_test.go`, 'CheckRule');
    return structuredClone(c);
  }

  async tools(): Promise<ToolInfo[]> {
    this.calls.push({ method: 'tools', args: [] });
    return structuredClone([...builtinTools]);
  }

  async tryHooks(sessionId: string, hooks: Hook[]): Promise<Tried[]> {
    return list(this.query('tryHooks', [sessionId, hooks]) as Tried[] | null);
  }

  async workspace(dir: string): Promise<WorkspaceInfo> {
    return this.query('workspace', [dir]) as unknown as WorkspaceInfo;
  }

  async setWorkspace(dir: string, change: WorkspaceChange): Promise<WorkspaceInfo> {
    return (await this.command('setWorkspace', [dir, { ...change }])) as unknown as WorkspaceInfo;
  }

  async protections(): Promise<Protections> {
    this.calls.push({ method: 'protections', args: [] });
    return structuredClone(this.protectionsInfo);
  }

  openURL(url: string): void {
    this.calls.push({ method: 'openURL', args: [url] });
    this.opened.push(url);
  }

  override close(): void {
    super.close();
    for (const cancel of [...this.#pulling.values()]) cancel();
  }
}
