// The core of FakeBridge: sessions, events, approvals and settings kept
// in memory like the backend keeps them, every command recorded, and the
// event side driven by hand (emit…, commit). The safety and step-through
// behaviour are layered on top (fakesafety.ts, fakestep.ts).
import { checkRule, ruleText } from '../safety';
import {
  PERMISSION_MODES,
  TOOL_SETTINGS,
  type Approval,
  type ApprovalClosed,
  type Delta,
  type EventOf,
  type Kind,
  type ModelInfo,
  type PayloadMap,
  type Protections,
  type Rule,
  type RuleLimits,
  type SessionSnapshot,
  type Settings,
  type StatusInfo,
  type Summary,
  type TraceEvent,
} from '../types';
import { EventHub, type Scheduler } from './hub';
import { BridgeError, type Listener, type Unsubscribe } from './types';

export interface FakeCall {
  method: string;
  args: unknown[];
}

export interface FakeOptions {
  /** How batches are flushed; defaults to a microtask. */
  schedule?: Scheduler;
  status?: Partial<StatusInfo>;
  models?: ModelInfo[];
  sessions?: Summary[];
  events?: TraceEvent[];
  approvals?: Approval[];
  settings?: Partial<Settings>;
  protections?: Protections;
}

export const defaultSettings: Settings = {
  max_rounds: 20,
  num_ctx_cap: 16384,
  temperature: 0.2,
  permission_mode: 'ask',
  tools: {},
  rules: [],
  system_prompt: '',
};


export function makeSummary(p: Partial<Summary> & { id: string }): Summary {
  const now = new Date(Date.UTC(2026, 0, 5, 10, 0, 0)).toISOString();
  return {
    title: 'Untitled session',
    workspace: '/home/me/project',
    model: 'qwen3:0.6b',
    created_at: now,
    updated_at: now,
    last_reason: '',
    event_count: 0,
    running: false,
    stepping: false,
    breakpoints: { points: [], tools: [] },
    paused: null,
    ...p,
  };
}

export class FakeStore {
  readonly hub: EventHub;
  readonly calls: FakeCall[] = [];
  statusInfo: StatusInfo;
  models: ModelInfo[];
  settings: Settings;
  readonly sessions = new Map<string, Summary>();
  readonly events = new Map<string, TraceEvent[]>();
  readonly approvals = new Map<string, Approval>();
  /** What pickWorkspace returns ("" = the user cancelled). */
  workspaceToPick = '/home/me/project';
  /** Commands named here reject with the given message. */
  failures: Record<string, string> = {};
  /** Called by send after it is recorded; the demo scripts runs with it. */
  onSend?: (id: string, text: string) => void;
  onStop?: (id: string) => void;
  /** Opened links, for tests. */
  readonly opened: string[] = [];
  /**
   * What ruleLimits answers, by the rule's text ("deny cat .env"): the
   * backend's permission.Rule.Limits is not copied here; a rule not listed
   * has no limits.
   */
  readonly ruleLimitsByRule = new Map<string, RuleLimits>();
  #nextId = 1;

  constructor(opts: FakeOptions = {}) {
    this.hub = new EventHub(opts.schedule ?? ((f) => queueMicrotask(f)));
    this.statusInfo = {
      ollama_host: 'http://127.0.0.1:11434',
      reachable: true,
      version: '0.13.0',
      message: '',
      db_path: '/home/me/.local/share/loupe/loupe.db',
      ...opts.status,
    };
    this.models = opts.models ?? [];
    this.settings = { ...defaultSettings, ...opts.settings };
    for (const s of opts.sessions ?? []) this.sessions.set(s.id, s);
    for (const e of opts.events ?? []) this.keep(e);
    for (const a of opts.approvals ?? []) this.approvals.set(a.id, a);
  }

  /** Records a command, and throws the failure set for it, if any. */
  protected record(method: string, ...args: unknown[]): void {
    this.calls.push({ method, args });
    const failure = this.failures[method];
    if (failure !== undefined) throw new BridgeError(failure, method);
  }

  /** Keeps an event for openSession; false when its seq is already there. */
  protected keep(e: TraceEvent): boolean {
    let list = this.events.get(e.session_id);
    if (!list) {
      list = [];
      this.events.set(e.session_id, list);
    }
    if (list.some((x) => x.seq === e.seq)) return false;
    list.push(e);
    list.sort((a, b) => a.seq - b.seq);
    return true;
  }

  callsOf(method: string): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  // --- driving the event side -------------------------------------------

  /** Commits an event (kept for openSession) and emits it, like the backend. */
  emitEvent(e: TraceEvent): void {
    this.keep(e);
    this.hub.push('events', e);
  }

  emitDelta(d: Delta): void {
    this.hub.push('deltas', d);
  }

  emitSession(s: Summary): void {
    this.sessions.set(s.id, s);
    this.hub.push('sessions', s);
  }

  emitApproval(a: Approval): void {
    this.approvals.set(a.id, a);
    this.hub.push('approvals', a);
  }

  emitApprovalClosed(c: ApprovalClosed): void {
    this.approvals.delete(c.id);
    this.hub.push('approvalsClosed', c);
  }

