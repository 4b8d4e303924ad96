// A Bridge that plays a recording of the Go engine (recording.ts) into the
// real state classes and components. It sends the UI what the engine sent,
// and at each command step waits for the UI to send that command: the
// method and its arguments must be the recorded ones. Anything else is a
// problem that fails the spec (check()), and a command the UI never sends
// leaves the replay waiting (expectDone()). Reads the UI may make at any
// time (sessions, settings, a workspace's state, raw requests) are answered
// from what the recording holds up to where it is.
import { BridgeError, type Bridge, type Listener, type Unsubscribe } from '../bridge/types';
import { EventHub, type Scheduler } from '../bridge/hub';
import {
  type Comparison,
  commandJSON,
  isRecord,
  parseEvent,
  restoreResultOf,
  ruleLimitsOf,
  settingsOf,
  workspaceInfoOf,
  type Command,
  type Connection,
  type ModelCheck,
  type ReadinessReport,
  type RenderedPrompt,
  type Delta,
  type HostCheck,
  type JsonValue,
  type ModelInfo,
  type Outcome,
  type PullProgress,
  type Try,
  type TryDelta,
  type TryResult,
  type Protections,
  type Rule,
  type RuleLimits,
  type PendingDelete,
  type Fork,
  type Forked,
  type ForkPreview,
  type ImportResult,
  type SearchFilter,
  type SearchResults,
  type SearchStatus,
  type SessionSnapshot,
  type Settings,
  type SettingsWire,
  type StatusInfo,
  type Summary,
  type SystemPromptView,
  type TraceEvent,
  type WorkspaceChange,
  type WorkspaceInfo,
  type RuleCheck,
  type ToolInfo,
} from '../types';
import { summaryAfter } from '../timeline/standing';
import { builtinTools, models as machineModels, reachableStatus, recordedRuleCheck, sandboxedProtections } from './machine';
import { commandOf, describe, sameJson, stepKind, type RecordedCall, type Recording, type Step } from './recording';
import type { ReplayCall, ReplayOptions } from './options';

export type { ReplayCall, ReplayOptions } from './options';
import { playPull, type RecordedPull } from './pulls';
import { searchPlayed } from './search';

/** Names replay errors in the UI and marks replay code in a bundle (scripts/check-bundle.mjs). */
export const REPLAY_MARK = 'loupe:replay';

export class ReplayBridge implements Bridge {
  readonly recording: Recording;
  /** Every call the UI made, commands and reads. */
  readonly calls: ReplayCall[] = [];
  /** What went against the recording: a spec fails when this is not empty. */
  readonly problems: string[] = [];
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

  readonly #hub: EventHub;
  readonly #steps: Step[];
  readonly #paceMs: number;
  readonly #lenient: boolean;
  /** The next step to play. */
  #pos = 0;
  #summary: Summary | null;
  #events: TraceEvent[] = [];
  #settings: Settings;
  #rejects = new Map<string, string[]>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;

  constructor(recording: Recording, opts: ReplayOptions = {}) {
    this.recording = recording;
    this.#steps = recording.steps;
    this.#hub = new EventHub(opts.schedule ?? ((f) => queueMicrotask(f)));
    this.#paceMs = opts.paceMs ?? 0;
    this.#lenient = opts.lenient ?? false;
    this.statusInfo = { ...reachableStatus, ...opts.status };
    this.models = opts.models ?? machineModels;
    this.protectionsInfo = opts.protections ?? sandboxedProtections();
    this.pick = opts.pick ?? '';
    this.pulls = opts.pulls ?? {};
    this.pullStepMs = opts.pullStepMs ?? 0;
    this.start = opts.start ?? {};
    // What a recording holds Go wrote from the types go.ts declares.
    this.#summary = recording.session ? (recording.session as unknown as Summary) : null;
    this.#settings = settingsOf(recording.settings as unknown as SettingsWire);
    if (opts.from !== undefined) {
      const at = this.#steps.findIndex((s) => s.mark === opts.from);
      if (at < 0) throw new Error(`${REPLAY_MARK}: ${recording.scenario} has no mark "${opts.from}"`);
      // History: what happened before is stored, not streamed.
      while (this.#pos < at) {
        const s = this.#steps[this.#pos++]!;
        if (s.command) this.#took(s.command, s.command.args);
        else this.#apply(s, false);
      }
    }
    this.#play();
  }

