// The agent loop's steps (DESIGN.md: send → respond → validate →
// permission → execute → append → repeat/stop), which step each event and
// card belongs to, and where the loop is after a given event.
import { isCheckpointPoint, type Breakpoints, type CheckpointPoint, type Pause, type TraceEvent } from '../types';
import { allItems, type CallItem, type Timeline } from './group';
import type { CardRef } from './nav';

export const LOOP_STEPS = ['send', 'respond', 'validate', 'permission', 'execute', 'append', 'stop'] as const;
export type LoopStep = (typeof LOOP_STEPS)[number];

export interface StepInfo {
  label: string;
  /** One sentence on what the harness does in this step. */
  what: string;
}

export const STEP_INFO: Record<LoopStep, StepInfo> = {
  send: { label: 'Send', what: 'Loupe sends the model the system prompt, the whole history and the tool schemas.' },
  respond: { label: 'Respond', what: 'The model answers with text, tool calls, or both.' },
  validate: { label: 'Validate', what: 'Loupe checks each call: a known tool, arguments that fit its schema.' },
  permission: { label: 'Permission', what: 'A rule or you decide whether the call may run.' },
  execute: { label: 'Execute', what: 'Loupe runs the tool in the workspace; the model runs nothing itself.' },
  append: { label: 'Append', what: 'The result is added to the history, and the loop goes back to Send.' },
  stop: { label: 'Stop', what: 'The loop ends: an answer without tool calls, a limit, an error or you.' },
};

/** The step a checkpoint sits at (a pause before or after it). */
export function checkpointStep(point: CheckpointPoint | string): { step: LoopStep; when: 'before' | 'after' } {
  switch (point) {
    case 'before_request':
      return { step: 'send', when: 'before' };
    case 'after_response':
      return { step: 'respond', when: 'after' };
    case 'before_tool':
      // The call is checked; permission and running come next.
      return { step: 'permission', when: 'before' };
    case 'after_result':
      return { step: 'append', when: 'before' };
    case 'after_hook':
      // A call's hook has run; what it said counts next.
      return { step: 'permission', when: 'after' };
    default:
      return { step: 'send', when: 'before' };
  }
}

/** Which step an event belongs to; null for events that are no step (a notice). */
export function stepOfEvent(e: TraceEvent): LoopStep | null {
  switch (e.kind) {
    case 'user_message':
      // The message joins the history that the first request sends.
      return 'append';
    case 'model_request':
      return 'send';
    case 'model_response':
      return 'respond';
    case 'tool_call':
      return 'validate';
    case 'permission':
      // Allowed: the tool runs next. Denied: the refusal is the result.
      return e.payload.decision === 'allow' ? 'execute' : 'permission';
    case 'tool_result':
      return 'append';
    case 'checkpoint':
      return checkpointStep(e.payload.point).step;
    case 'edit':
      switch (e.payload.target) {
        case 'args':
          return 'validate';
        case 'result':
          return 'append';
        default:
          return 'send';
      }
    case 'error':
    case 'run_end':
      return 'stop';
    case 'compaction':
      // The summary replaces older messages of the history the next
      // request sends.
      return 'append';
    case 'hook_run':
      switch (e.payload.event) {
        case 'before_tool':
          return 'permission';
        case 'before_request':
          return 'send';
        case 'run_end':
          return 'stop';
        default:
          return 'append';
      }
    case 'notice':
    case 'restore':
      // Putting files back happens outside the loop.
      return null;
  }
}

/** The furthest step a call's card has reached. */
export function callStep(c: CallItem): LoopStep {
  if (!c.call) return 'validate';
  if (!c.call.payload.valid) return 'validate';
  if (!c.permission) return 'permission';
  if (c.permission.payload.decision !== 'allow') return 'permission';
  return 'execute';
}

export interface LoopPosition {
  step: LoopStep;
  /** The run waits at a checkpoint of this step. */
  paused: boolean;
  /** For a pause: before or after the step. */
  when?: 'before' | 'after';
  /** The event the position comes from, if any. */
  seq?: number;
}

/**
 * The step a live run is in after its last event: what happens now, one
 * step. A request sent means the model is answering (Respond); a checked
 * call waits for its permission; an allowed one runs. Playback shows the
 * step of the event at the position instead (stepOfEvent).
 */
