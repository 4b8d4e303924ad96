// The app's state, put together: one part per job, each in its own module,
// built around one Bridge (so tests can give it a fake one) and provided to
// the views through context (getLoupe). Data goes one way: the bridge's
// events and deltas go into the parts here; the views read the parts and
// act through them. LoupeApp shows them under the names the views use.
//
//   #toasts    Toasts         messages at the corner of the window
//   #status    OllamaStatus   Ollama's status and models, checked on a timer
//   pulls      ModelPulls     pulls of models under way, cancel, delete
//   #sessions  SessionList    the sidebar's summaries
//   #settings  SettingsState  settings, the unsaved draft, host check
//   #router    Router         the page shown, the open session
//   #live      LiveState      streaming text and command output
//   #raws      Raws           events fetched whole, Raw sources
//   #commands  Commands       create, send, stop, stop a command, answer
//   #stepping  Stepping       step mode, breakpoints, what is done at a pause
//   safety     SafetyState    protections, workspaces, restores
//   network    NetworkState   every connection Loupe made, read on a timer
//   tour       Tour           the guided tour of the session view
//   search     SearchState    the sidebar's search over every session's log
//   ops        SessionOps     rename, pin, duplicate, delete with Undo
//   compare    CompareState   two sessions side by side, round by round
//   imports    ImportState    a session export brought back (dialog, drop)
import type { Bridge } from '../bridge/types';
import type { BreakpointTarget, CallOutput, LiveText } from '../timeline';
import type {
  Approval,
  Expandable,
  HostCheck,
  ModelInfo,
  Protections,
  RawSource,
  Scope,
  Settings,
  StatusInfo,
  Summary,
  SystemPromptView,
  ToolInfo,
  TraceEvent,
} from '../types';
import { Commands } from './commands.svelte';
import { CompareState } from './compare.svelte';
import { message } from './errors';
import { LiveState } from './live.svelte';
import { ModelPulls } from './models.svelte';
import { NetworkState } from './network.svelte';
import { Raws } from './raws.svelte';
import { Router, type View } from './routing.svelte';
import { SafetyState, type RestoreConfirm } from './safety.svelte';
import { SearchState } from './search.svelte';
import { SessionOps } from './sessionops.svelte';
import { ForkState } from './fork.svelte';
import { ImportState } from './import.svelte';
import type { SessionState } from './session.svelte';
import { SettingsState, type SettingsSection } from './settings.svelte';
import { OllamaStatus } from './status.svelte';
import { Stepping } from './stepping.svelte';
import { SessionList } from './summaries.svelte';
import { Toasts, type Toast } from './toasts.svelte';
import { Tour } from './tour.svelte';
import type { WorkspaceState } from './workspace.svelte';

export type { RestoreConfirm } from './safety.svelte';
export type { View } from './routing.svelte';
export type { SettingsSection } from './settings.svelte';
export type { Toast } from './toasts.svelte';
export { hasCapability } from './status.svelte';
export { sortSessions } from './summaries.svelte';

/** How often "just now" and "5 min ago" are told again. */
export const NOW_TICK_MS = 20000;

export class LoupeApp {
  readonly bridge: Bridge;
  /** Protections, workspace folders and restores. */
  readonly safety: SafetyState;
  /** Pulls of models, their cancel, and deletes (the Models page). */
  readonly pulls: ModelPulls;
  /** Every network connection Loupe made since it started. */
  readonly network: NetworkState;
  /** The guided tour: five stops of the session view. */
  readonly tour = new Tour();
  /** Search over every session's log. */
  readonly search: SearchState;
  /** Rename, pin, duplicate, and delete with Undo. */
  readonly ops: SessionOps;
  /** Two sessions side by side (the compare view). */
  readonly compare: CompareState;
  /** The fork dialog: a session forked at one of its events. */
  readonly fork: ForkState;
  /** Import: the dialog and files dropped on the window. */
  readonly imports: ImportState;

