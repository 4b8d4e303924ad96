// Groups a session's flat event log into runs and rounds, and pairs each
// tool call with its permission and result by call id.
import type {
  ErrorEvent,
  LlmToolCall,
  ModelRequestEvent,
  ModelResponseEvent,
  NoticeEvent,
  PermissionEvent,
  RunEndEvent,
  ToolCallEvent,
  ToolResultEvent,
  TraceEvent,
  UserMessageEvent,
} from '../types';

/** One tool call and everything that happened to it. */
export interface CallItem {
  kind: 'call';
  key: string;
  callId: string;
  name: string;
  /** The call as the model wrote it in its message, when known. */
  asked?: LlmToolCall;
  call?: ToolCallEvent;
  permission?: PermissionEvent;
  result?: ToolResultEvent;
}

export type RoundItem =
  | { kind: 'request'; key: string; event: ModelRequestEvent }
  | { kind: 'response'; key: string; event: ModelResponseEvent }
  | CallItem
  | { kind: 'notice'; key: string; event: NoticeEvent }
  | { kind: 'error'; key: string; event: ErrorEvent };

export interface RoundGroup {
  key: string;
  run: number;
  /** 0 holds what happened before the run's first model request. */
  round: number;
  request?: ModelRequestEvent;
  response?: ModelResponseEvent;
  items: RoundItem[];
}

export interface RunGroup {
  key: string;
  run: number;
  /** Number of events in the run and the last one's seq: equal values mean an unchanged run. */
  count: number;
  lastSeq: number;
  user?: UserMessageEvent;
  rounds: RoundGroup[];
  end?: RunEndEvent;
}

export interface Timeline {
  runs: RunGroup[];
  /** Every call by id (the latest one when ids repeat). */
  calls: Map<string, CallItem>;
}

/**
 * Builds the timeline from events sorted by seq. With the previous
 * timeline, runs whose events did not change are returned as the same
 * objects, so a long session does not re-render its finished runs.
 */
export function buildTimeline(events: readonly TraceEvent[], prev?: Timeline): Timeline {
  const runs: RunGroup[] = [];
  const runByNo = new Map<number, RunGroup>();
  const calls = new Map<string, CallItem>();

  const runOf = (n: number): RunGroup => {
    let r = runByNo.get(n);
    if (!r) {
      r = { key: `run:${n}`, run: n, count: 0, lastSeq: -1, rounds: [] };
      runByNo.set(n, r);
      runs.push(r);
    }
    return r;
  };
  const roundOf = (e: TraceEvent): RoundGroup => {
    const run = runOf(e.run);
    let g = run.rounds.find((x) => x.round === e.round);
    if (!g) {
      g = { key: `round:${e.run}:${e.round}`, run: e.run, round: e.round, items: [] };
      run.rounds.push(g);
      run.rounds.sort((a, b) => a.round - b.round);
    }
    return g;
  };
  const callFor = (e: TraceEvent, callId: string, name: string): CallItem => {
    let c = calls.get(callId);
    if (!c) {
      c = { kind: 'call', key: `call:${e.seq}:${callId}`, callId, name };
      calls.set(callId, c);
      roundOf(e).items.push(c);
    }
    return c;
  };

  for (const e of events) {
    const r = runOf(e.run);
    r.count++;
    r.lastSeq = e.seq;
    switch (e.kind) {
      case 'user_message':
        runOf(e.run).user = e;
        break;
      case 'run_end':
        runOf(e.run).end = e;
        break;
      case 'model_request': {
        const g = roundOf(e);
        g.request = e;
        g.items.push({ kind: 'request', key: `e:${e.seq}`, event: e });
        break;
      }
      case 'model_response': {
        const g = roundOf(e);
        g.response = e;
        g.items.push({ kind: 'response', key: `e:${e.seq}`, event: e });
        // Calls of a complete message show up at once, in the model's
        // order, and fill in as their events arrive. Calls of an
        // incomplete message never run: the response card lists them.
        if (!e.payload.incomplete) {
          for (const tc of e.payload.tool_calls ?? []) {
            const c: CallItem = { kind: 'call', key: `call:${e.seq}:${tc.id}`, callId: tc.id, name: tc.name, asked: tc };
            calls.set(tc.id, c);
            g.items.push(c);
          }
        }
        break;
      }
      case 'tool_call': {
        const c = callFor(e, e.payload.call_id, e.payload.name);
        c.call = e;
        c.name = e.payload.name;
        break;
      }
      case 'permission':
        callFor(e, e.payload.call_id, e.payload.tool).permission = e;
        break;
      case 'tool_result':
        callFor(e, e.payload.call_id, e.payload.name).result = e;
        break;
      case 'notice':
        roundOf(e).items.push({ kind: 'notice', key: `e:${e.seq}`, event: e });
        break;
      case 'error':
        roundOf(e).items.push({ kind: 'error', key: `e:${e.seq}`, event: e });
        break;
    }
  }
  runs.sort((a, b) => a.run - b.run);
  if (prev) {
    const old = new Map(prev.runs.map((r) => [r.key, r]));
    for (let i = 0; i < runs.length; i++) {
      const o = old.get(runs[i]!.key);
      if (o && o.count === runs[i]!.count && o.lastSeq === runs[i]!.lastSeq) runs[i] = o;
    }
  }
  return { runs, calls };
}

/** The run that is still going (no run_end yet), if the last one is. */
export function openRun(t: Timeline): RunGroup | undefined {
  const last = t.runs[t.runs.length - 1];
  return last && !last.end && last.user ? last : undefined;
}

/** The round whose response is still streaming: a request without a response. */
export function pendingRound(t: Timeline): RoundGroup | undefined {
  const run = openRun(t);
  if (!run) return undefined;
  const last = run.rounds[run.rounds.length - 1];
  return last && last.request && !last.response ? last : undefined;
}
