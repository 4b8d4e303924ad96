// Groups a session's flat event log into runs and rounds, and pairs each
// tool call with its permission and result by call id.
import type {
  CheckpointEvent,
  CompactionEvent,
  EditEvent,
  ErrorEvent,
  HookRunEvent,
  LlmToolCall,
  ModelRequestEvent,
  ModelResponseEvent,
  NoticeEvent,
  PermissionEvent,
  RestoreEvent,
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
  /** The user's latest edit of the arguments at a pause: its after is what ran. */
  argsEdit?: EditEvent;
  /** The user's latest edit of the result: its after is what the model saw. */
  resultEdit?: EditEvent;
  /** Pauses and edits before the call ran (before_tool, its arguments): shown after the call's card. */
  before: StepItem[];
  /** Pauses and edits after its result (after_result, the result): shown after the observation. */
  after: StepItem[];
  /** A task call's sub-agent: its nested run, its own timeline. */
  sub?: SubAgentLane;
}

/** A sub-agent's nested run: the events of its sub-run and their timeline. */
export interface SubAgentLane {
  /** The sub-run id (trace.Event.agent): the task call's id, after its parent's. */
  id: string;
  events: TraceEvent[];
  timeline: Timeline;
}

/** A pause or an edit: what step-through adds to the timeline. */
export type StepItem = CheckpointItem | { kind: 'edit'; key: string; event: EditEvent } | HookItem;

/** One run of a hook: with its call (before_tool above it, after_tool and after_edit below its result), else in its round. */
export interface HookItem {
  kind: 'hook';
  key: string;
  event: HookRunEvent;
}

/** A pause of a step-through run and, once it ended, how. */
export interface CheckpointItem {
  kind: 'checkpoint';
  key: string;
  event: CheckpointEvent;
  /** The resumed event that ended the pause. */
  resumed?: CheckpointEvent;
}

export type RoundItem =
  | { kind: 'request'; key: string; event: ModelRequestEvent }
  | { kind: 'response'; key: string; event: ModelResponseEvent }
  | CallItem
  | { kind: 'notice'; key: string; event: NoticeEvent }
  | { kind: 'error'; key: string; event: ErrorEvent }
  | { kind: 'compaction'; key: string; event: CompactionEvent }
  | StepItem;

export interface RoundGroup {
  key: string;
  run: number;
  /** 0 holds what happened before the run's first model request. */
  round: number;
  /** The round's latest request and its response (a round that compacts has the summarising one before it). */
  request?: ModelRequestEvent;
  response?: ModelResponseEvent;
  items: RoundItem[];
  /** Recorded after the run's end (Compact now): drawn after the end. */
  afterEnd?: boolean;
}

export interface RunGroup {
  key: string;
  run: number;
  /** Number of events in the run and the last one's seq: equal values mean an unchanged run. */
  count: number;
  lastSeq: number;
  /** How many of its events came cut (previews): one fetched whole makes the run new. */
  cut: number;
  user?: UserMessageEvent;
  rounds: RoundGroup[];
  end?: RunEndEvent;
  /** Files put back (undo, restore): shown after the run's end, in order. */
  restores: RestoreEvent[];
}

export interface Timeline {
  runs: RunGroup[];
  /** Every call by id (the latest one when ids repeat). */
  calls: Map<string, CallItem>;
  /** The card id of every checkpoint event (a resumed one shares its pause's card). */
  checkpointCards: Map<number, string>;
}

/**
 * Builds the timeline from events sorted by seq. With the previous
 * timeline, runs whose events did not change are returned as the same
 * objects, so a long session does not re-render its finished runs.
 */
