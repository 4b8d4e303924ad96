// A scripted agent loop for FakeBridge: what the demo runs and what
// component tests drive. It commits the same events as the backend, in the
// same order, and honours step-through: it pauses at the four checkpoints
// when the session is stepping or a breakpoint matches, applies the user's
// edits (system prompt, options, messages, arguments, results), skips a
// call with the user's observation, and stops while paused. It never calls
// a model or runs a tool: replies and results come from the script.
import type {
  CheckpointPoint,
  Display,
  FileChange,
  JsonValue,
  Options,
  Pause,
  PendingMessage,
  PendingRequest,
  PolicyCall,
  ToolResultPayload,
  ToolSpec,
  TraceEvent,
} from '../types';
import { isRecord } from '../types';
import { answeredBy, type FakeBridge, type Resume } from './fake';

export interface FakeCall {
  name: string;
  args: JsonValue;
  /** What the tool answers, from the arguments it really got (edits included). */
  result: string | ((args: JsonValue) => string);
  isError?: boolean;
  exitCode?: number;
  readOnly?: boolean;
  /** Ask the user first (an approval), like a command. */
  ask?: boolean;
  /** Why the policy asks (the approval's and the permission event's reasons). */
  reasons?: string[];
  /** The answer cannot be remembered: the card offers only once. */
  onceOnly?: boolean;
  display?: Display;
  /** The files the call changes, from the arguments it really got: recorded for undo and applied to the fake's files. */
  changes?: FileChange[] | ((args: JsonValue) => FileChange[]);
}

export interface FakeReply {
  content?: string;
  thinking?: string;
  calls?: FakeCall[];
}

export interface ReplyContext {
  text: string;
  run: number;
  round: number;
  /** The results of the previous round, as the model saw them. */
  results: ToolResultPayload[];
}

export interface FakeLoopOptions {
  /** The model's reply for each round; a reply without calls ends the run. */
  reply: (ctx: ReplyContext) => FakeReply;
  /** Pause between steps, in ms (0 in tests). */
  delayMs?: number;
  /** Stream the answer as token deltas, one word per this many ms (0: no deltas). */
  streamMs?: number;
  maxRounds?: number;
  model?: string;
  system?: string;
  options?: Options;
  tools?: ToolSpec[];
}

