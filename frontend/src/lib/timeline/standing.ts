// Where a session's run stands, read from its log alone: whether it is
// open, the pause it waits at (with the edits made there applied) and the
// questions it waits for the user to answer. The backend sends no state
// beside the log, so this is the one place the window learns it.
import type { Approval, CheckpointPayload, JsonValue, Pause, Standing, Summary, ToolResultPayload, TraceEvent } from '../types';

/**
 * How the last run stands, in one word: what the header, the sidebar, the
 * composer, the loop diagram and every call's badge say of it.
 * - none: no run yet
 * - working: the run goes (the model answers, a tool runs)
 * - paused: it waits at a checkpoint for Step or Continue
 * - asking: it waits for the user's answer to a call
 * - ended: its run_end is in the log
 */
export type Phase = 'none' | 'working' | 'paused' | 'asking' | 'ended';

export interface RunStanding {
  /** The last run is open: its run_end is not in the log yet. */
  open: boolean;
  run: number;
  /** Where it waits at a checkpoint, or null. */
  pause: Pause | null;
  /** Questions waiting for an answer, in the order they were asked. */
  asks: Approval[];
  phase: Phase;
  /**
   * At an after_response pause, how many calls the answer asks for (a cut
   * answer's calls never run: 0); null at any other pause.
   */
  answerCalls: number | null;
}

const NONE: RunStanding = { open: false, run: 0, pause: null, asks: [], phase: 'none', answerCalls: null };

/** The phase of a run from what is known of it. */
export function phaseOf(s: { open: boolean; run: number; pause: unknown; asks: readonly unknown[] }): Phase {
  if (s.run === 0) return 'none';
  if (!s.open) return 'ended';
  return s.pause ? 'paused' : s.asks.length ? 'asking' : 'working';
}

/** The phase a session's summary tells (the sidebar's, for a session whose log is not open). */
export function summaryPhase(s: Summary): Phase {
  if (s.running) return s.standing === 'paused' ? 'paused' : s.standing === 'asking' ? 'asking' : 'working';
  return s.last_reason || s.event_count > 0 ? 'ended' : 'none';
}

/** Words for a phase, as the header and the sidebar say it ("" for none and ended: the stop reason says it). */
export const PHASE_LABEL: Record<Phase, string> = {
  none: '',
  working: 'Running',
  paused: 'Paused',
  asking: 'Waiting for you',
  ended: '',
};

/**
 * Where the last run of a session's log stands. A sub-agent's nested run
 * (events with `agent`) is no part of its parent's; when the run is open
 * and a sub-agent of it waits for the user (stepped into, or asking), that
 * is where it stands, as the engine's trace.Waiting says.
 */
export function standingOf(events: readonly TraceEvent[]): RunStanding {
  if (!events.some((e) => e.agent)) return loopStanding(events);
  const main = loopStanding(events.filter((e) => !e.agent));
  if (!main.open) return main;
  const subs = [...new Set(events.filter((e) => e.agent).map((e) => e.agent!))];
  for (let i = subs.length - 1; i >= 0; i--) {
    const st = loopStanding(events.filter((e) => e.agent === subs[i]));
    if (st.open && (st.pause || st.asks.length > 0)) return st;
  }
  return main;
}