function stepAfter(e: TraceEvent): LoopStep | null {
  switch (e.kind) {
    case 'user_message':
      return 'send';
    case 'model_request':
      return 'respond';
    case 'model_response':
      return !e.payload.incomplete && (e.payload.tool_calls ?? []).length > 0 ? 'validate' : 'respond';
    case 'tool_call':
      return e.payload.valid ? 'permission' : 'append';
    case 'permission':
      // Allowed: it runs. Asked: it waits for you. Denied: the refusal is the result.
      return e.payload.decision === 'allow' ? 'execute' : e.payload.decision === 'ask' ? 'permission' : 'append';
    case 'checkpoint':
      if (e.payload.state === 'paused') return checkpointStep(e.payload.point).step;
      // Resumed: the step the pause stood before goes on.
      switch (e.payload.point) {
        case 'before_request':
          return 'send';
        case 'after_response':
          return 'validate';
        case 'before_tool':
          return e.payload.action === 'skip' ? 'append' : 'permission';
        default:
          return 'append';
      }
    default:
      return stepOfEvent(e);
  }
}

/**
 * Where the loop is after these events (the whole log when live, the
 * events up to the position in playback). A pause, when given, wins: it is
 * where a live run waits. live says the run goes on after the last event,
 * so the lit step is the one happening now (stepAfter); otherwise it is
 * the last event's. Null before anything happened.
 */
export function loopPosition(events: readonly TraceEvent[], pause?: Pause | null, live = false): LoopPosition | null {
  if (pause) {
    const { step, when } = checkpointStep(pause.point);
    return { step, paused: true, when };
  }
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    const step = live ? stepAfter(e) : stepOfEvent(e);
    if (step == null) continue;
    if (e.kind === 'checkpoint') {
      const { when } = checkpointStep(e.payload.point);
      // A pause with nothing after it yet: the run still waits there.
      return e.payload.state === 'paused' ? { step, paused: true, when, seq: e.seq } : { step, paused: false, seq: e.seq };
    }
    return { step, paused: false, seq: e.seq };
  }
  return null;
}

/** A breakpoint: every checkpoint of a kind, or before every call of a tool. */
export type BreakpointTarget = { point: CheckpointPoint } | { tool: string };

export const CHECKPOINT_LABELS: Record<CheckpointPoint, string> = {
  before_request: 'Before each request',
  after_response: 'After each response',
  before_tool: 'Before each tool call',
  after_result: 'After each tool result',
  after_hook: 'After each hook of a call',
};

/**
 * The breakpoint that fits a card, for the "b" key: the checkpoint of its
 * kind, or its tool for a call. Null for cards with none (user, notice…).
 */
export function breakpointForCard(t: Timeline, card: CardRef): BreakpointTarget | null {
  switch (card.kind) {
    case 'request':
      return { point: 'before_request' };
    case 'response':
      return { point: 'after_response' };
    case 'observation':
      return { point: 'after_result' };
    case 'call': {
      for (const c of t.calls.values()) if (c.key === card.id) return { tool: c.name };
      return null;
    }
    case 'checkpoint':
    case 'edit': {
      for (const it of allItems(t)) {
        if (it.key !== card.id) continue;
        if (it.kind === 'checkpoint') {
          const p = it.event.payload;
          if (p.point === 'before_tool' && p.tool) return { tool: p.tool };
          return isCheckpointPoint(p.point) ? { point: p.point } : null;
        }
        if (it.kind === 'edit') {
          const p = it.event.payload;
          if (p.target === 'result') return { point: 'after_result' };
          if (p.target === 'args') {
            const c = p.call_id ? t.calls.get(p.call_id) : undefined;
            return c ? { tool: c.name } : { point: 'before_tool' };
          }
          return { point: 'before_request' };
        }
      }
      return null;
    }
    default:
      return null;
  }
}

/** Whether a breakpoint is set. */
export function hasBreakpoint(bp: Breakpoints, target: BreakpointTarget): boolean {
  return 'point' in target ? (bp.points ?? []).includes(target.point) : (bp.tools ?? []).includes(target.tool);
}
