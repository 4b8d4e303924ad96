// An in-memory Bridge for tests and for the demo that runs when the page
// is opened outside a Wails window. It keeps sessions, events and approvals
// like the backend does and records every command it was given.
import {
  isModelRequest,
  type Approval,
  type ApprovalClosed,
  type Delta,
  type ModelInfo,
  type SessionSnapshot,
  type Settings,
  type StatusInfo,
  type Summary,
  type TraceEvent,
} from '../types';
import { EventHub, type Scheduler } from './hub';
import { BridgeError, type Bridge, type Listener, type Unsubscribe } from './types';

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
}

export const defaultSettings: Settings = {
  max_rounds: 20,
  num_ctx_cap: 16384,
  temperature: 0.2,
  permission_mode: 'ask',
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
    ...p,
  };
}

export class FakeBridge implements Bridge {
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
  onAnswer?: (approvalId: string, allow: boolean) => void;
  /** Opened links, for tests. */
  readonly opened: string[] = [];
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
    for (const e of opts.events ?? []) this.#store(e);
    for (const a of opts.approvals ?? []) this.approvals.set(a.id, a);
  }

  #record(method: string, ...args: unknown[]): void {
    this.calls.push({ method, args });
    const failure = this.failures[method];
    if (failure !== undefined) throw new BridgeError(failure, method);
  }

  #store(e: TraceEvent): boolean {
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
    this.#store(e);
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

  /** Delivers queued batches now. */
  flush(): void {
    this.hub.flush();
  }

  // --- commands -----------------------------------------------------------

  async status(): Promise<StatusInfo> {
    this.#record('status');
    return { ...this.statusInfo };
  }

  async listModels(): Promise<ModelInfo[]> {
    this.#record('listModels');
    return this.statusInfo.reachable ? [...this.models] : [];
  }

  async listSessions(): Promise<Summary[]> {
    this.#record('listSessions');
    return [...this.sessions.values()].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  }

  async newSession(workspace: string, model: string): Promise<Summary> {
    this.#record('newSession', workspace, model);
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
    this.#record('deleteSession', id);
    this.sessions.delete(id);
    this.events.delete(id);
    this.hub.forget(id);
  }

  async setModel(id: string, model: string): Promise<void> {
    this.#record('setModel', id, model);
    const s = this.sessions.get(id);
    if (s) this.sessions.set(id, { ...s, model });
  }

  async openSession(id: string): Promise<SessionSnapshot> {
    this.#record('openSession', id);
    const summary = this.sessions.get(id);
    if (!summary) throw new BridgeError(`No session ${id}.`, 'openSession');
    return {
      summary: { ...summary },
      events: [...(this.events.get(id) ?? [])],
      approvals: [...this.approvals.values()].filter((a) => a.session_id === id),
    };
  }

  async send(id: string, text: string): Promise<void> {
    this.#record('send', id, text);
    this.onSend?.(id, text);
  }

  async stop(id: string): Promise<void> {
    this.#record('stop', id);
    this.onStop?.(id);
  }

  async answer(approvalId: string, allow: boolean): Promise<void> {
    this.#record('answer', approvalId, allow);
    this.onAnswer?.(approvalId, allow);
  }

  async pickWorkspace(): Promise<string> {
    this.#record('pickWorkspace');
    return this.workspaceToPick;
  }

  async rawRequest(sessionId: string, seq: number): Promise<string> {
    this.#record('rawRequest', sessionId, seq);
    const events = this.events.get(sessionId) ?? [];
    const req = events.find((e) => e.seq === seq);
    if (!req || !isModelRequest(req)) throw new BridgeError(`Event ${seq} is not a model request.`, 'rawRequest');
    const p = req.payload;
    const history = new Set(p.history_seqs ?? []);
    const messages: unknown[] = p.system ? [{ role: 'system', content: p.system }] : [];
    for (const e of events) {
      if (!history.has(e.seq)) continue;
      if (e.kind === 'user_message') messages.push({ role: 'user', content: e.payload.text });
      if (e.kind === 'model_response')
        messages.push({
          role: 'assistant',
          content: e.payload.content,
          ...(e.payload.incomplete || !e.payload.tool_calls?.length
            ? {}
            : {
                tool_calls: e.payload.tool_calls.map((c) => ({
                  id: c.id,
                  function: { index: c.index, name: c.name, arguments: c.args },
                })),
              }),
        });
      if (e.kind === 'tool_result')
        messages.push({ role: 'tool', content: e.payload.content, tool_call_id: e.payload.call_id, tool_name: e.payload.name });
    }
    return JSON.stringify({
      model: p.model,
      messages,
      stream: true,
      tools: (p.tools ?? []).map((t) => ({ type: 'function', function: t })),
      options: p.options,
    });
  }

  async getSettings(): Promise<Settings> {
    this.#record('getSettings');
    return { ...this.settings };
  }

  async saveSettings(s: Settings): Promise<void> {
    this.#record('saveSettings', s);
    this.settings = { ...s };
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