  // --- for specs ---------------------------------------------------------------

  /** Fails when the UI sent a command the recording does not have next. */
  check(): void {
    if (this.problems.length) throw new Error(`${REPLAY_MARK}: ${this.recording.scenario}: ${this.problems.join('; ')}`);
  }

  /** The step the replay waits at ("" at the end). */
  get waitingFor(): string {
    const s = this.#steps[this.#pos];
    if (!s) return '';
    if (s.command) return `${s.command.method}(${s.command.args.map((a) => JSON.stringify(a)).join(', ')})`;
    return stepKind(s);
  }

  /** Fails unless every recorded command was sent, and nothing else (use inside waitFor). */
  expectDone(): void {
    this.check();
    this.#playNow();
    if (this.#pos < this.#steps.length) throw new Error(`${REPLAY_MARK}: ${this.recording.scenario} still waits for ${this.waitingFor}`);
  }

  /** Fails unless the replay waits for this command next, by method or by what it does ("step"…) (use inside waitFor). */
  expectWaitingFor(method: string): void {
    this.check();
    this.#playNow();
    const c = this.#steps[this.#pos]?.command;
    const named = c && (c.method === method || commandOf(c.method, c.args)?.['do'] === method);
    if (!named) throw new Error(`${REPLAY_MARK}: waits for ${this.waitingFor || 'nothing'}, not ${method}`);
  }

  /** The recorded outside change happens now (a file edited by hand). */
  outside(): void {
    this.#playNow();
    const s = this.#steps[this.#pos];
    if (s?.outside === undefined) throw new Error(`${REPLAY_MARK}: waits for ${this.waitingFor || 'nothing'}, not an outside change`);
    this.#pos++;
    this.#play();
  }

  /** The next call of method fails with message, without using up the recording (for the UI's error paths). */
  reject(method: string, message: string): void {
    this.#rejects.set(method, [...(this.#rejects.get(method) ?? []), message]);
  }

  /** The events played so far. */
  get events(): readonly TraceEvent[] {
    return this.#events;
  }

  get summary(): Summary | null {
    return this.#summary;
  }

  callsOf(method: string): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  /** The commands the UI sent (App.Do) that do what is named ("step"…), in order. */
  commandsOf(what: string): Record<string, unknown>[] {
    return this.calls.map((c) => commandOf(c.method, c.args)).filter((c): c is Record<string, unknown> => c?.['do'] === what);
  }

  /** Delivers queued batches now. */
  flush(): void {
    this.#hub.flush();
  }

  // --- playing -----------------------------------------------------------------

  /** Applies one step to the state; live, it also goes to the listeners. */
  #apply(s: Step, live: boolean): void {
    if (s.event !== undefined) {
      const e = parseEvent(s.event);
      if (!e) {
        this.problems.push(`step ${this.#pos - 1} is not an event the UI can parse`);
        return;
      }
      this.#events.push(e);
      // The session list learns how a session stands from its events, as
      // the window does.
      if (this.#summary) this.#summary = summaryAfter(this.#summary, e);
      if (live) this.#hub.push('events', e);
    } else if (s.delta !== undefined) {
      if (live) this.#hub.push('deltas', s.delta as unknown as Delta);
    }
  }

  /** Plays until the next step the UI or the spec must take (a command, an outside change) or the end. */
  #play(): void {
    if (this.#paceMs > 0) {
      this.#schedulePaced();
      return;
    }
    this.#playNow();
  }

