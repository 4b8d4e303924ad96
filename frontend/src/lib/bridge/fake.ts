// An in-memory Bridge for tests and for the demo that runs when the page
// is opened outside a Wails window. It keeps sessions, events and approvals
// like the backend does and records every command it was given.
import { checkRule, planRestore, RUN_COMMAND } from '../safety';
import {
  isModelRequest,
  isRecord,
  PERMISSION_MODES,
  TOOL_SETTINGS,
  type Approval,
  type ApprovalClosed,
  type Breakpoints,
  type CheckpointPoint,
  type Delta,
  type EditPayload,
  type EventOf,
  type Grant,
  type JsonValue,
  type Kind,
  type ModelInfo,
  type Pause,
  type PayloadMap,
  type PolicyCall,
  type Protections,
  type RequestEdit,
  type RestoreResult,
  type Scope,
  type SessionSnapshot,
  type Settings,
  type StatusInfo,
  type Summary,
  type TraceEvent,
  type WorkspaceInfo,
  type WorkspaceSettings,
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

/** What a Linux machine with Landlock ABI 6 and user namespaces offers: everything. */
export function sandboxedProtections(): Protections {
  return {
    LandlockABI: 6,
    Writes: { Name: 'Writes', Active: true, Detail: 'only the workspace and a temporary directory are writable (Landlock ABI 6)' },
    Network: { Name: 'Network', Active: true, Detail: 'blocked: a network namespace with only a loopback interface' },
    Processes: { Name: 'Processes', Active: true, Detail: 'a PID namespace: nothing a command starts outlives it' },
    Secrets: { Name: 'Secrets', Active: true, Detail: 'credential stores and desktop sockets hidden; environment scrubbed' },
    Limits: { Name: 'Limits', Active: true, Detail: 'file size 1 GiB, 2048 processes, no core dumps' },
  };
}

/** A kernel without Landlock or user namespaces: nothing confines commands. */
export function unconfinedProtections(why = 'Landlock is not available (the kernel does not support it)'): Protections {
  return {
    LandlockABI: 0,
    Writes: { Name: 'Writes', Active: false, Detail: why },
    Network: { Name: 'Network', Active: false, Detail: 'no network namespace and no Landlock network rules' },
    Processes: { Name: 'Processes', Active: false, Detail: 'no PID namespace: user namespaces are disabled' },
    Secrets: { Name: 'Secrets', Active: false, Detail: 'no mount namespace; only the environment is scrubbed' },
    Limits: { Name: 'Limits', Active: true, Detail: 'file size 1 GiB, no core dumps' },
  };
}

/** A workspace folder as the fake backend keeps it. */
export interface FakeWorkspace {
  /** What .loupe/settings.json holds; null when there is none. */
  file: WorkspaceSettings | null;
  /** Why the file is ignored (it does not parse…). */
  fileError?: string;
  /** Changes whenever the file does: trust is tied to it. */
  digest: string;
  trustedDigest: string;
  allowNetwork: boolean;
  grants: Grant[];
}

const scopeBy: Record<Scope, string> = { once: 'you', session: 'you (for this session)', workspace: 'you (always for this workspace)' };

/** The name an answer of this scope gives in "Allowed by …". */
export function answeredBy(scope: Scope): string {
  return scopeBy[scope];
}

function escapeGlob(p: string): string {
  return p.replace(/[*?[\]{}\\]/g, (c) => `\\${c}`);
}

/** permission.GrantFor: the grant that remembers an answer about a call. */
export function grantFor(c: PolicyCall, allow: boolean, scope: Scope): Grant {
  if (scope !== 'session' && scope !== 'workspace') throw new Error(`permission: a "${scope}" answer is not remembered`);
  const rule: Grant['rule'] = { effect: allow ? 'allow' : 'deny', tool: c.tool };
  const paths = c.paths ?? [];
  if (c.tool === RUN_COMMAND) {
    if (!(c.command ?? '').trim()) throw new Error('permission: cannot remember an empty command');
    rule.command_line = c.command;
  } else if (paths.length > 1) {
    throw new Error('permission: cannot remember a call with several paths');
  } else if (paths.length === 1) {
    rule.path = `/${escapeGlob(paths[0]!)}`;
  }
  return { rule, scope };
}

/** Whether a remembered grant covers a call (the exact command line, path or tool it names). */
export function grantCovers(g: Grant, c: PolicyCall): boolean {
  const r = g.rule;
  if (r.tool && r.tool !== c.tool) return false;
  if (r.command_line) return c.tool === RUN_COMMAND && (c.command ?? '').trim() === r.command_line.trim();
  if (r.path) return (c.paths ?? []).length === 1 && r.path === `/${escapeGlob(c.paths![0]!)}`;
  return !r.command;
}

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

/** How a fake run's pause ended: what the loop script does next. */
export interface Resume {
  action: 'step' | 'continue' | 'skip' | 'stop';
  /** The observation the user wrote, for skip. */
  observation?: string;
  /** The pause as it was when it ended, with the user's edits. */
  pause?: Pause;
}

/** Argument schemas of the built-in tools, enough to check edited arguments like the backend. */
const builtinSchemas: Record<string, { props: Record<string, 'string' | 'integer' | 'boolean'>; required: string[] }> = {
  read_file: { props: { path: 'string', offset: 'integer', limit: 'integer' }, required: ['path'] },
  write_file: { props: { path: 'string', content: 'string' }, required: ['path', 'content'] },
  edit_file: { props: { path: 'string', old_string: 'string', new_string: 'string', replace_all: 'boolean' }, required: ['path', 'old_string', 'new_string'] },
  list_dir: { props: { path: 'string' }, required: ['path'] },
  glob: { props: { pattern: 'string' }, required: ['pattern'] },
  grep: { props: { pattern: 'string', path: 'string', include: 'string' }, required: ['pattern'] },
  run_command: { props: { command: 'string', timeout_ms: 'integer' }, required: ['command'] },
};

/**
 * Checks arguments against a built-in tool's schema, with the backend's
 * wording. Returns the problem, or "" when they fit (or the tool is not
 * built in).
 */
export function checkBuiltinArgs(tool: string, args: unknown): string {
  const schema = builtinSchemas[tool];
  if (!schema) return '';
  const signature = `{${Object.entries(schema.props)
    .map(([k, t]) => `${k}${schema.required.includes(k) ? '' : '?'}: ${t}`)
    .join(', ')}}`;
  const problems: string[] = [];
  if (!isRecord(args)) {
    problems.push(`the arguments must be a JSON object, not ${Array.isArray(args) ? 'an array' : typeof args}`);
  } else {
    for (const k of schema.required) if (!(k in args)) problems.push(`missing required property "${k}"`);
    for (const [k, t] of Object.entries(schema.props)) {
      const v = args[k];
      if (v === undefined || v === null) continue;
      const fits = t === 'integer' ? Number.isInteger(v) : typeof v === t;
      if (!fits) problems.push(`"${k}" must be a${t === 'integer' ? 'n' : ''} ${t}, got ${JSON.stringify(v)}`);
    }
  }
  return problems.length ? `invalid arguments for ${tool}: ${problems.join(', ')}; expected ${signature}` : '';
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
  /** Called after an answer was accepted (the approval is closed by then). */
  onAnswer?: (approvalId: string, allow: boolean, scope: Scope) => void;
  /** What Protections returns. */
  protectionsInfo: Protections;
  /** Workspace folders by path; one is made on first use. */
  readonly workspaces = new Map<string, FakeWorkspace>();
  /**
   * Files of each workspace folder as tools and restores left them (null:
   * removed). A file not listed is taken to be as Loupe last left it; set
   * one to simulate a change outside Loupe.
   */
  readonly files = new Map<string, Map<string, string | null>>();
  /** Answers remembered "for this session", by session. */
  readonly sessionGrants = new Map<string, Grant[]>();
  /** Checks edited arguments; returns the problem or "". Defaults to the built-in tools' schemas. */
  checkArgs: (tool: string, args: unknown) => string = checkBuiltinArgs;
  /** Opened links, for tests. */
  readonly opened: string[] = [];
  #nextId = 1;
  /** Fake runs waiting at a pause, by session. */
  #waiting = new Map<string, (r: Resume) => void>();

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
    this.protectionsInfo = opts.protections ?? sandboxedProtections();
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

  /**
   * Whether a run at this checkpoint pauses, by the session's stepping and
   * breakpoints (the backend's rule); breakpoint says a breakpoint did it.
   */
  shouldPause(id: string, point: CheckpointPoint, tool = ''): { pause: boolean; breakpoint: boolean } {
    const s = this.sessions.get(id);
    if (!s) return { pause: false, breakpoint: false };
    const bp =
      (s.breakpoints.points ?? []).includes(point) || (point === 'before_tool' && tool !== '' && (s.breakpoints.tools ?? []).includes(tool));
    return { pause: s.stepping || bp, breakpoint: !s.stepping && bp };
  }

  /**
   * Pauses a fake run: commits the paused checkpoint, puts the pause in the
   * session's Summary, and resolves when Step, Continue, SkipCall or Stop
   * ends it.
   */
  pause(id: string, pause: Pause, breakpoint = false): Promise<Resume> {
    this.commit(
      id,
      'checkpoint',
      {
        point: pause.point,
        state: 'paused',
        ...(pause.call_id ? { call_id: pause.call_id } : {}),
        ...(pause.tool ? { tool: pause.tool } : {}),
        ...(breakpoint ? { breakpoint } : {}),
      },
      pause.run,
      pause.round,
    );
    this.updateSession(id, { paused: pause });
    return new Promise((resolve) => this.#waiting.set(id, resolve));
  }

  /** The pause of a session, or a BridgeError saying it is not paused there. */
  #pausedAt(id: string, method: string, point?: CheckpointPoint): Pause {
    // A pause with no fake run behind it (a session reopened paused) can
    // still be resumed: only its events change.
    const p = this.sessions.get(id)?.paused;
    if (!p) throw new BridgeError('This session is not paused.', method);
    if (point && p.point !== point) throw new BridgeError(`The run is paused at ${p.point}, not ${point}.`, method);
    return p;
  }

  #resume(id: string, r: Resume): void {
    const p = this.sessions.get(id)?.paused;
    const done = this.#waiting.get(id);
    this.#waiting.delete(id);
    if (p && r.action !== 'stop') {
      this.commit(
        id,
        'checkpoint',
        {
          point: p.point,
          state: 'resumed',
          ...(p.call_id ? { call_id: p.call_id } : {}),
          ...(p.tool ? { tool: p.tool } : {}),
          action: r.action,
        },
        p.run,
        p.round,
      );
    }
    this.updateSession(id, { paused: null, ...(r.action === 'continue' ? { stepping: false } : {}) });
    done?.({ ...r, ...(p ? { pause: p } : {}) });
  }

  #edit(id: string, p: Pause, edit: EditPayload): void {
    this.commit(id, 'edit', edit, p.run, p.round);
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
    // Stop while paused cancels the run: the pause ends without a resumed event.
    if (this.sessions.get(id)?.paused) this.#resume(id, { action: 'stop' });
    this.onStop?.(id);
  }

  async answer(approvalId: string, allow: boolean): Promise<void> {
    this.#record('answer', approvalId, allow);
    this.#reply(approvalId, allow, 'once', 'answer');
  }

  async answerFor(approvalId: string, allow: boolean, scope: Scope): Promise<void> {
    this.#record('answerFor', approvalId, allow, scope);
    this.#reply(approvalId, allow, scope, 'answerFor');
  }

  /** permission.Broker.Reply: first answer wins; a longer scope needs a call and must not be once_only. */
  #reply(approvalId: string, allow: boolean, scope: Scope, method: string): void {
    if (scope !== 'once' && scope !== 'session' && scope !== 'workspace') {
      throw new BridgeError(`permission: unknown scope "${String(scope)}" (use once, session or workspace)`, method);
    }
    const a = this.approvals.get(approvalId);
    if (!a) throw new BridgeError('permission: no such pending request (already answered or the run stopped)', method);
    if (scope !== 'once') {
      if (a.once_only) throw new BridgeError('permission: this can only be answered for this call (it touches something protected)', method);
      if (!a.call) throw new BridgeError('permission: this question cannot be remembered (it does not say which call it is about)', method);
      let g: Grant;
      try {
        g = grantFor(a.call, allow, scope);
      } catch (e) {
        throw new BridgeError(e instanceof Error ? e.message : String(e), method);
      }
      if (scope === 'session') this.sessionGrants.set(a.session_id, [...(this.sessionGrants.get(a.session_id) ?? []), g]);
      else {
        const ws = this.#workspace(this.sessions.get(a.session_id)?.workspace ?? '');
        ws.grants = [...ws.grants, g];
      }
    }
    this.emitApprovalClosed({ id: approvalId, decision: allow ? 'allow' : 'deny' });
    this.onAnswer?.(approvalId, allow, scope);
  }

  /** The remembered answer that covers a call of this session, if any (session grants first). */
  grantFor(sessionId: string, c: PolicyCall): Grant | undefined {
    const ws = this.workspaces.get(this.sessions.get(sessionId)?.workspace ?? '');
    return [...(this.sessionGrants.get(sessionId) ?? []), ...(ws?.grants ?? [])].find((g) => grantCovers(g, c));
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
    // The user's edits up to this request, applied in log order (trace.Project).
    const edits = events.flatMap((e) => (e.seq < seq && e.kind === 'edit' ? [e.payload] : []));
    const edited = (content: string, match: (ed: EditPayload) => boolean): string => {
      let c = content;
      for (const ed of edits) if (match(ed) && typeof ed.after === 'string') c = ed.after;
      return c;
    };
    const args = (callId: string, a: JsonValue): JsonValue => {
      let v = a;
      for (const ed of edits) if (ed.target === 'args' && ed.call_id === callId) v = ed.after;
      return v;
    };
    for (const e of events) {
      if (!history.has(e.seq)) continue;
      const byMessage = (ed: EditPayload) => ed.target === 'message' && ed.seq === e.seq;
      if (e.kind === 'user_message') messages.push({ role: 'user', content: edited(e.payload.text, byMessage) });
      if (e.kind === 'model_response')
        messages.push({
          role: 'assistant',
          content: edited(e.payload.content, byMessage),
          ...(e.payload.incomplete || !e.payload.tool_calls?.length
            ? {}
            : {
                tool_calls: e.payload.tool_calls.map((c) => ({
                  id: c.id,
                  function: { index: c.index, name: c.name, arguments: args(c.id, c.args) },
                })),
              }),
        });
      if (e.kind === 'tool_result') {
        const callId = e.payload.call_id;
        const content = edited(e.payload.content, (ed) => byMessage(ed) || (ed.target === 'result' && ed.call_id === callId));
        messages.push({ role: 'tool', content, tool_call_id: callId, tool_name: e.payload.name });
      }
    }
    return JSON.stringify({
      model: p.model,
      messages,
      stream: true,
      tools: (p.tools ?? []).map((t) => ({ type: 'function', function: t })),
      options: p.options,
    });
  }

  async setStepping(id: string, on: boolean): Promise<void> {
    this.#record('setStepping', id, on);
    if (!this.sessions.has(id)) throw new BridgeError(`No session ${id}.`, 'setStepping');
    this.updateSession(id, { stepping: on });
  }

  async setBreakpoints(id: string, bp: Breakpoints): Promise<void> {
    this.#record('setBreakpoints', id, bp);
    if (!this.sessions.has(id)) throw new BridgeError(`No session ${id}.`, 'setBreakpoints');
    this.updateSession(id, { breakpoints: { points: [...(bp.points ?? [])], tools: [...(bp.tools ?? [])] } });
  }

  async step(id: string): Promise<void> {
    this.#record('step', id);
    this.#pausedAt(id, 'step');
    this.#resume(id, { action: 'step' });
  }

  async continueRun(id: string): Promise<void> {
    this.#record('continueRun', id);
    this.#pausedAt(id, 'continueRun');
    this.#resume(id, { action: 'continue' });
  }

  async editRequest(id: string, edit: RequestEdit): Promise<void> {
    this.#record('editRequest', id, edit);
    const p = this.#pausedAt(id, 'editRequest', 'before_request');
    const req = p.request;
    if (!req) throw new BridgeError('The pending request is not known.', 'editRequest');
    const messages = [...(req.messages ?? [])];
    for (const m of edit.messages ?? []) {
      if (!messages.some((x) => x.seq === m.seq)) throw new BridgeError(`The pending request has no message from event ${m.seq}.`, 'editRequest');
    }
    const next = { ...req, messages };
    if (edit.system != null && edit.system !== req.system) {
      this.#edit(id, p, { target: 'system', before: req.system, after: edit.system });
      next.system = edit.system;
    }
    if (edit.options && JSON.stringify(edit.options) !== JSON.stringify(req.options)) {
      const o = edit.options;
      if (o.num_ctx < 256 || o.temperature < 0 || o.temperature > 2) {
        throw new BridgeError('options not changed: num_ctx must be at least 256 and temperature between 0 and 2', 'editRequest');
      }
      this.#edit(id, p, { target: 'options', before: { ...req.options }, after: { ...edit.options } });
      next.options = { ...edit.options };
    }
    for (const m of edit.messages ?? []) {
      const i = messages.findIndex((x) => x.seq === m.seq);
      const old = messages[i]!;
      if (old.content === m.content) continue;
      this.#edit(id, p, { target: 'message', seq: m.seq, before: old.content, after: m.content });
      messages[i] = { ...old, content: m.content };
    }
    this.updateSession(id, { paused: { ...p, request: next } });
  }

  async editArgs(id: string, args: string): Promise<void> {
    this.#record('editArgs', id, args);
    const p = this.#pausedAt(id, 'editArgs', 'before_tool');
    let v: unknown;
    try {
      v = JSON.parse(args);
    } catch (e) {
      throw new BridgeError(`invalid arguments for ${p.tool}: the arguments are not valid JSON (${e instanceof Error ? e.message : String(e)})`, 'editArgs');
    }
    const problem = isRecord(v) ? this.checkArgs(p.tool ?? '', v) : `invalid arguments for ${p.tool}: the arguments must be a JSON object`;
    if (problem) throw new BridgeError(problem, 'editArgs');
    this.#edit(id, p, { target: 'args', call_id: p.call_id ?? '', before: p.args ?? null, after: v as JsonValue });
    this.updateSession(id, { paused: { ...p, args: v as JsonValue } });
  }

  async skipCall(id: string, observation: string): Promise<void> {
    this.#record('skipCall', id, observation);
    this.#pausedAt(id, 'skipCall', 'before_tool');
    this.#resume(id, { action: 'skip', observation });
  }

  async editResult(id: string, content: string): Promise<void> {
    this.#record('editResult', id, content);
    const p = this.#pausedAt(id, 'editResult', 'after_result');
    if (!p.result) throw new BridgeError('The pending result is not known.', 'editResult');
    if (content === p.result.content) return;
    this.#edit(id, p, { target: 'result', call_id: p.call_id ?? p.result.call_id, before: p.result.content, after: content });
    this.updateSession(id, { paused: { ...p, result: { ...p.result, content } } });
  }

  async getSettings(): Promise<Settings> {
    this.#record('getSettings');
    return { ...this.settings };
  }

  async saveSettings(s: Settings): Promise<void> {
    this.#record('saveSettings', s);
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

  // --- safety ----------------------------------------------------------------

  #workspace(dir: string): FakeWorkspace {
    let ws = this.workspaces.get(dir);
    if (!ws) {
      ws = { file: null, digest: '', trustedDigest: '', allowNetwork: false, grants: [] };
      this.workspaces.set(dir, ws);
    }
    return ws;
  }

  /** Writes (or removes, with null) a workspace's .loupe/settings.json: a changed file needs trusting again. */
  setWorkspaceFile(dir: string, file: WorkspaceSettings | null, error = ''): void {
    const ws = this.#workspace(dir);
    ws.file = file;
    ws.fileError = error || undefined;
    ws.digest = file || error ? `sha-${JSON.stringify(file)}-${error}` : '';
  }

  #checkDir(dir: string, method: string): string {
    if (!dir.startsWith('/')) throw new BridgeError(`workspace ${dir}: not an absolute path`, method);
    return dir.replace(/\/+$/, '') || '/';
  }

  async workspace(dir: string): Promise<WorkspaceInfo> {
    this.#record('workspace', dir);
    const abs = this.#checkDir(dir, 'workspace');
    const ws = this.#workspace(abs);
    const info: WorkspaceInfo = {
      dir: abs,
      trusted: false,
      has_settings: ws.file != null || ws.fileError != null,
      settings: {},
      allow_network: ws.allowNetwork,
      grants: ws.grants.map((g) => ({ ...g, rule: { ...g.rule } })),
    };
    if (ws.fileError) info.settings_error = `workspace settings .loupe/settings.json ignored: ${ws.fileError}`;
    else if (ws.file) {
      info.settings = { rules: [...(ws.file.rules ?? [])], commands: [...(ws.file.commands ?? [])], ...(ws.file.host ? { host: ws.file.host } : {}), allow_network: ws.file.allow_network ?? false };
      info.trusted = ws.trustedDigest !== '' && ws.trustedDigest === ws.digest;
    }
    return info;
  }

  async trustWorkspace(dir: string, trust: boolean): Promise<void> {
    this.#record('trustWorkspace', dir, trust);
    const ws = this.#workspace(this.#checkDir(dir, 'trustWorkspace'));
    if (trust && ws.fileError) throw new BridgeError(`cannot trust it: workspace settings .loupe/settings.json ignored: ${ws.fileError}`, 'trustWorkspace');
    ws.trustedDigest = trust ? ws.digest : '';
  }

  async setWorkspaceNetwork(dir: string, allow: boolean): Promise<void> {
    this.#record('setWorkspaceNetwork', dir, allow);
    this.#workspace(this.#checkDir(dir, 'setWorkspaceNetwork')).allowNetwork = allow;
  }

  async forgetGrants(dir: string): Promise<void> {
    this.#record('forgetGrants', dir);
    this.#workspace(this.#checkDir(dir, 'forgetGrants')).grants = [];
  }

  async protections(): Promise<Protections> {
    this.#record('protections');
    return structuredClone(this.protectionsInfo);
  }

  /** A workspace's files as the fake knows them. */
  filesOf(dir: string): Map<string, string | null> {
    let m = this.files.get(dir);
    if (!m) {
      m = new Map();
      this.files.set(dir, m);
    }
    return m;
  }

  async restoreFiles(id: string, seq: number, force: boolean): Promise<RestoreResult> {
    this.#record('restoreFiles', id, seq, force);
    return this.#restore(id, seq, 0, force, 'restoreFiles');
  }

  async undoRun(id: string, run: number, force: boolean): Promise<RestoreResult> {
    this.#record('undoRun', id, run, force);
    const first = (this.events.get(id) ?? []).find((e) => e.run === run);
    if (!first) throw new BridgeError(`session ${id} has no run ${run}`, 'undoRun');
    return this.#restore(id, first.seq, run, force, 'undoRun');
  }

  /** session.restore: put the files back, or report the conflicts and write nothing. */
  #restore(id: string, toSeq: number, run: number, force: boolean, method: string): RestoreResult {
    const s = this.sessions.get(id);
    if (!s) throw new BridgeError(`No session ${id}.`, method);
    if (s.running || s.paused) throw new BridgeError('stop the run before restoring files', method);
    const events = this.events.get(id) ?? [];
    const files = this.filesOf(s.workspace);
    const plan = planRestore(events, toSeq, (p) => (files.has(p) ? files.get(p)! : undefined));
    if (plan.conflicts.length > 0 && !force) return { done: false, restored: [], conflicts: plan.conflicts };
    for (const w of plan.writes) files.set(w.path, w.content);
    this.commit(
      id,
      'restore',
      {
        to_seq: toSeq,
        ...(run ? { run } : {}),
        restored: plan.paths,
        ...(plan.conflicts.length ? { overwritten: plan.conflicts.map((c) => c.path) } : {}),
        ...(plan.changes.length ? { changes: plan.changes } : {}),
      },
      events.at(-1)?.run ?? 0,
      0,
    );
    return { done: true, restored: plan.paths, conflicts: plan.conflicts };
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