  /** Commits a new event with the session's next seq, as the backend would, and emits it. */
  commit<K extends Kind>(sessionId: string, kind: K, payload: PayloadMap[K], run: number, round: number): EventOf<K> {
    const list = this.events.get(sessionId) ?? [];
    const seq = (list.at(-1)?.seq ?? 0) + 1;
    const e = { session_id: sessionId, seq, kind, time: new Date().toISOString(), run, round, payload } as EventOf<K>;
    this.emitEvent(e as TraceEvent);
    const s = this.sessions.get(sessionId);
    if (s) this.sessions.set(sessionId, { ...s, event_count: seq });
    return e;
  }

  /** Changes a session's summary and emits it. */
  updateSession(id: string, patch: Partial<Summary>): void {
    const s = this.sessions.get(id);
    if (s) this.emitSession({ ...s, ...patch, updated_at: new Date().toISOString() });
  }

  /** Delivers queued batches now. */
  flush(): void {
    this.hub.flush();
  }

  // --- commands -----------------------------------------------------------

  async status(): Promise<StatusInfo> {
    this.record('status');
    return { ...this.statusInfo };
  }

  async listModels(): Promise<ModelInfo[]> {
    this.record('listModels');
    return this.statusInfo.reachable ? [...this.models] : [];
  }

  async listSessions(): Promise<Summary[]> {
    this.record('listSessions');
    return [...this.sessions.values()].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  }

  async newSession(workspace: string, model: string): Promise<Summary> {
    this.record('newSession', workspace, model);
    const now = new Date().toISOString();
    const s = makeSummary({
      id: `fake-${this.#nextId++}`,
      workspace,
      model,
      title: 'New session',
      created_at: now,
      updated_at: now,
    });
    this.sessions.set(s.id, s);
    return s;
  }

  async deleteSession(id: string): Promise<void> {
    this.record('deleteSession', id);
    this.sessions.delete(id);
    this.events.delete(id);
    this.hub.forget(id);
  }

  async setModel(id: string, model: string): Promise<void> {
    this.record('setModel', id, model);
    const s = this.sessions.get(id);
    if (s) this.sessions.set(id, { ...s, model });
  }

  async openSession(id: string): Promise<SessionSnapshot> {
    this.record('openSession', id);
    const summary = this.sessions.get(id);
    if (!summary) throw new BridgeError(`No session ${id}.`, 'openSession');
    return {
      summary: { ...summary },
      events: [...(this.events.get(id) ?? [])],
      approvals: [...this.approvals.values()].filter((a) => a.session_id === id),
    };
  }

  async send(id: string, text: string): Promise<void> {
    this.record('send', id, text);
    this.onSend?.(id, text);
  }

  async pickWorkspace(): Promise<string> {
    this.record('pickWorkspace');
    return this.workspaceToPick;
  }

  async getSettings(): Promise<Settings> {
    this.record('getSettings');
    return { ...this.settings };
  }

  async saveSettings(s: Settings): Promise<void> {
    this.record('saveSettings', s);
    // session.Settings.Validate, with the backend's wording.
    const probs: string[] = [];
    if (!Number.isInteger(s.max_rounds) || s.max_rounds < 1 || s.max_rounds > 1000) probs.push('the round cap must be between 1 and 1000');
    if (!Number.isInteger(s.num_ctx_cap) || s.num_ctx_cap < 512 || s.num_ctx_cap > 1 << 20) {
      probs.push('the context cap must be between 512 and 1048576 tokens');
    }
    if (!(s.temperature >= 0 && s.temperature <= 2)) probs.push('temperature must be between 0 and 2');
    if (!PERMISSION_MODES.includes(s.permission_mode)) {
      probs.push(`unknown permission mode "${String(s.permission_mode)}" (use "ask_all", "ask" or "auto")`);
    }
    const perm: string[] = [];
    for (const [tool, v] of Object.entries(s.tools ?? {})) {
      if (!TOOL_SETTINGS.includes(v)) perm.push(`tool ${tool}: setting must be always, ask or never, not "${String(v)}"`);
    }
    for (const r of s.rules ?? []) {
      const p = checkRule(r);
      if (p) perm.push(p);
    }
    if (perm.length) probs.push(`permission settings: ${perm.join('; ')}`);
    if (probs.length) throw new BridgeError(`settings not saved: ${probs.join('; ')}`, 'saveSettings');
    this.settings = { ...s, tools: { ...s.tools }, rules: s.rules.map((r) => ({ ...r })) };
  }

  async ruleLimits(rule: Rule): Promise<RuleLimits> {
    this.record('ruleLimits', rule);
    const l = this.ruleLimitsByRule.get(ruleText(rule));
    return l ? structuredClone(l) : { limits: [], path_rules: [] };
  }

  close(): void {
    // Nothing to release: the fake has no runtime listeners.
  }

  openURL(url: string): void {
    this.calls.push({ method: 'openURL', args: [url] });
    this.opened.push(url);
  }

  onEvents(fn: Listener<TraceEvent>): Unsubscribe {
    return this.hub.on('events', fn);
  }

  onDeltas(fn: Listener<Delta>): Unsubscribe {
    return this.hub.on('deltas', fn);
  }

  onSessions(fn: Listener<Summary>): Unsubscribe {
    return this.hub.on('sessions', fn);
  }

  onApprovals(fn: Listener<Approval>): Unsubscribe {
    return this.hub.on('approvals', fn);
  }

  onApprovalsClosed(fn: Listener<ApprovalClosed>): Unsubscribe {
    return this.hub.on('approvalsClosed', fn);
  }
}