export function buildTimeline(all: readonly TraceEvent[], prev?: Timeline, agent = ''): Timeline {
  // A sub-agent's events are its own run's (trace.Own): the loop's cards
  // are made of the loop's events, and each task call holds its lane.
  const nested = all.some((e) => e.agent);
  const events = nested ? all.filter((e) => (e.agent ?? '') === agent) : all;
  const runs: RunGroup[] = [];
  const runByNo = new Map<number, RunGroup>();
  const calls = new Map<string, CallItem>();
  const checkpointCards = new Map<number, string>();
  /** The pause still waiting for its resumed event. */
  let open: CheckpointItem | undefined;

  const runOf = (n: number): RunGroup => {
    let r = runByNo.get(n);
    if (!r) {
      r = { key: `run:${n}`, run: n, count: 0, lastSeq: -1, cut: 0, rounds: [], restores: [] };
      runByNo.set(n, r);
      runs.push(r);
    }
    return r;
  };
  // Rounds by run and number: a lookup per event, not a scan (a long run has
  // hundreds of rounds, and each event finds its own).
  const roundByKey = new Map<string, RoundGroup>();
  const roundOf = (e: TraceEvent): RoundGroup => {
    const key = `round:${e.run}:${e.round}`;
    let g = roundByKey.get(key);
    if (!g) {
      const run = runOf(e.run);
      g = { key, run: e.run, round: e.round, items: [] };
      if (run.end) g.afterEnd = true;
      roundByKey.set(key, g);
      const last = run.rounds[run.rounds.length - 1];
      run.rounds.push(g);
      // Rounds come in order; sort only when one does not.
      if (last && last.round > e.round) run.rounds.sort((a, b) => a.round - b.round);
    }
    return g;
  };
  /**
   * Puts a pause or an edit where it happened: with its call (before it ran
   * or after its result), right after the response for after_response,
   * else in event order in its round.
   */
  const place = (e: TraceEvent, item: StepItem, callId: string | undefined, afterResult: boolean): void => {
    const c = callId ? calls.get(callId) : undefined;
    if (c) {
      (afterResult ? c.after : c.before).push(item);
      return;
    }
    const g = roundOf(e);
    if (item.kind === 'checkpoint' && item.event.payload.point === 'after_response') {
      const i = g.items.findIndex((x) => x.kind === 'response');
      if (i >= 0) {
        g.items.splice(i + 1, 0, item);
        return;
      }
    }
    g.items.push(item);
  };
  const callFor = (e: TraceEvent, callId: string, name: string): CallItem => {
    let c = calls.get(callId);
    if (!c) {
      c = { kind: 'call', key: `call:${e.seq}:${callId}`, callId, name, before: [], after: [] };
      calls.set(callId, c);
      roundOf(e).items.push(c);
    }
    return c;
  };

  for (const e of events) {
    const r = runOf(e.run);
    r.count++;
    r.lastSeq = e.seq;
    if (e.preview) r.cut++;
    switch (e.kind) {
      case 'user_message':
        runOf(e.run).user = e;
        break;
      case 'run_end':
        runOf(e.run).end = e;
        break;
      case 'restore':
        // A restore happens between runs (a running session refuses it);
        // it is recorded in the last run and shown after its end.
        runOf(e.run).restores.push(e);
        break;
      case 'model_request': {
        const g = roundOf(e);
        g.request = e;
        g.response = undefined;
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
            const c: CallItem = { kind: 'call', key: `call:${e.seq}:${tc.id}`, callId: tc.id, name: tc.name, asked: tc, before: [], after: [] };
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
      case 'permission': {
        // A question ("ask") is not a decision: the answer follows it.
        const c = callFor(e, e.payload.call_id, e.payload.tool);
        if (e.payload.decision !== 'ask') c.permission = e;
        break;
      }
      case 'tool_result':
        callFor(e, e.payload.call_id, e.payload.name).result = e;
        break;
      case 'notice':
        roundOf(e).items.push({ kind: 'notice', key: `e:${e.seq}`, event: e });
        break;
      case 'error':
        roundOf(e).items.push({ kind: 'error', key: `e:${e.seq}`, event: e });
        break;
      case 'compaction':
        roundOf(e).items.push({ kind: 'compaction', key: `e:${e.seq}`, event: e });
        break;
      case 'hook_run':
        place(e, { kind: 'hook', key: `e:${e.seq}`, event: e }, e.payload.call_id, e.payload.event !== 'before_tool');
        break;
      case 'checkpoint': {
        if (e.payload.state !== 'paused' && open && open.event.payload.point === e.payload.point && !open.resumed) {
          open.resumed = e;
          checkpointCards.set(e.seq, open.key);
          open = undefined;
          break;
        }
        const item: CheckpointItem = { kind: 'checkpoint', key: `e:${e.seq}`, event: e };
        place(e, item, e.payload.call_id, e.payload.point === 'after_result');
        checkpointCards.set(e.seq, item.key);
        open = e.payload.state === 'paused' ? item : undefined;
        break;
      }
      case 'edit': {
        place(e, { kind: 'edit', key: `e:${e.seq}`, event: e }, e.payload.call_id, e.payload.target === 'result');
        const c = e.payload.call_id ? calls.get(e.payload.call_id) : undefined;
        if (c && e.payload.target === 'args') c.argsEdit = e;
        if (c && e.payload.target === 'result') c.resultEdit = e;
        break;
      }
    }
    // A pause ends with its resumed event; anything else after it (a
    // run_end after Stop) means it ended without one.
    if (open && e.kind !== 'checkpoint' && e.kind !== 'edit') open = undefined;
  }
  if (nested) {
    for (const e of all) {
      if ((e.agent ?? '') === agent) continue;
      // A change in a sub-agent is a change of its parent's run.
      const r = runOf(e.run);
      r.count++;
      r.lastSeq = Math.max(r.lastSeq, e.seq);
    }
    for (const lane of subLanes(all, agent)) {
      const c = calls.get(lane.id.slice(lane.id.lastIndexOf('/') + 1));
      if (!c || c.name !== 'task') continue;
      c.sub = lane;
      // A sub-agent's pause is shown on its task call's card, in the lane:
      // the one card of this timeline that holds it.
      for (const e of lane.events) if (e.kind === 'checkpoint') checkpointCards.set(e.seq, c.key);
    }
  }
  runs.sort((a, b) => a.run - b.run);
  if (prev) {
    const old = new Map(prev.runs.map((r) => [r.key, r]));
    for (let i = 0; i < runs.length; i++) {
      const o = old.get(runs[i]!.key);
      if (o && o.count === runs[i]!.count && o.lastSeq === runs[i]!.lastSeq && o.cut === runs[i]!.cut) runs[i] = o;
    }
  }
  return { runs, calls, checkpointCards };
}

/** Every item of the timeline, calls' pauses and edits included, in display order. */
export function* allItems(t: Timeline): Generator<RoundItem> {
  for (const run of t.runs) {
    for (const g of run.rounds) {
      for (const it of g.items) {
        yield it;
        if (it.kind === 'call') {
          yield* it.before;
          yield* it.after;
        }
      }
    }
  }
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

/** The lanes of the sub-agents the loop agent ('' for the session's own) started, in the order they began. */
export function subLanes(all: readonly TraceEvent[], agent = ''): SubAgentLane[] {
  const ids: string[] = [];
  for (const e of all) {
    const id = e.agent;
    if (!id || ids.includes(id)) continue;
    const parent = id.includes('/') ? id.slice(0, id.lastIndexOf('/')) : '';
    if (parent === agent) ids.push(id);
  }
  return ids.map((id) => {
    const events = all.filter((e) => e.agent === id || (e.agent ?? '').startsWith(id + '/'));
    return { id, events, timeline: buildTimeline(events, undefined, id) };
  });
}