  /** Cards add a plain sentence or two about what happened and why. */
  explain = $state(false);
  /** The time relative times ("5 min ago") are told from; moves on every NOW_TICK_MS. */
  now = $state(Date.now());

  readonly #toasts = new Toasts();
  readonly #status: OllamaStatus;
  readonly #sessions: SessionList;
  readonly #settings: SettingsState;
  readonly #router: Router;
  readonly #live = new LiveState();
  readonly #raws: Raws;
  readonly #commands: Commands;
  readonly #stepping: Stepping;

  constructor(bridge: Bridge) {
    this.bridge = bridge;
    const notify = (msg: string, tone?: Toast['tone']) => this.#toasts.notify(msg, tone);
    const current = () => this.#router.current;
    // A send refused while Ollama was away is forgotten once it is back.
    this.#status = new OllamaStatus(bridge, notify, () => {
      if (this.current) this.current.sendError = null;
    });
    this.#sessions = new SessionList(bridge, notify);
    // A saved Ollama host is checked at once.
    this.#settings = new SettingsState(bridge, notify, () => void this.#status.refresh());
    this.#router = new Router(bridge, this.#sessions, this.#settings);
    this.#raws = new Raws(bridge, current, notify);
    this.#commands = new Commands(bridge, this.#sessions, this.#router, notify);
    this.#stepping = new Stepping(this.#commands.do, current, notify);
    this.safety = new SafetyState(bridge, () => this.current?.id ?? null, notify);
    this.pulls = new ModelPulls(bridge, notify, () => this.#status.refreshModels(true));
    this.network = new NetworkState(bridge);
    this.search = new SearchState(bridge);
    this.ops = new SessionOps(bridge, this.#sessions, this.#router, this.#toasts);
    this.compare = new CompareState(bridge, this.#router);
    this.fork = new ForkState(bridge, this.#sessions, this.#router, this.#toasts, this.compare);
    this.imports = new ImportState(bridge, this.#sessions, this.#router, this.#toasts);
  }

  /** Subscribes to the bridge and loads everything. Returns the cleanup. */
  start(): () => void {
    const offs = [
      this.bridge.onEvents((batch) => {
        this.#live.settle(batch);
        this.#sessions.after(batch);
        this.current?.applyEvents(batch);
        this.compare.after(batch);
      }),
      this.bridge.onDeltas((batch) => this.#live.applyDeltas(batch)),
    ];
    this.now = Date.now();
    const clock = setInterval(() => (this.now = Date.now()), NOW_TICK_MS);
    offs.push(() => clearInterval(clock));
    offs.push(this.#status.watch());
    offs.push(this.pulls.watch());
    offs.push(this.safety.watchWaits());
    offs.push(this.network.watch());
    offs.push(this.search.watch());
    offs.push(this.imports.listen());
    void this.#sessions.refresh();
    void this.#settings.load();
    void this.safety.loadProtections();
    void this.safety.loadTools();
    return () => {
      for (const off of offs) off();
    };
  }

  async pickWorkspace(): Promise<string> {
    try {
      return await this.bridge.pickFolder('Choose the workspace folder');
    } catch (e) {
      this.notify(`Could not open the folder picker: ${message(e)}`, 'error');
      return '';
    }
  }

  // --- toasts (Toasts) ---------------------------------------------------------

  get toasts(): Toast[] {
    return this.#toasts.list;
  }

  notify(msg: string, tone: Toast['tone'] = 'info'): void {
    this.#toasts.notify(msg, tone);
  }

  dismiss(id: number): void {
    this.#toasts.dismiss(id);
  }

  // --- Ollama and models (OllamaStatus) ----------------------------------------

  get status(): StatusInfo | null {
    return this.#status.status;
  }

  get statusChecking(): boolean {
    return this.#status.checking;
  }

  get models(): ModelInfo[] {
    return this.#status.models;
  }

  get modelsLoaded(): boolean {
    return this.#status.modelsLoaded;
  }

  refreshStatus(): Promise<void> {
    return this.#status.refresh();
  }

  /** Starts `ollama serve` for the host in use (Start Ollama). */
  startOllama(): Promise<void> {
    return this.#status.start();
  }

  get ollamaStarting(): boolean {
    return this.#status.starting;
  }

  get ollamaStartError(): string {
    return this.#status.startError;
  }

  refreshModels(quiet = false): Promise<void> {
    return this.#status.refreshModels(quiet);
  }

  modelInfo(name: string): ModelInfo | undefined {
    return this.#status.modelInfo(name);
  }

  // --- the session list (SessionList) ------------------------------------------

  get sessions(): Summary[] {
    return this.#sessions.list;
  }

  get sessionsLoaded(): boolean {
    return this.#sessions.loaded;
  }

  /** Sessions that wait for an answer, for the sidebar: read from their logs. */
  get waiting(): Set<string> {
    return this.#sessions.waiting;
  }

  // --- the page and the open session (Router) -----------------------------------

  get view(): View {
    return this.#router.view;
  }

  set view(v: View) {
    this.#router.view = v;
  }

  get current(): SessionState | null {
    return this.#router.current;
  }

  get helpOpen(): boolean {
    return this.#router.helpOpen;
  }

  set helpOpen(v: boolean) {
    this.#router.helpOpen = v;
  }

  /** Opens a session; with `at`, scrolled to the card of that event, and `match` marked in it. */
  openSession(id: string, at: number | null = null, match: string | null = null): Promise<void> {
    return this.#router.openSession(id, at, match);
  }

  /** Opens the Settings page at a section. */
  openSettings(section: SettingsSection | null = null): void {
    this.#router.openSettings(section);
  }

  // --- settings (SettingsState) --------------------------------------------------

  get settings(): Settings | null {
    return this.#settings.settings;
  }

  /** Why the last save was refused, in the backend's words (a rule that does not parse…). */
  get settingsError(): string | null {
    return this.#settings.error;
  }

  set settingsError(v: string | null) {
    this.#settings.error = v;
  }

  /** What was typed on the Settings page and not saved: kept when the page is left, until saved or cancelled. */
  get settingsDraft(): Settings | null {
    return this.#settings.draft;
  }

  set settingsDraft(v: Settings | null) {
    this.#settings.draft = v;
  }

  /** The Settings section to show when the page opens. */
  get settingsSection(): SettingsSection | null {
    return this.#settings.section;
  }

  set settingsSection(v: SettingsSection | null) {
    this.#settings.section = v;
  }

  saveSettings(s: Settings): Promise<boolean> {
    return this.#settings.save(s);
  }

  /** The models installed at a named Ollama host ("" for the local one); rejects naming the host when it does not answer. */
  listModelsOn(host: string): Promise<ModelInfo[]> {
    return this.bridge.listModelsOn(host);
  }

  /** The whole system prompt a run sends, from a template, in a workspace ("" for none yet). */
  systemPrompt(template: string, workspace: string): Promise<SystemPromptView> {
    return this.bridge.systemPrompt(template, workspace);
  }

  checkHost(host: string): Promise<HostCheck> {
    return this.#settings.checkHost(host);
  }

  // --- commands (Commands) ---------------------------------------------------------

  /** Approvals whose answer is on its way. */
  get answering(): ReadonlySet<string> {
    return this.#commands.answering;
  }

  /** Stop waits for the user's yes: the run is paused, and edits may be unsent. */
  get stopConfirm(): boolean {
    return this.#commands.stopConfirm;
  }

  /** Starts a session on a workspace and model, on one of Settings' named Ollama hosts (absent: the local one), offering the tools given (absent: every tool). */
  newSession(workspace: string, model: string, setup: { host?: string; tools?: string[] } = {}): Promise<boolean> {
    return this.#commands.newSession(workspace, model, setup);
  }

  setTools(tools: string[] | undefined): Promise<void> {
    return this.#commands.setTools(tools);
  }

  /** "Try the demo": the scripted demo's session, opened; the tour the first time. */
  async startDemo(): Promise<boolean> {
    const ok = await this.#commands.startDemo();
    if (ok) this.tour.offer();
    return ok;
  }

  deleteSession(id: string): Promise<void> {
    return this.#commands.deleteSession(id);
  }

  setModel(model: string): Promise<void> {
    return this.#commands.setModel(model);
  }

  send(): Promise<void> {
    return this.#commands.send();
  }

  requestStop(): void {
    this.#commands.requestStop();
  }

  confirmStop(): Promise<void> {
    return this.#commands.confirmStop();
  }

  cancelStop(): void {
    this.#commands.cancelStop();
  }

  stop(): Promise<void> {
    return this.#commands.stop();
  }

  /** Compact now is on its way. */
  get compacting(): boolean {
    return this.#commands.compacting;
  }

  /** Compact now: the model summarises the current session's older turns. */
  compact(): Promise<void> {
    return this.#commands.compact();
  }

  stopCall(callId: string): Promise<void> {
    return this.#commands.stopCall(callId);
  }

  isStopping(callId: string): boolean {
    return this.#commands.isStopping(callId);
  }

  answer(a: Approval, allow: boolean, scope: Scope = 'once'): Promise<void> {
    return this.#commands.answer(a, allow, scope);
  }

  approvalsOfLane(laneId: string): Approval[] {
    return this.#commands.approvalsOfLane(laneId);
  }

  approvalForCall(callId: string): Approval | undefined {
    return this.#commands.approvalForCall(callId);
  }

  // --- step-through (Stepping) ---------------------------------------------------

  setStepping(on: boolean): Promise<void> {
    return this.#stepping.setStepping(on);
  }

  toggleBreakpoint(target: BreakpointTarget): Promise<void> {
    return this.#stepping.toggleBreakpoint(target);
  }

  resume(action: 'step' | 'continue' | 'step_into'): Promise<void> {
    return this.#stepping.resume(action);
  }

  skipCall(): Promise<void> {
    return this.#stepping.skipCall();
  }

  applyPauseEdits(): Promise<void> {
    return this.#stepping.applyPauseEdits();
  }

  // --- streaming text and output (LiveState) ---------------------------------------

  liveText(run: number, round: number): LiveText | undefined {
    const id = this.current?.id;
    return id ? this.#live.textOf(id, run, round) : undefined;
  }

  /** The streamed output of a running call of the current session. */
  callOutput(callId: string): CallOutput | undefined {
    const id = this.current?.id;
    return id ? this.#live.outputOf(id, callId) : undefined;
  }

  // --- whole and raw events (Raws) -----------------------------------------------

  expandable(e: TraceEvent | undefined): Expandable | null {
    return this.#raws.expandable(e);
  }

  rawSource(e: TraceEvent): RawSource {
    return this.#raws.rawSource(e);
  }

  // --- safety (SafetyState) -------------------------------------------------

  /** Which OS protections commands get here; null until known. */
  get protections(): Protections | null {
    return this.safety.protections;
  }

  /** The built-in tools, in the registry's order; empty until known. */
  get tools(): readonly ToolInfo[] {
    return this.safety.tools;
  }

  /** Commands are confined by the OS (true until the probe says otherwise). */
  get sandboxed(): boolean {
    return this.safety.sandboxed;
  }

  /** A restore is on its way. */
  get restoring(): boolean {
    return this.safety.restoring;
  }

  /** A restore waits for the user's yes: files changed outside Loupe. */
  get restoreConfirm(): RestoreConfirm | null {
    return this.safety.restoreConfirm;
  }

  workspaceOf(dir: string): WorkspaceState {
    return this.safety.workspaceOf(dir);
  }

  undoRun(run: number): Promise<void> {
    return this.safety.undoRun(run);
  }

  restoreFiles(seq: number): Promise<void> {
    return this.safety.restoreFiles(seq);
  }

  confirmRestore(): Promise<void> {
    return this.safety.confirmRestore();
  }

  cancelRestore(): void {
    this.safety.cancelRestore();
  }
}