  #playNow(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    for (let s = this.#steps[this.#pos]; s && !s.command && s.outside === undefined; s = this.#steps[this.#pos]) {
      this.#pos++;
      this.#apply(s, true);
    }
  }

  #schedulePaced(): void {
    if (this.#timer || this.#closed) return;
    const s = this.#steps[this.#pos];
    if (!s || s.command || s.outside !== undefined) return;
    // Deltas stream faster than events commit.
    const wait = s.delta !== undefined ? this.#paceMs / 6 : s.event !== undefined ? this.#paceMs : 0;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#pos++;
      this.#apply(s, true);
      this.#schedulePaced();
    }, wait);
  }

  /** A command the recording took: what it changes of the replay's own state. */
  #took(c: RecordedCall, args: unknown[]): void {
    if (c.error !== undefined) return;
    if (c.method === 'saveSettings') this.#settings = settingsOf(args[0] as SettingsWire);
    const cmd = commandOf(c.method, args);
    if (!cmd) return;
    if (isRecord(c.result) && isRecord(c.result['summary'])) this.#summary = c.result['summary'] as unknown as Summary;
    if (cmd['do'] === 'delete') {
      this.#summary = null;
      this.#events = [];
      this.#hub.forget(String(cmd['session']));
    }
  }

  /** The UI sends a command: it must be the one the recording has next. */
  async #command(method: string, args: unknown[]): Promise<JsonValue | undefined> {
    this.calls.push({ method, args });
    const rejected = this.#rejects.get(method)?.shift();
    if (rejected !== undefined) throw new BridgeError(rejected, method);
    // What the engine sent before this point has arrived by now.
    this.#playNow();
    const s = this.#steps[this.#pos];
    const c = s?.command;
    const sent = `${method}(${args.map((a) => JSON.stringify(a)).join(', ')})`;
    const sentCmd = commandOf(method, args);
    const anyText = this.#lenient && sentCmd?.['do'] === 'send' && c != null && commandOf(c.method, c.args)?.['do'] === 'send';
    if (!c || c.method !== method || (!anyText && !sameJson(args, c.args))) {
      const want = s ? (c ? `${c.method}(${c.args.map((a) => JSON.stringify(a)).join(', ')})` : stepKind(s)) : 'nothing more';
      const problem = `the UI sent ${sent} where the recording has ${want}`;
      if (!this.#lenient) this.problems.push(problem);
      throw new BridgeError(this.#lenient ? `This demo plays a recorded session: ${c ? `next it does ${describe(c)}` : 'it has nothing more to show'}.` : `${REPLAY_MARK}: ${problem}`, String(sentCmd?.['do'] ?? method));
    }
    this.#pos++;
    this.#took(c, args);
    // The engine answers once the call has returned, as it does in the
    // window: a bound method returns before its run gets far.
    setTimeout(() => this.#play(), 0);
    if (c.error !== undefined) throw new BridgeError(c.error, String(sentCmd?.['do'] ?? method));
    return c.result;
  }

  /**
   * A read answered from the recording: the last answer recorded before the
   * step the replay waits at, else the first one after it.
   */
  #query(method: string, args: unknown[]): JsonValue | undefined {
    this.calls.push({ method, args });
    const rejected = this.#rejects.get(method)?.shift();
    if (rejected !== undefined) throw new BridgeError(rejected, method);
    this.#playNow();
    const found = this.#recorded(method, args);
    if (!found) throw new BridgeError(`${REPLAY_MARK}: ${this.recording.scenario} has no answer to ${method}`, method);
    if (found.error !== undefined) throw new BridgeError(found.error, method);
    return found.result;
  }

  /** The recorded answer to a read, as #query picks it (with past, only one played already); undefined when there is none. */
  #recorded(method: string, args: unknown[], past = false): RecordedCall | undefined {
    let found: RecordedCall | undefined;
    for (let i = 0; i < (past ? this.#pos : this.#steps.length); i++) {
      const q = this.#steps[i]!.query;
      if (!q || q.method !== method || !sameJson(args, q.args)) continue;
      if (i >= this.#pos && found) break;
      found = q;
      if (i >= this.#pos) break;
    }
    return found;
  }

  // --- the Bridge ------------------------------------------------------------------

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
      if (this.#lenient) return Promise.reject(new BridgeError(`This demo plays recorded pulls only${names.length ? `: try ${names.join(', ')}` : ''}.`, 'PullModel'));
      this.problems.push(`the UI pulled ${name}, which no recorded pull is of`);
      return Promise.reject(new BridgeError(`${REPLAY_MARK}: no recorded pull of ${name}`, 'PullModel'));
    }
    const pull = playPull(rec, this.pullStepMs, (p) => this.#hub.push('pulls', p));
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
    const rejected = this.#rejects.get('deleteModel')?.shift();
    if (rejected !== undefined) throw new BridgeError(rejected, 'DeleteModel');
    if (!this.models.some((m) => m.name === name)) this.problems.push(`the UI deleted ${name}, which is not installed`);
    this.models = this.models.filter((m) => m.name !== name);
  }

  onPull(fn: Listener<PullProgress>): Unsubscribe {
    return this.#hub.on('pulls', fn);
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
    return this.#hub.on('tries', fn);
  }

  async listModels(): Promise<ModelInfo[]> {
    this.calls.push({ method: 'listModels', args: [] });
    return this.statusInfo.reachable ? [...this.models] : [];
  }

  /** A named host's models as the engine listed them when recorded; else what hostModels gives it, else none. */
  async listModelsOn(host: string): Promise<ModelInfo[]> {
    if (host === '') return this.listModels();
    if (this.#recorded('listModelsOn', [host])) {
      const r = this.#query('listModelsOn', [host]);
      return Array.isArray(r) ? (r as unknown as ModelInfo[]) : [];
    }
    this.calls.push({ method: 'listModelsOn', args: [host] });
    const rejected = this.#rejects.get('listModelsOn')?.shift();
    if (rejected !== undefined) throw new BridgeError(rejected, 'listModelsOn');
    return [...(this.hostModels[host] ?? [])];
  }

  async connections(): Promise<Connection[]> {
    this.calls.push({ method: 'connections', args: [] });
    return this.connectionsInfo.map((c) => ({ ...c }));
  }

  /** The engine's answer when the recording has one; else systemPromptInfo, or the template as it is. */
  async systemPrompt(template: string, workspace: string): Promise<SystemPromptView> {
    const recorded = this.#recorded('systemPrompt', [template, workspace]);
    if (recorded) return this.#query('systemPrompt', [template, workspace]) as unknown as SystemPromptView;
    this.calls.push({ method: 'systemPrompt', args: [template, workspace] });
    return structuredClone(this.systemPromptInfo ?? { text: template });
  }

  async listSessions(): Promise<Summary[]> {
    this.calls.push({ method: 'listSessions', args: [] });
    return this.#summary && !this.#deleting ? [{ ...this.#summary }] : [];
  }

  /** A delete waiting for its time (deleteSessionLater). */
  #deleting: ReturnType<typeof setTimeout> | null = null;

  /** Search over the events played so far, as searchPlayed looks (none while the session's delete waits). */
  async search(query: string, filter: SearchFilter, limit: number): Promise<SearchResults> {
    this.calls.push({ method: 'search', args: [query, filter, limit] });
    return searchPlayed(query, filter, limit, this.#events, this.#deleting ? null : this.#summary);
  }

  async searchStatus(): Promise<SearchStatus> {
    this.calls.push({ method: 'searchStatus', args: [] });
    return { indexed: this.#events.length, total: this.#events.length };
  }

  #ownSummary(id: string, method: string): Summary {
    if (!this.#summary || this.#summary.id !== id) throw new BridgeError(`${REPLAY_MARK}: no session ${id}`, method);
    return this.#summary;
  }

  async renameSession(id: string, title: string): Promise<Summary> {
    this.calls.push({ method: 'renameSession', args: [id, title] });
    const s = this.#ownSummary(id, 'renameSession');
    const t = title.split(/\s+/).filter(Boolean).join(' ');
    if (!t) throw new BridgeError('type a name for the session (Esc keeps the old one)', 'renameSession');
    this.#summary = { ...s, title: t };
    return { ...this.#summary };
  }

  async pinSession(id: string, on: boolean): Promise<Summary> {
    this.calls.push({ method: 'pinSession', args: [id, on] });
    this.#summary = { ...this.#ownSummary(id, 'pinSession'), pinned: on };
    return { ...this.#summary };
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

  async deleteSessionLater(id: string): Promise<PendingDelete> {
    this.calls.push({ method: 'deleteSessionLater', args: [id] });
    this.#ownSummary(id, 'deleteSessionLater');
    const ms = 6000;
    if (this.#deleting) clearTimeout(this.#deleting);
    this.#deleting = setTimeout(() => {
      this.#deleting = null;
      this.#summary = null;
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
    this.#playNow();
    if (!this.#summary || this.#summary.id !== id) throw new BridgeError(`${REPLAY_MARK}: no session ${id}`, 'openSession');
    const recorded = this.#recorded('openSession', [id], true);
    if (recorded && isRecord(recorded.result)) {
      const r = recorded.result;
      return {
        summary: r['summary'] as unknown as Summary,
        events: (Array.isArray(r['events']) ? r['events'] : []).map(parseEvent).filter((e): e is TraceEvent => e != null),
      };
    }
    return { summary: { ...this.#summary }, events: [...this.#events] };
  }

  /** The engine's answer when recorded; else the payload of the event as it streamed (whole). */
  async eventPayload(sessionId: string, seq: number): Promise<string> {
    this.calls.push({ method: 'eventPayload', args: [sessionId, seq] });
    const recorded = this.#recorded('eventPayload', [sessionId, seq]);
    if (recorded?.error !== undefined) throw new BridgeError(recorded.error, 'eventPayload');
    if (typeof recorded?.result === 'string') return recorded.result;
    const e = this.#events.find((x) => x.session_id === sessionId && x.seq === seq);
    if (!e) throw new BridgeError(`${REPLAY_MARK}: no event ${seq} in ${this.recording.scenario}`, 'eventPayload');
    return JSON.stringify(e.payload);
  }

  async do(cmd: Command): Promise<Outcome> {
    return ((await this.#command('do', [commandJSON(cmd)])) ?? {}) as unknown as Outcome;
  }

  async pickFolder(title: string): Promise<string> {
    this.calls.push({ method: 'pickFolder', args: [title] });
    return this.pick;
  }

  async rawRequest(sessionId: string, seq: number): Promise<string> {
    this.calls.push({ method: 'rawRequest', args: [sessionId, seq] });
    const body = this.recording.raw_requests[String(seq)];
    if (body === undefined || !this.#events.some((e) => e.seq === seq && e.kind === 'model_request')) {
      throw new BridgeError(`${REPLAY_MARK}: no request ${seq} in ${this.recording.scenario}`, 'rawRequest');
    }
    return body;
  }

  async renderedPrompt(sessionId: string, seq: number): Promise<RenderedPrompt> {
    return this.#query('renderedPrompt', [sessionId, seq]) as unknown as RenderedPrompt;
  }

  async checkModel(check: ModelCheck): Promise<ReadinessReport> {
    return this.#query('checkModel', [check]) as unknown as ReadinessReport;
  }

  async getSettings(): Promise<Settings> {
    this.calls.push({ method: 'getSettings', args: [] });
    return structuredClone(this.#settings);
  }

  async saveSettings(s: Settings): Promise<void> {
    await this.#command('saveSettings', [s]);
  }

  /** The recordings have no second Ollama: any host answers as the replay's status does. */
  async checkHost(host: string): Promise<HostCheck> {
    this.calls.push({ method: 'checkHost', args: [host] });
    const rejected = this.#rejects.get('checkHost')?.shift();
    if (rejected !== undefined) throw new BridgeError(rejected, 'checkHost');
    const s = this.statusInfo;
    return { host: host || s.ollama_host, reachable: s.reachable, version: s.version, message: s.message };
  }

  async ruleLimits(rule: Rule): Promise<RuleLimits> {
    return ruleLimitsOf(this.#query('ruleLimits', [rule]));
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

  async workspace(dir: string): Promise<WorkspaceInfo> {
    return workspaceInfoOf(this.#query('workspace', [dir]));
  }

  async setWorkspace(dir: string, change: WorkspaceChange): Promise<WorkspaceInfo> {
    return workspaceInfoOf(await this.#command('setWorkspace', [dir, { ...change }]));
  }

  async protections(): Promise<Protections> {
    this.calls.push({ method: 'protections', args: [] });
    return structuredClone(this.protectionsInfo);
  }

  openURL(url: string): void {
    this.calls.push({ method: 'openURL', args: [url] });
    this.opened.push(url);
  }

  close(): void {
    this.#closed = true;
    for (const cancel of [...this.#pulling.values()]) cancel();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  onEvents(fn: Listener<TraceEvent>): Unsubscribe {
    return this.#hub.on('events', fn);
  }

  onDeltas(fn: Listener<Delta>): Unsubscribe {
    return this.#hub.on('deltas', fn);
  }
}
