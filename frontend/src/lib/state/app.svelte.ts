// The whole app's state: status of Ollama, models, sessions, approvals,
// live text, and the open session. Built around a Bridge so tests can give
// it a fake one. Provided to the views through context. The safety side
// (protections, workspaces, restores) is a SafetyState of its own.
import type { Bridge } from '../bridge/types';
import {
  rawOf,
  wholeEvent,
  type Approval,
  type Expandable,
  type Breakpoints,
  type Command,
  type HostCheck,
  type Outcome,
  type ModelInfo,
  type Protections,
  type RawSource,
  type Scope,
  type Settings,
  type StatusInfo,
  type Summary,
  type TraceEvent,
} from '../types';
import { applyOutput, outputKey, settleOutput, type CallOutput, type OutputMap } from '../timeline';
import { applyDeltas, settleLive, summaryAfter, type BreakpointTarget, type LiveMap, type LiveText, liveKey } from '../timeline';
import { message } from './errors';
import { SafetyState, type RestoreConfirm } from './safety.svelte';
import { SessionState } from './session.svelte';
import type { WorkspaceState } from './workspace.svelte';

export type { RestoreConfirm } from './safety.svelte';

export type View = 'home' | 'new' | 'session' | 'settings';

export interface Toast {
  id: number;
  tone: 'info' | 'error';
  message: string;
}

/** A section of the Settings page to bring into view when it opens. */
export type SettingsSection = 'permissions' | 'workspace' | 'protections';

/** How often Ollama's status is checked again while it is unreachable. */
const STATUS_RETRY_MS = 5000;
/**
 * How often it is checked while it answers: often enough that a stopped
 * Ollama shows within seconds and a model pulled meanwhile appears, and
 * cheap (two small local requests).
 */
const STATUS_WATCH_MS = 15000;
/** How often "just now" and "5 min ago" are told again. */
export const NOW_TICK_MS = 20000;

export function hasCapability(m: ModelInfo, cap: string): boolean {
  return (m.capabilities ?? []).includes(cap);
}

export class LoupeApp {
  readonly bridge: Bridge;

  status = $state.raw<StatusInfo | null>(null);
  statusChecking = $state(false);
  models = $state.raw<ModelInfo[]>([]);
  modelsLoaded = $state(false);
  sessions = $state.raw<Summary[]>([]);
  sessionsLoaded = $state(false);
  settings = $state.raw<Settings | null>(null);
  /** Why the last save was refused, in the backend's words (a rule that does not parse…). */
  settingsError = $state<string | null>(null);
  /** What was typed on the Settings page and not saved: kept when the page is left, until saved or cancelled. */
  settingsDraft = $state.raw<Settings | null>(null);
  /** The Settings section to show when the page opens. */
  settingsSection = $state<SettingsSection | null>(null);
  /** Protections, workspace folders and restores. */
  readonly safety: SafetyState;
  /** Approvals whose answer is on its way. */
  answering = $state.raw<ReadonlySet<string>>(new Set());
  /** Streaming text of every session's rounds. */
  live = $state.raw<LiveMap>(new Map());
  /** Streaming output of every session's running commands (timeline/output.ts). */
  output = $state.raw<OutputMap>(new Map());
  /** Calls whose stop is on its way, by outputKey. */
  stoppingCalls = $state.raw<ReadonlySet<string>>(new Set());
  current = $state.raw<SessionState | null>(null);
  view = $state<View>('home');
  helpOpen = $state(false);
  /** Stop waits for the user's yes: the run is paused, and edits may be unsent. */
  stopConfirm = $state(false);
  /** Cards add a plain sentence or two about what happened and why. */
  explain = $state(false);
  toasts = $state.raw<Toast[]>([]);
  /** The time relative times ("5 min ago") are told from; moves on every NOW_TICK_MS. */
  now = $state(Date.now());

  /** Sessions that wait for an answer, for the sidebar: read from their logs. */
  waiting = $derived(new Set(this.sessions.filter((s) => s.standing === 'asking').map((s) => s.id)));

