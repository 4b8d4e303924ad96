// Step-through in FakeBridge, as the backend's loop does it: a fake run
// pauses at a checkpoint (pause), and Step, Continue, SkipCall or Stop ends
// the pause; while paused the user's edits to the request, the arguments
// or the result are checked, committed as edit events, and rawRequest
// rebuilds a request's body with them applied.
import {
  isModelRequest,
  isRecord,
  type Breakpoints,
  type CheckpointPoint,
  type EditPayload,
  type JsonValue,
  type Pause,
  type RequestEdit,
} from '../types';
import { FakeSafety } from './fakesafety';
import { BridgeError } from './types';

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

export class FakeStepping extends FakeSafety {
  /** Checks edited arguments; returns the problem or "". Defaults to the built-in tools' schemas. */
  checkArgs: (tool: string, args: unknown) => string = checkBuiltinArgs;
  /** Fake runs waiting at a pause, by session. */
  #waiting = new Map<string, (r: Resume) => void>();

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

  async stop(id: string): Promise<void> {
    this.record('stop', id);
    // Stop while paused cancels the run: the pause ends without a resumed event.
    if (this.sessions.get(id)?.paused) this.#resume(id, { action: 'stop' });
    this.onStop?.(id);
  }

  async rawRequest(sessionId: string, seq: number): Promise<string> {
    this.record('rawRequest', sessionId, seq);
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
    this.record('setStepping', id, on);
    if (!this.sessions.has(id)) throw new BridgeError(`No session ${id}.`, 'setStepping');
    this.updateSession(id, { stepping: on });
  }

  async setBreakpoints(id: string, bp: Breakpoints): Promise<void> {
    this.record('setBreakpoints', id, bp);
    if (!this.sessions.has(id)) throw new BridgeError(`No session ${id}.`, 'setBreakpoints');
    this.updateSession(id, { breakpoints: { points: [...(bp.points ?? [])], tools: [...(bp.tools ?? [])] } });
  }

  async step(id: string): Promise<void> {
    this.record('step', id);
    this.#pausedAt(id, 'step');
    this.#resume(id, { action: 'step' });
  }

  async continueRun(id: string): Promise<void> {
    this.record('continueRun', id);
    this.#pausedAt(id, 'continueRun');
    this.#resume(id, { action: 'continue' });
  }

  async editRequest(id: string, edit: RequestEdit): Promise<void> {
    this.record('editRequest', id, edit);
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
    this.record('editArgs', id, args);
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
    this.record('skipCall', id, observation);
    this.#pausedAt(id, 'skipCall', 'before_tool');
    this.#resume(id, { action: 'skip', observation });
  }

  async editResult(id: string, content: string): Promise<void> {
    this.record('editResult', id, content);
    const p = this.#pausedAt(id, 'editResult', 'after_result');
    if (!p.result) throw new BridgeError('The pending result is not known.', 'editResult');
    if (content === p.result.content) return;
    this.#edit(id, p, { target: 'result', call_id: p.call_id ?? p.result.call_id, before: p.result.content, after: content });
    this.updateSession(id, { paused: { ...p, result: { ...p.result, content } } });
  }
}
