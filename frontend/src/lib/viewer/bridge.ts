// The bridge of a shared replay: the window's reads answered from the one
// session the page holds, and everything else refused with why. Nothing
// here reaches a network or a backend; the page's policy would stop it.
import { BridgeError, type Bridge, type Listener, type Unsubscribe } from '../bridge/types';
import type {
  Command,
  Comparison,
  Connection,
  ForkPreview,
  Forked,
  HostCheck,
  ImportResult,
  ModelInfo,
  Outcome,
  PendingDelete,
  Protections,
  ReadinessReport,
  RenderedPrompt,
  RuleCheck,
  RuleLimits,
  SearchResults,
  SearchStatus,
  SessionSnapshot,
  Settings,
  StatusInfo,
  Summary,
  SystemPromptView,
  ToolInfo,
  TryResult,
  WorkspaceInfo,
} from '../types';
import { Bodies, type Shared } from './data';

/** What a refused command says: the replay shows, it does nothing. */
export const READ_ONLY = 'This is a shared replay: it shows a session and changes nothing. Open the session in Loupe to do this.';

/** A question only a running Loupe can answer, never settled: nothing in a replay depends on its answer. */
function unanswered<T>(): Promise<T> {
  return new Promise<T>(() => {});
}

export class ViewerBridge implements Bridge {
  readonly #shared: Shared;
  readonly #bodies: Bodies;
  readonly #payloads = new Map<number, unknown>();

  constructor(shared: Shared) {
    this.#shared = shared;
    this.#bodies = new Bodies(shared.raw);
    for (const e of shared.events) this.#payloads.set(e.seq, e.payload);
  }

  get sessionId(): string {
    return this.#shared.summary.id;
  }