  #toastId = 0;
  /** One Raw source per event, so an open Raw view is not reloaded on every update. */
  #raw = new WeakMap<TraceEvent, RawSource>();
  /** One Expandable per cut event, so cards get the same one on every update. */
  #expandable = new WeakMap<TraceEvent, Expandable>();
  /** Whole events on their way, so that one is fetched once. */
  #fetching = new WeakMap<TraceEvent, Promise<TraceEvent>>();
  #retry: ReturnType<typeof setTimeout> | null = null;
  #stopped = false;

  constructor(bridge: Bridge) {
    this.bridge = bridge;
    this.safety = new SafetyState(bridge, () => this.current?.id ?? null, (msg, tone) => this.notify(msg, tone));
  }

  /** Subscribes to the bridge and loads everything. Returns the cleanup. */
  start(): () => void {
    this.#stopped = false;
    const offs = [
      this.bridge.onEvents((batch) => {
        this.live = settleLive(this.live, batch);
        this.output = settleOutput(this.output, batch);
        this.#sessionsAfter(batch);
        this.current?.applyEvents(batch);
      }),
      this.bridge.onDeltas((batch) => {
        this.live = applyDeltas(this.live, batch);
        this.output = applyOutput(this.output, batch);
      }),
    ];
    // Coming back to the window checks Ollama at once (it may have been
    // started, stopped, or given a new model meanwhile).
    const onFocus = () => void this.refreshStatus();
    if (typeof window !== 'undefined') {
      window.addEventListener('focus', onFocus);
      offs.push(() => window.removeEventListener('focus', onFocus));
    }
    this.now = Date.now();
    const clock = setInterval(() => (this.now = Date.now()), NOW_TICK_MS);
    offs.push(() => clearInterval(clock));
    void this.refreshStatus();
    void this.refreshSessions();
    void this.loadSettings();
    void this.loadProtections();
    return () => {
      this.#stopped = true;
      if (this.#retry) clearTimeout(this.#retry);
      for (const off of offs) off();
    };
  }

  notify(msg: string, tone: Toast['tone'] = 'info'): void {
    const id = ++this.#toastId;
    this.toasts = [...this.toasts, { id, tone, message: msg }];
    setTimeout(() => this.dismiss(id), tone === 'error' ? 8000 : 4000);
  }

  dismiss(id: number): void {
    this.toasts = this.toasts.filter((t) => t.id !== id);
  }

  // --- Ollama and models ----------------------------------------------------

  /**
   * Checks Ollama now, and again later whatever the answer: soon while it
   * is unreachable, less often while it answers. The model list is read
   * again on each check that reaches Ollama (a model pulled since shows);
   * a send refused while Ollama was away is forgotten once it is back.
   */
  async refreshStatus(): Promise<void> {
    if (this.#retry) {
      clearTimeout(this.#retry);
      this.#retry = null;
    }
    this.statusChecking = true;
    const wasReachable = this.status?.reachable ?? false;
    try {
      this.status = await this.bridge.status();
    } catch (e) {
      this.status = {
        ollama_host: this.status?.ollama_host ?? '',
        reachable: false,
        version: '',
        message: message(e),
        db_path: this.status?.db_path ?? '',
      };
    } finally {
      this.statusChecking = false;
    }
    if (this.status.reachable) {
      await this.refreshModels(wasReachable);
      if (!wasReachable && this.current) this.current.sendError = null;
    } else {
      this.modelsLoaded = true;
    }
    if (!this.#stopped) {
      this.#retry = setTimeout(() => void this.refreshStatus(), this.status.reachable ? STATUS_WATCH_MS : STATUS_RETRY_MS);
    }
  }

  /** Reads the installed models; quiet says a failure is not worth a toast (a background check). */
  async refreshModels(quiet = false): Promise<void> {
    try {
      const models = await this.bridge.listModels();
      if (!sameModels(models, this.models)) this.models = models;
    } catch (e) {
      if (!quiet) this.notify(`Could not list models: ${message(e)}`, 'error');
    } finally {
      this.modelsLoaded = true;
    }
  }

  modelInfo(name: string): ModelInfo | undefined {
    return this.models.find((m) => m.name === name);
  }

  // --- sessions --------------------------------------------------------------

  async refreshSessions(): Promise<void> {
    try {
      this.sessions = sortSessions(await this.bridge.listSessions());
    } catch (e) {
      this.notify(`Could not list sessions: ${message(e)}`, 'error');
    } finally {
      this.sessionsLoaded = true;
    }
  }

  /** The sidebar's summaries after events of their sessions: how each stands is read from its log. */
  #sessionsAfter(events: readonly TraceEvent[]): void {
    let changed = false;
    const next = this.sessions.map((s) => {
      let out = s;
      for (const e of events) if (e.session_id === s.id) out = summaryAfter(out, e);
      changed ||= out !== s;
      return out;
    });
    if (changed) this.sessions = sortSessions(next);
  }

  /**
   * Takes a summary a command returned. What it says of the log (events,
   * the open run, what it waits for) may be older than the events already
   * seen, which then win; what commands change (title, model, stepping,
   * breakpoints) is taken.
   */
  #upsertSession(s: Summary): void {
    const held = this.current?.id === s.id ? this.current.summary : this.sessions.find((x) => x.id === s.id);
    const merged = held && held.event_count > s.event_count ? { ...s, ...logFields(held) } : s;
    const others = this.sessions.filter((x) => x.id !== s.id);
    this.sessions = sortSessions([...others, merged]);
    this.current?.setSummary(merged);
  }

