// Hand-built events for unit specs of the pure timeline functions: each
// event is what the spec says, numbered (seq, run, round) in order. It is
// not an engine: it decides nothing the engine decides (which events a
// request's history holds, what a call returns, how a run ends). Specs of
// what the engine does play its recordings (lib/replay) instead.
import type {
  CheckpointPayload,
  EditPayload,
  EventOf,
  FileChange,
  Kind,
  Metrics,
  ModelRequestPayload,
  ModelResponsePayload,
  PayloadMap,
  Summary,
  ToolCallPayload,
  ToolResultPayload,
  TraceEvent,
} from '../types';

/** A session summary with everything a spec does not care about filled in. */
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
    open_run: 0,
    running: false,
    standing: '',
    stepping: false,
    breakpoints: { points: [], tools: [] },
    pinned: false,
    rounds: 0,
    ...p,
  };
}

export const zeroMetrics: Metrics = {
  prompt_eval_count: 0,
  eval_count: 0,
  total_duration: 0,
  load_duration: 0,
  prompt_eval_duration: 0,
  eval_duration: 0,
  time_to_first_token: 0,
};

export class EventLog {
  readonly events: TraceEvent[] = [];
  run = 0;
  round = 0;
  seq = 0;
  #time: number;

  constructor(
    readonly sessionId = 's1',
    start = Date.UTC(2026, 0, 5, 10, 0, 0),
    readonly stepMs = 350,
  ) {
    this.#time = start;
  }

  add<K extends Kind>(kind: K, payload: PayloadMap[K]): EventOf<K> {
    this.seq++;
    this.#time += this.stepMs;
    const e = {
      session_id: this.sessionId,
      seq: this.seq,
      kind,
      time: new Date(this.#time).toISOString(),
      run: this.run,
      round: this.round,
      payload,
    } as EventOf<K>;
    this.events.push(e as TraceEvent);
    return e;
  }

  user(text: string) {
    this.run++;
    this.round = 0;
    return this.add('user_message', { text });
  }

  /**
   * A model_request. Which events its history holds, and how many messages
   * that makes, are the engine's to decide: give them when a spec needs
   * them (history_seqs, message_count), else the request has none.
   */
  request(p: Partial<ModelRequestPayload> = {}) {
    this.round++;
    return this.add('model_request', {
      model: 'qwen3:0.6b',
      options: { num_ctx: 8192, temperature: 0.2 },
      system: 'You are a coding agent working in the user\'s workspace.',
      tools: [
        { name: 'read_file', description: 'Read a file', parameters: { type: 'object' } },
        { name: 'run_command', description: 'Run a shell command', parameters: { type: 'object' } },
      ],
      history_seqs: [],
      history_added: null,
      message_count: 1,
      prompt_estimate: 420,
      ...p,
    });
  }

  response(p: Partial<ModelResponsePayload> = {}) {
    const req = [...this.events].reverse().find((e) => e.kind === 'model_request');
    return this.add('model_response', {
      request_seq: req?.seq ?? 0,
      content: '',
      done_reason: 'stop',
      incomplete: false,
      metrics: {
        prompt_eval_count: 512,
        eval_count: 64,
        total_duration: 2_400_000_000,
        load_duration: 150_000_000,
        prompt_eval_duration: 400_000_000,
        eval_duration: 1_600_000_000,
        time_to_first_token: 600_000_000,
      },
      chunks: 65,
      ...p,
    });
  }

  toolCall(p: Partial<ToolCallPayload> & { call_id: string; name: string }) {
    return this.add('tool_call', { args: {}, valid: true, read_only: false, ...p });
  }

  permission(call_id: string, tool: string, decision: 'allow' | 'deny', by = 'you', reasons: string[] = []) {
    return this.add('permission', { call_id, tool, decision, by, ...(reasons.length ? { reasons } : {}) });
  }

  /** Files put back (undo of a run, or a restore to before an event), recorded in the current run. */
  restore(p: { to_seq: number; run?: number; restored: string[]; overwritten?: string[]; changes?: FileChange[] }) {
    return this.add('restore', p);
  }

  result(p: Partial<ToolResultPayload> & { call_id: string; name: string }) {
    return this.add('tool_result', {
      content: '',
      is_error: false,
      truncated: false,
      bytes: (p.content ?? '').length,
      duration_ms: 12,
      ...p,
    });
  }

  notice(code: string, message: string) {
    return this.add('notice', { code, message });
  }

  error(code: string, message: string) {
    return this.add('error', { code, message });
  }

  /** A pause (state "paused") or its end (state "resumed" with an action). */
  checkpoint(p: CheckpointPayload) {
    return this.add('checkpoint', p);
  }

  edit(p: EditPayload) {
    return this.add('edit', p);
  }

  end(reason: string, final_text = '', detail = '') {
    return this.add('run_end', {
      reason,
      rounds: this.round,
      ...(final_text ? { final_text } : {}),
      ...(detail ? { detail } : {}),
    });
  }
}