function loopStanding(events: readonly TraceEvent[]): RunStanding {
  // Runs are contiguous: only the last one can be open.
  let start = events.length;
  while (start > 0 && events[start - 1]!.kind !== 'user_message') start--;
  if (start === 0) return NONE;
  const first = events[start - 1]!;
  let pause: Pause | null = null;
  const asks = new Map<string, Approval>();
  const calls = new Map<string, { args: JsonValue; readOnly: boolean }>();
  const results = new Map<string, ToolResultPayload>();
  let open = true;
  let answerCalls = 0;
  for (let i = start - 1; i < events.length; i++) {
    const e = events[i]!;
    switch (e.kind) {
      case 'run_end':
        open = false;
        pause = null;
        asks.clear();
        break;
      case 'model_response':
        answerCalls = e.payload.incomplete ? 0 : (e.payload.tool_calls ?? []).length;
        break;
      case 'tool_call':
        calls.set(e.payload.call_id, { args: e.payload.args, readOnly: e.payload.read_only });
        break;
      case 'tool_result':
        results.set(e.payload.call_id, e.payload);
        asks.delete(e.payload.call_id);
        break;
      case 'permission': {
        const p = e.payload;
        if (p.decision !== 'ask') {
          asks.delete(p.call_id);
          break;
        }
        const call = calls.get(p.call_id);
        asks.set(p.call_id, {
          id: e.agent ? `${e.session_id}/${e.agent}/${p.call_id}` : `${e.session_id}/${p.call_id}`,
          session_id: e.session_id,
          ...(e.agent ? { agent: e.agent } : {}),
          call_id: p.call_id,
          seq: e.seq,
          tool: p.tool,
          args: call?.args ?? {},
          display: p.display ?? null,
          summary: p.summary ?? '',
          call: { tool: p.tool, read_only: call?.readOnly ?? false, command: p.command, paths: p.paths ?? [] },
          reasons: p.reasons ?? [],
          once_only: p.once_only ?? false,
        });
        break;
      }
      case 'checkpoint': {
        const cp = e.payload;
        pause = cp.state === 'paused' ? pauseOf(cp, e.seq, e.run, e.round, results, e.agent) : null;
        break;
      }
      case 'edit': {
        // Go applies an edit to the pause (trace.Checkpoint.WithEdit) and
        // records the pause it leaves: that is the pause from here on, and
        // what the call and the result now hold.
        const ed = e.payload;
        const cp = ed.pause;
        if (!cp || !pause || cp.point !== pause.point || (cp.call_id ?? '') !== (pause.call_id ?? '')) break;
        const c = cp.call_id ? calls.get(cp.call_id) : undefined;
        if (c && cp.args !== undefined) calls.set(cp.call_id!, { ...c, args: cp.args });
        const r = cp.call_id ? results.get(cp.call_id) : undefined;
        if (r && cp.result !== undefined) results.set(cp.call_id!, { ...r, content: cp.result });
        pause = pauseOf(cp, pause.seq, pause.run, pause.round, results);
        break;
      }
    }
  }
  const out = { open, run: first.run, pause, asks: [...asks.values()] };
  return { ...out, phase: phaseOf(out), answerCalls: pause?.point === 'after_response' ? answerCalls : null };
}

/** The pause a paused checkpoint (or an edit's pause) holds. */
function pauseOf(cp: CheckpointPayload, seq: number, run: number, round: number, results: ReadonlyMap<string, ToolResultPayload>, agent?: string): Pause {
  const pause: Pause = { seq, point: cp.point, run, round };
  if (agent) pause.agent = agent;
  if (cp.call_id) pause.call_id = cp.call_id;
  if (cp.tool) pause.tool = cp.tool;
  if (cp.request) pause.request = { ...cp.request, messages: (cp.request.messages ?? []).map((m) => ({ ...m })) };
  if (cp.args !== undefined) pause.args = cp.args;
  if (cp.point === 'after_result' && cp.call_id) pause.result = results.get(cp.call_id) ?? null;
  return pause;
}

/**
 * A session's summary after one more of its events: what the sidebar shows
 * of a session that is not open (how many events, whether a run goes, what
 * it waits for, how the last one ended).
 */
export function summaryAfter(s: Summary, e: TraceEvent): Summary {
  if (e.session_id !== s.id || e.seq <= s.event_count) return s;
  const next: Summary = { ...s, event_count: e.seq, updated_at: e.time };
  let standing = s.standing as Standing;
  // A sub-agent's run opens and ends inside its parent's.
  if (e.agent && (e.kind === 'user_message' || e.kind === 'run_end')) return next;
  switch (e.kind) {
    case 'user_message':
      next.open_run = e.run;
      next.running = true;
      next.last_reason = '';
      standing = '';
      break;
    case 'run_end':
      next.open_run = 0;
      next.running = false;
      next.last_reason = e.payload.reason;
      standing = '';
      break;
    case 'checkpoint':
      standing = e.payload.state === 'paused' ? 'paused' : '';
      break;
    case 'permission':
      // Calls that need no one are decided before any question of their
      // answer is asked, and questions take turns: a decision after an ask
      // answers it.
      standing = e.payload.decision === 'ask' ? 'asking' : standing === 'asking' ? '' : standing;
      break;
  }
  next.standing = standing;
  return next;
}