const defaultTools: ToolSpec[] = [
  { name: 'read_file', description: 'Read a text file of the workspace.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'list_dir', description: 'List a folder of the workspace.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'run_command', description: 'Run a shell command in the workspace.', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
];

interface RunState {
  cancelled: boolean;
  /** Pending sleeps: a stop clears them and lets the run see it was cancelled. */
  timers: Map<ReturnType<typeof setTimeout>, () => void>;
  run: number;
  round: number;
  /** A call that started and has no result yet: backfilled on stop. */
  open?: { callId: string; name: string };
  approval?: { id: string; resolve: (a: { allow: boolean; by: string }) => void };
  system: string;
  options: Options;
}

export class FakeLoop {
  readonly #fake: FakeBridge;
  readonly #opts: FakeLoopOptions;
  readonly #runs = new Map<string, RunState>();
  /** Finishes when the current run of a session ends (for tests). */
  readonly done = new Map<string, Promise<void>>();

  constructor(fake: FakeBridge, opts: FakeLoopOptions) {
    this.#fake = fake;
    this.#opts = opts;
    fake.onSend = (id, text) => {
      this.done.set(id, this.#run(id, text));
    };
    fake.onStop = (id) => this.#stop(id);
    // The bridge has closed the approval (and remembered a longer answer) by now.
    fake.onAnswer = (approvalId, allow, scope) => {
      for (const st of this.#runs.values()) {
        if (st.approval?.id === approvalId) {
          const { resolve } = st.approval;
          st.approval = undefined;
          resolve({ allow, by: answeredBy(scope) });
        }
      }
    };
  }

  #sleep(st: RunState, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        st.timers.delete(t);
        resolve();
      }, ms);
      st.timers.set(t, resolve);
    });
  }

  #events(id: string): TraceEvent[] {
    return this.#fake.events.get(id) ?? [];
  }

  /** The history messages a request would send now, with edits applied. */
  #pending(id: string): { seqs: number[]; messages: PendingMessage[] } {
    const events = this.#events(id);
    const edits = events.flatMap((e) => (e.kind === 'edit' ? [e.payload] : []));
    const seqs: number[] = [];
    const messages: PendingMessage[] = [];
    for (const e of events) {
      let m: PendingMessage | null = null;
      if (e.kind === 'user_message') m = { seq: e.seq, role: 'user', content: e.payload.text };
      else if (e.kind === 'model_response') {
        const calls = e.payload.incomplete ? [] : (e.payload.tool_calls ?? []);
        m = {
          seq: e.seq,
          role: 'assistant',
          content: e.payload.content,
          ...(calls.length
            ? {
                tool_calls: calls.map((c) => {
                  const ed = edits.filter((x) => x.target === 'args' && x.call_id === c.id).at(-1);
                  return ed ? { ...c, args: ed.after } : c;
                }),
              }
            : {}),
        };
      } else if (e.kind === 'tool_result') {
        m = { seq: e.seq, role: 'tool', content: e.payload.content, tool_call_id: e.payload.call_id, tool_name: e.payload.name };
        const ed = edits.filter((x) => x.target === 'result' && x.call_id === e.payload.call_id).at(-1);
        if (ed && typeof ed.after === 'string') m.content = ed.after;
      }
      if (!m) continue;
      const ed = edits.filter((x) => x.target === 'message' && x.seq === e.seq).at(-1);
      if (ed && typeof ed.after === 'string') m.content = ed.after;
      seqs.push(e.seq);
      messages.push(m);
    }
    return { seqs, messages };
  }

  /** Pauses when the session wants to; resolves to how the pause ended, or null when it did not pause. */
  async #gate(id: string, st: RunState, pause: Omit<Pause, 'run' | 'round'> & { point: CheckpointPoint }): Promise<Resume | null> {
    const { pause: should, breakpoint } = this.#fake.shouldPause(id, pause.point, pause.tool ?? '');
    if (!should) return null;
    return this.#fake.pause(id, { ...pause, run: st.run, round: st.round }, breakpoint);
  }

  async #run(id: string, text: string): Promise<void> {
    const fake = this.#fake;
    const o = this.#opts;
    const delay = o.delayMs ?? 0;
    const run = Math.max(0, ...this.#events(id).map((e) => e.run)) + 1;
    const st: RunState = {
      cancelled: false,
      timers: new Map(),
      run,
      round: 0,
      system: o.system ?? 'You are a coding agent working in the user\u2019s workspace. Use the tools to look before you answer.',
      options: o.options ?? { num_ctx: 8192, temperature: 0.2 },
    };
    this.#runs.set(id, st);
    fake.updateSession(id, { running: true, paused: null });
    fake.commit(id, 'user_message', { text }, run, 0);
    const tools = o.tools ?? defaultTools;
    let results: ToolResultPayload[] = [];

    for (let round = 1; round <= (o.maxRounds ?? 10); round++) {
      st.round = round;
      // Before the request: it is built, and can still be changed.
      let pending = this.#pending(id);
      const request: PendingRequest = {
        model: o.model ?? 'qwen3:0.6b',
        system: st.system,
        options: { ...st.options },
        tools: tools.map((t) => t.name),
        messages: pending.messages,
      };
      const r0 = await this.#gate(id, st, { point: 'before_request', request });
      if (st.cancelled) return;
      if (r0?.pause?.request) {
        st.system = r0.pause.request.system;
        st.options = { ...r0.pause.request.options };
      }
      pending = this.#pending(id);
      const size = st.system.length + JSON.stringify(pending.messages).length + JSON.stringify(tools).length;
      const req = fake.commit(
        id,
        'model_request',
        {
          model: request.model,
          options: { ...st.options },
          system: st.system,
          tools,
          history_seqs: pending.seqs,
          message_count: pending.seqs.length + (st.system ? 1 : 0),
          prompt_estimate: Math.round(size / 4),
        },
        run,
        round,
      );

      const reply = o.reply({ text, run, round, results });
      const calls = reply.calls ?? [];
      if (o.streamMs) {
        for (const [field, textOf] of [
          ['thinking', reply.thinking ?? ''],
          ['content', reply.content ?? ''],
        ] as const) {
          for (const w of textOf.split(/(?<= )/).filter(Boolean)) {
            await this.#sleep(st, o.streamMs);
            if (st.cancelled) return;
            fake.emitDelta({ session_id: id, run, round, content: field === 'content' ? w : '', thinking: field === 'thinking' ? w : '' });
          }
        }
      }
      await this.#sleep(st, delay);
      if (st.cancelled) return;
      const resp = fake.commit(
        id,
        'model_response',
        {
          request_seq: req.seq,
          content: reply.content ?? '',
          ...(reply.thinking ? { thinking: reply.thinking } : {}),
          tool_calls: calls.map((c, i) => ({ id: `call_${req.seq}_${i}`, index: i, name: c.name, args: c.args })),
          done_reason: 'stop',
          incomplete: false,
          metrics: {
            prompt_eval_count: Math.round(size / 3.6),
            eval_count: 40 + 10 * calls.length,
            total_duration: 1_800_000_000,
            load_duration: 30_000_000,
            prompt_eval_duration: 400_000_000,
            eval_duration: 1_300_000_000,
            time_to_first_token: 450_000_000,
          },
          chunks: 40,
        },
        run,
        round,
      );

      // After the answer: nothing has run yet.
      await this.#gate(id, st, { point: 'after_response' });
      if (st.cancelled) return;
      if (calls.length === 0) {
        this.#end(id, st, 'answered', reply.content ?? '');
        return;
      }

      results = [];
      for (const [i, c] of calls.entries()) {
        const callId = `call_${req.seq}_${i}`;
        const problem = fake.checkArgs(c.name, c.args);
        st.open = { callId, name: c.name };
        fake.commit(
          id,
          'tool_call',
          {
            call_id: callId,
            name: c.name,
            args: c.args,
            valid: problem === '',
            ...(problem ? { error_kind: 'invalid_args', problem } : {}),
            read_only: c.readOnly ?? false,
          },
          run,
          round,
        );
        if (problem) {
          results.push(this.#result(id, st, { call_id: callId, name: c.name, content: problem, is_error: true, error_kind: 'invalid_args' }));
          continue;
        }
        // Before the call: its arguments can change, or it can be skipped.
        const r1 = await this.#gate(id, st, { point: 'before_tool', call_id: callId, tool: c.name, args: c.args });
        if (st.cancelled) return;
        if (r1?.action === 'skip') {
          results.push(
            this.#result(id, st, { call_id: callId, name: c.name, content: r1.observation ?? '', is_error: false, error_kind: 'skipped' }),
          );
          continue;
        }
        const args = r1?.pause?.args ?? c.args;

        let allow = true;
        let by = c.readOnly ? 'rule: reads run without asking' : 'auto mode';
        const call = policyCall(c.name, args, c.readOnly ?? false);
        const grant = c.ask && !c.onceOnly ? fake.grantFor(id, call) : undefined;
        if (grant) {
          allow = grant.rule.effect === 'allow';
          by = answeredBy(grant.scope === 'workspace' ? 'workspace' : 'session');
        } else if (c.ask) {
          const approvalId = `ap-${callId}`;
          const answer = new Promise<{ allow: boolean; by: string }>((resolve) => (st.approval = { id: approvalId, resolve }));
          fake.emitApproval({
            id: approvalId,
            session_id: id,
            call_id: callId,
            tool: c.name,
            args,
            display: c.display ?? null,
            summary: c.name === 'run_command' ? 'Run a shell command in the workspace' : `Run ${c.name}`,
            call,
            ...(c.reasons?.length ? { reasons: c.reasons } : {}),
            ...(c.onceOnly ? { once_only: true } : {}),
          });
          ({ allow, by } = await answer);
          if (st.cancelled) return;
        }
        fake.commit(
          id,
          'permission',
          { call_id: callId, tool: c.name, decision: allow ? 'allow' : 'deny', by, ...(c.ask && c.reasons?.length ? { reasons: c.reasons } : {}) },
          run,
          round,
        );
        if (!allow) {
          results.push(this.#result(id, st, { call_id: callId, name: c.name, content: 'The user denied this call.', is_error: true, error_kind: 'denied' }));
          continue;
        }
        await this.#sleep(st, delay);
        if (st.cancelled) return;
        const content = typeof c.result === 'function' ? c.result(args) : c.result;
        const changes = typeof c.changes === 'function' ? c.changes(args) : (c.changes ?? []);
        const files = fake.filesOf(fake.sessions.get(id)?.workspace ?? '');
        for (const ch of changes) files.set(ch.path, ch.after);
        const res = this.#result(id, st, {
          call_id: callId,
          name: c.name,
          content,
          is_error: c.isError ?? false,
          ...(c.isError ? { error_kind: 'failed' } : {}),
          ...(c.exitCode != null ? { exit_code: c.exitCode } : {}),
          ...(c.display ? { display: c.display } : {}),
          ...(changes.length ? { changes } : {}),
          duration_ms: 3 + content.length % 40,
        });
        // After the result: it can change before the model sees it.
        const r2 = await this.#gate(id, st, { point: 'after_result', call_id: callId, tool: c.name, result: res });
        if (st.cancelled) return;
        results.push(r2?.pause?.result ?? res);
      }
    }
    fake.commit(id, 'notice', { code: 'round_cap', message: `stopped after ${o.maxRounds ?? 10} rounds` }, run, st.round);
    this.#end(id, st, 'round_cap', '');
  }

  #result(id: string, st: RunState, p: Partial<ToolResultPayload> & { call_id: string; name: string; content: string }): ToolResultPayload {
    const payload: ToolResultPayload = { is_error: false, truncated: false, bytes: p.content.length, duration_ms: 0, ...p };
    this.#fake.commit(id, 'tool_result', payload, st.run, st.round);
    st.open = undefined;
    return payload;
  }

  #end(id: string, st: RunState, reason: string, finalText: string): void {
    this.#fake.commit(id, 'run_end', { reason, rounds: st.round, ...(finalText ? { final_text: finalText } : {}) }, st.run, st.round);
    this.#fake.updateSession(id, { running: false, paused: null, last_reason: reason });
    this.#runs.delete(id);
  }

  #stop(id: string): void {
    const st = this.#runs.get(id);
    if (!st || st.cancelled) return;
    st.cancelled = true;
    for (const [t, wake] of st.timers) {
      clearTimeout(t);
      wake();
    }
    st.timers.clear();
    if (st.approval) {
      this.#fake.emitApprovalClosed({ id: st.approval.id, decision: 'cancelled' });
      st.approval.resolve({ allow: false, by: '' });
      st.approval = undefined;
    }
    if (st.open) {
      this.#result(id, st, { call_id: st.open.callId, name: st.open.name, content: 'Cancelled by the user.', is_error: true, error_kind: 'cancelled' });
    }
    this.#end(id, st, 'cancelled', '');
  }
}

/** permission.CallFor: the tool's own path or command argument, nothing else the model sent. */
export function policyCall(tool: string, args: JsonValue, readOnly: boolean): PolicyCall {
  const c: PolicyCall = { tool, read_only: readOnly };
  if (tool === 'run_command') c.command = argOf(args, 'command');
  else if (tool === 'glob') c.paths = [argOf(args, 'pattern') || '.'];
  else if (['read_file', 'write_file', 'edit_file', 'list_dir', 'grep'].includes(tool)) c.paths = [argOf(args, 'path') || '.'];
  return c;
}

/** A text argument of a call's arguments, for scripts. */
export function argOf(args: JsonValue, key: string): string {
  return isRecord(args) && typeof args[key] === 'string' ? (args[key] as string) : '';
}