  #refuse<T>(command: string): Promise<T> {
    return Promise.reject(new BridgeError(READ_ONLY, command));
  }

  #mine(id: string, command: string): void {
    if (id !== this.#shared.summary.id) throw new BridgeError(`This replay holds one session, not ${id}.`, command);
  }

  status(): Promise<StatusInfo> {
    return Promise.resolve({
      ollama_host: '',
      hosts: { host: '', from: '', flag: '', env: '' },
      reachable: false,
      version: '',
      message: 'A shared replay talks to no Ollama.',
      db_path: '',
      db_error: '',
      local: { on_this_machine: false, installed: false, binary: '', binary_version: '', started_by_loupe: false, log_path: '', install: '', install_url: '', last_error: '' },
    });
  }
  listModels(): Promise<ModelInfo[]> {
    return Promise.resolve([]);
  }
  listModelsOn(): Promise<ModelInfo[]> {
    return Promise.resolve([]);
  }
  connections(): Promise<Connection[]> {
    return Promise.resolve([]);
  }
  systemPrompt(): Promise<SystemPromptView> {
    return this.#refuse('systemPrompt');
  }
  listSessions(): Promise<Summary[]> {
    return Promise.resolve([this.#shared.summary]);
  }
  async openSession(id: string): Promise<SessionSnapshot> {
    this.#mine(id, 'openSession');
    // Every event comes whole: nothing is cut, so nothing is fetched again.
    return { summary: this.#shared.summary, events: this.#shared.events };
  }
  search(query: string): Promise<SearchResults> {
    return Promise.resolve({ query, sessions: [], more: false, order: 'best', partial: false, status: { indexed: 0, total: 0 } });
  }
  searchStatus(): Promise<SearchStatus> {
    return Promise.resolve({ indexed: 0, total: 0 });
  }
  renameSession(): Promise<Summary> {
    return this.#refuse('renameSession');
  }
  pinSession(): Promise<Summary> {
    return this.#refuse('pinSession');
  }
  duplicateSession(): Promise<Summary> {
    return this.#refuse('duplicateSession');
  }
  previewFork(): Promise<ForkPreview> {
    return this.#refuse('previewFork');
  }
  forkSession(): Promise<Forked> {
    return this.#refuse('forkSession');
  }
  runFromHere(): Promise<Forked> {
    return this.#refuse('runFromHere');
  }
  adoptTry(): Promise<Forked> {
    return this.#refuse('adoptTry');
  }
  deleteSessionLater(): Promise<PendingDelete> {
    return this.#refuse('deleteSessionLater');
  }
  undoDelete(): Promise<Summary> {
    return this.#refuse('undoDelete');
  }
  compareSessions(): Promise<Comparison> {
    return this.#refuse('compareSessions');
  }
  async eventPayload(sessionId: string, seq: number): Promise<string> {
    this.#mine(sessionId, 'eventPayload');
    if (!this.#payloads.has(seq)) throw new BridgeError(`This session has no event ${seq}.`, 'eventPayload');
    return JSON.stringify(this.#payloads.get(seq));
  }
  do(cmd: Command): Promise<Outcome> {
    return this.#refuse(cmd.do);
  }
  async rawRequest(sessionId: string, seq: number): Promise<string> {
    this.#mine(sessionId, 'rawRequest');
    try {
      return this.#bodies.body(seq);
    } catch (e) {
      throw new BridgeError(e instanceof Error ? e.message : String(e), 'rawRequest');
    }
  }
  renderedPrompt(): Promise<RenderedPrompt> {
    return Promise.reject(new BridgeError('A shared replay cannot ask Ollama to render a request: open the session in Loupe for that.', 'renderedPrompt'));
  }
  tryRequest(): Promise<TryResult> {
    return this.#refuse('tryRequest');
  }
  cancelTry(): Promise<boolean> {
    return Promise.resolve(false);
  }
  onTry(): Unsubscribe {
    return () => {};
  }
  checkModel(): Promise<ReadinessReport> {
    return this.#refuse('checkModel');
  }
  getSettings(): Promise<Settings> {
    return unanswered();
  }
  saveSettings(): Promise<void> {
    return this.#refuse('saveSettings');
  }
  checkHost(): Promise<HostCheck> {
    return this.#refuse('checkHost');
  }
  ruleLimits(): Promise<RuleLimits> {
    return this.#refuse('ruleLimits');
  }
  checkRule(): Promise<RuleCheck> {
    return this.#refuse('checkRule');
  }
  tools(): Promise<ToolInfo[]> {
    return Promise.resolve([]);
  }
  workspace(): Promise<WorkspaceInfo> {
    return this.#refuse('workspace');
  }
  setWorkspace(): Promise<WorkspaceInfo> {
    return this.#refuse('setWorkspace');
  }
  protections(): Promise<Protections> {
    // The machine that ran the session is not this one: there is nothing to say.
    return unanswered();
  }
  pickFolder(): Promise<string> {
    return this.#refuse('pickFolder');
  }
  importFile(): Promise<ImportResult> {
    return this.#refuse('importFile');
  }
  importText(): Promise<ImportResult> {
    return this.#refuse('importText');
  }
  pickImportFile(): Promise<string> {
    return this.#refuse('pickImportFile');
  }
  onFilesDropped(): Unsubscribe {
    // A replay takes no file: nothing is ever dropped on it.
    return () => {};
  }
  openURL(): void {
    // A link opens nothing from a replay: the page may fetch nothing.
  }
  startOllama(): Promise<StatusInfo> {
    return this.#refuse('startOllama');
  }
  pullModel(): Promise<void> {
    return this.#refuse('pullModel');
  }
  cancelPull(): Promise<boolean> {
    return Promise.resolve(false);
  }
  deleteModel(): Promise<void> {
    return this.#refuse('deleteModel');
  }
  onPull(): Unsubscribe {
    return () => {};
  }
  onFilesWaiting(): Unsubscribe {
    return () => {};
  }
  stopWaiting(): Promise<boolean> {
    return Promise.resolve(false);
  }
  close(): void {}
  onEvents(_fn: Listener<never>): Unsubscribe {
    // A replay's log is whole from the start: no event comes later.
    return () => {};
  }
  onDeltas(): Unsubscribe {
    return () => {};
  }
}