  /** Sends a command; a summary it returns is taken. */
  async #do(cmd: Command): Promise<Outcome> {
    const out = await this.bridge.do(cmd);
    if (out.summary) this.#upsertSession(out.summary);
    return out;
  }

  async openSession(id: string): Promise<void> {
    if (this.current?.id === id) {
      this.view = 'session';
      return;
    }
    const known = this.sessions.find((s) => s.id === id);
    const state = new SessionState(
      known ?? {
        id,
        title: '',
        workspace: '',
        model: '',
        created_at: '',
        updated_at: '',
        last_reason: '',
        event_count: 0,
        open_run: 0,
        running: false,
        standing: '',
        stepping: false,
        breakpoints: { points: [], tools: [] },
      },
    );
    this.current = state;
    this.view = 'session';
    try {
      const snap = await this.bridge.openSession(id);
      if (this.current !== state) return; // the user moved on
      state.setSummary(snap.summary);
      state.applyEvents(snap.events);
    } catch (e) {
      state.loadError = message(e);
    } finally {
      state.loading = false;
    }
  }

  async newSession(workspace: string, model: string): Promise<boolean> {
    try {
      const out = await this.#do({ do: 'create', workspace, model });
      if (!out.summary) throw new Error('the backend did not say which session it made');
      await this.openSession(out.summary.id);
      return true;
    } catch (e) {
      this.notify(`Could not create the session: ${message(e)}`, 'error');
      return false;
    }
  }

  async deleteSession(id: string): Promise<void> {
    try {
      await this.#do({ do: 'delete', session: id });
      this.sessions = this.sessions.filter((s) => s.id !== id);
      if (this.current?.id === id) {
        this.current = null;
        this.view = 'home';
      }
    } catch (e) {
      this.notify(`Could not delete the session: ${message(e)}`, 'error');
    }
  }

  async setModel(model: string): Promise<void> {
    const cur = this.current;
    if (!cur) return;
    try {
      await this.#do({ do: 'set_model', session: cur.id, model });
    } catch (e) {
      this.notify(`Could not change the model: ${message(e)}`, 'error');
    }
  }

  /** Sends the composer's text; keeps it when Send is refused. */
  async send(): Promise<void> {
    const cur = this.current;
    if (!cur || cur.sending) return;
    const text = cur.draft.trim();
    if (!text) return;
    cur.sending = true;
    cur.sendError = null;
    try {
      await this.#do({ do: 'send', session: cur.id, text });
      cur.draft = '';
    } catch (e) {
      cur.sendError = message(e);
    } finally {
      cur.sending = false;
    }
  }

  /**
   * Stop as the user asks for it (Esc, the Stop buttons): a run paused at a
   * checkpoint, where a Stop loses the pause and any edit not sent yet,
   * asks first; a run that goes stops at once.
   */
  requestStop(): void {
    const cur = this.current;
    if (!cur?.active) return;
    if (cur.standing.pause != null) {
      this.stopConfirm = true;
      return;
    }
    void this.stop();
  }

  /** The user said yes to stopping the paused run. */
  async confirmStop(): Promise<void> {
    this.stopConfirm = false;
    await this.stop();
  }

  cancelStop(): void {
    this.stopConfirm = false;
  }

  async stop(): Promise<void> {
    const cur = this.current;
    if (!cur) return;
    try {
      await this.#do({ do: 'stop', session: cur.id });
    } catch (e) {
      this.notify(`Could not stop the run: ${message(e)}`, 'error');
    }
  }

  // --- step-through ------------------------------------------------------------

  /** Step mode on or off for the open session. */
  async setStepping(on: boolean): Promise<void> {
    const cur = this.current;
    if (!cur) return;
    try {
      await this.#do({ do: 'set_stepping', session: cur.id, on });
    } catch (e) {
      this.notify(`Could not turn Step mode ${on ? 'on' : 'off'}: ${message(e)}`, 'error');
    }
  }

  /** Adds or removes a breakpoint: a checkpoint kind, or a tool (before_tool for its calls). */
  async toggleBreakpoint(target: BreakpointTarget): Promise<void> {
    const cur = this.current;
    if (!cur) return;
    const bp = cur.summary.breakpoints;
    const flip = <T>(list: readonly T[] | null, v: T): T[] => {
      const l = [...(list ?? [])];
      return l.includes(v) ? l.filter((x) => x !== v) : [...l, v];
    };
    const next: Breakpoints =
      'point' in target
        ? { points: flip<string>(bp.points, target.point), tools: [...(bp.tools ?? [])] }
        : { points: [...(bp.points ?? [])], tools: flip(bp.tools, target.tool) };
    try {
      await this.#do({ do: 'set_breakpoints', session: cur.id, breakpoints: next });
    } catch (e) {
      this.notify(`Could not change the breakpoints: ${message(e)}`, 'error');
    }
  }

  /**
   * Sends what the user typed at the pause (request, arguments, result).
   * Returns false, with the reason in the draft, when it was refused.
   */
  async applyEdits(cur: SessionState | null = this.current): Promise<boolean> {
    const d = cur?.pauseDraft;
    if (!cur || !d || !d.dirty) return true;
    d.error = null;
    d.argsError = null;
    try {
      const at = d.pause.seq;
      if (d.pause.point === 'before_request') {
        const request = d.requestEdit();
        if (request) await this.#do({ do: 'edit_request', session: cur.id, at, request });
      } else if (d.pause.point === 'before_tool') {
        try {
          await this.#do({ do: 'edit_args', session: cur.id, at, text: d.args });
        } catch (e) {
          d.argsError = message(e);
          return false;
        }
      } else if (d.pause.point === 'after_result') {
        await this.#do({ do: 'edit_result', session: cur.id, at, text: d.result });
      }
      d.applied();
      return true;
    } catch (e) {
      d.error = message(e);
      return false;
    }
  }

  /** Ends the pause: Step to the next checkpoint, Continue to a breakpoint or the end. Edits typed so far go first. */
  async resume(action: 'step' | 'continue'): Promise<void> {
    const cur = this.current;
    const p = cur?.pause;
    if (!cur || !p || cur.resuming) return;
    cur.resuming = true;
    try {
      if (!(await this.applyEdits(cur))) return;
      // The edits sent are events now: the pause to leave is the same one.
      const at = cur.pause?.seq ?? p.seq;
      cur.leaving = at;
      await this.#do({ do: action, session: cur.id, at });
    } catch (e) {
      cur.leaving = null;
      this.notify(`Could not ${action}: ${message(e)}`, 'error');
    } finally {
      cur.resuming = false;
    }
  }

  /** Answers the paused call with the user's observation instead of running it. */
  async skipCall(): Promise<void> {
    const cur = this.current;
    const d = cur?.pauseDraft;
    if (!cur || !d || d.pause.point !== 'before_tool' || cur.resuming) return;
    if (!d.skip.trim()) {
      d.error = 'Write the observation the model should get instead of the tool’s result.';
      return;
    }
    cur.resuming = true;
    d.error = null;
    cur.leaving = d.pause.seq;
    try {
      await this.#do({ do: 'skip', session: cur.id, at: d.pause.seq, text: d.skip });
    } catch (e) {
      cur.leaving = null;
      d.error = message(e);
    } finally {
      cur.resuming = false;
    }
  }

  /** Sends the typed edits and stays paused. */
  async applyPauseEdits(): Promise<void> {
    const cur = this.current;
    if (!cur || cur.resuming) return;
    cur.resuming = true;
    try {
      await this.applyEdits(cur);
    } finally {
      cur.resuming = false;
    }
  }

  /**
   * Answers an approval: once, for this session or always for this
   * workspace. A longer answer to a once-only question is refused by the
   * backend and the question stays open.
   */
  async answer(a: Approval, allow: boolean, scope: Scope = 'once'): Promise<void> {
    if (this.answering.has(a.id)) return;
    this.answering = new Set([...this.answering, a.id]);
    try {
      // The answer is an event: the question closes when it arrives.
      await this.#do({ do: 'answer', session: a.session_id, call_id: a.call_id, allow, scope });
    } catch (e) {
      this.notify(`Could not answer: ${message(e)}`, 'error');
    } finally {
      const next = new Set(this.answering);
      next.delete(a.id);
      this.answering = next;
    }
  }

  /** The open question about a call of the current session, if any. */
  approvalForCall(callId: string): Approval | undefined {
    return this.current?.asks.find((a) => a.call_id === callId);
  }

  /** The streamed output of a running call of the current session. */
  callOutput(callId: string): CallOutput | undefined {
    const id = this.current?.id;
    return id ? this.output.get(outputKey(id, callId)) : undefined;
  }

  /**
   * Stops one running command of the current session; the run goes on,
   * and the call's result (an event) says it was stopped.
   */
  async stopCall(callId: string): Promise<void> {
    const id = this.current?.id;
    const key = id ? outputKey(id, callId) : '';
    if (!id || this.stoppingCalls.has(key)) return;
    this.stoppingCalls = new Set([...this.stoppingCalls, key]);
    try {
      await this.#do({ do: 'stop_call', session: id, call_id: callId });
    } catch (e) {
      this.notify(`Could not stop the command: ${message(e)}`, 'error');
    } finally {
      const next = new Set(this.stoppingCalls);
      next.delete(key);
      this.stoppingCalls = next;
    }
  }

  /** A stop of this call of the current session is on its way. */
  isStopping(callId: string): boolean {
    const id = this.current?.id;
    return id != null && this.stoppingCalls.has(outputKey(id, callId));
  }

  liveText(run: number, round: number): LiveText | undefined {
    const id = this.current?.id;
    return id ? this.live.get(liveKey(id, run, round)) : undefined;
  }

  /**
   * An event of the open session whole: as it is when it came whole, else
   * fetched (once) and kept in the session, whose cards then draw it.
   */
  whole(e: TraceEvent): Promise<TraceEvent> {
    const s = this.current;
    const have = s?.id === e.session_id ? s.whole.get(e.seq) : undefined;
    if (!e.preview || have) return Promise.resolve(have ?? e);
    let p = this.#fetching.get(e);
    if (!p) {
      p = this.bridge.eventPayload(e.session_id, e.seq).then((json) => {
        const w = wholeEvent(e, json);
        if (this.current?.id === e.session_id) this.current.setWhole(w);
        return w;
      });
      // A failed fetch may be tried again.
      p.catch(() => this.#fetching.delete(e));
      this.#fetching.set(e, p);
    }
    return p;
  }

  /** What a card needs to draw an event that came cut whole; null when it came whole or was fetched. */
  expandable(e: TraceEvent | undefined): Expandable | null {
    if (!e?.preview || this.current?.whole.has(e.seq)) return null;
    let x = this.#expandable.get(e);
    if (!x) {
      x = {
        cuts: e.preview,
        load: async () => {
          try {
            await this.whole(e);
          } catch (err) {
            this.notify(`Could not load the whole event: ${message(err)}`, 'error');
          }
        },
      };
      this.#expandable.set(e, x);
    }
    return x;
  }

  /**
   * What a card's Raw toggle shows: the exact request body for a
   * model_request (rebuilt by the backend), Ollama's wire JSON for a
   * model_response, and the event itself for the rest; an event that came
   * cut is fetched whole first.
   */
  rawSource(e: TraceEvent): RawSource {
    let src = this.#raw.get(e);
    if (!src) {
      if (e.kind === 'model_request') {
        src = { load: () => this.bridge.rawRequest(e.session_id, e.seq), exact: true };
      } else if (e.preview) {
        src = {
          load: async () => {
            const w = await this.whole(e);
            return JSON.stringify(w.kind === 'model_response' && w.payload.raw != null ? w.payload.raw : w);
          },
          exact: false,
        };
      } else if (e.kind === 'model_response' && e.payload.raw != null) {
        src = rawOf(e.payload.raw);
      } else {
        src = rawOf(e);
      }
      this.#raw.set(e, src);
    }
    return src;
  }

  async pickWorkspace(): Promise<string> {
    try {
      return await this.bridge.pickFolder('Choose the workspace folder');
    } catch (e) {
      this.notify(`Could not open the folder picker: ${message(e)}`, 'error');
      return '';
    }
  }

  // --- settings --------------------------------------------------------------

  async loadSettings(): Promise<void> {
    try {
      this.settings = await this.bridge.getSettings();
    } catch (e) {
      this.notify(`Could not read the settings: ${message(e)}`, 'error');
    }
  }

  /**
   * Saves; when the backend refuses, settingsError says why and the form
   * keeps what was typed. Once saved, the settings are read back (the
   * backend normalises the Ollama host) and Ollama is checked at once, so
   * the status shows whether the host saved answers.
   */
  async saveSettings(s: Settings): Promise<boolean> {
    this.settingsError = null;
    try {
      await this.bridge.saveSettings(s);
    } catch (e) {
      this.settingsError = message(e);
      return false;
    }
    this.settings = s;
    this.notify('Settings saved.');
    // In the background: the page closes as soon as the save is done.
    void this.#afterSave();
    return true;
  }

  async #afterSave(): Promise<void> {
    void this.refreshStatus();
    try {
      this.settings = await this.bridge.getSettings();
    } catch (e) {
      this.notify(`Saved, but the settings could not be read back: ${message(e)}`, 'error');
    }
  }

  /** Asks an Ollama host typed in Settings for its version, without saving it; rejects with what to type. */
  checkHost(host: string): Promise<HostCheck> {
    return this.bridge.checkHost(host);
  }

  /** Opens the Settings page at a section. */
  openSettings(section: SettingsSection | null = null): void {
    this.settingsError = null;
    this.settingsSection = section;
    this.view = 'settings';
  }

  // --- safety (SafetyState) -------------------------------------------------

  /** Which OS protections commands get here; null until known. */
  get protections(): Protections | null {
    return this.safety.protections;
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

  loadProtections(): Promise<void> {
    return this.safety.loadProtections();
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

/** Most recently updated first. Times are compared as instants, not strings (offsets may differ). */
export function sortSessions(list: readonly Summary[]): Summary[] {
  const t = (s: Summary) => {
    const v = Date.parse(s.updated_at);
    return Number.isFinite(v) ? v : 0;
  };
  return [...list].sort((a, b) => t(b) - t(a));
}

/** What a summary says of the session's log, which the newer view of the log keeps. */
function logFields(s: Summary): Pick<Summary, 'event_count' | 'updated_at' | 'open_run' | 'running' | 'standing' | 'last_reason'> {
  return { event_count: s.event_count, updated_at: s.updated_at, open_run: s.open_run, running: s.running, standing: s.standing, last_reason: s.last_reason };
}

/** The same models, in the same order: a background check changes nothing then. */
function sameModels(a: readonly ModelInfo[], b: readonly ModelInfo[]): boolean {
  return a.length === b.length && a.every((m, i) => m.name === b[i]!.name && m.modified_at === b[i]!.modified_at && m.size === b[i]!.size);
}
