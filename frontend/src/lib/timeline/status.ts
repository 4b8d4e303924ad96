// What state a tool call is in, in words the user reads.
import { ERROR_KINDS } from '../types';
import type { CallItem, RunGroup } from './group';
import type { RunStanding } from './standing';

export type CallStatus =
  | 'validating'
  | 'refused'
  | 'awaiting_approval'
  | 'paused'
  | 'queued'
  | 'running'
  | 'done'
  | 'error'
  | 'cancelled';

export interface CallState {
  status: CallStatus;
  label: string;
}

export interface CallContext {
  /** An approval for this call is open. */
  approvalPending: boolean;
  /** The call's run has ended. */
  runEnded: boolean;
  /** A step-through run waits before this call runs. */
  pausedBefore?: boolean;
  /** A step-through run waits after this call ran, before its result goes back. */
  pausedAfter?: boolean;
  /** The call's run waits (at a pause, or for an answer about another call): nothing of it moves now. */
  paused?: boolean;
}

/**
 * Where a call stands from where its run stands: the one place a card's
 * badge learns it (live from the whole log, in playback from the events up
 * to the position).
 */
export function callContextOf(st: RunStanding, run: Pick<RunGroup, 'run' | 'end'>, callId: string): CallContext {
  const here = st.open && st.run === run.run && run.end == null;
  // A sub-agent's pause or question is its own loop's: its calls may
  // share this loop's ids.
  const pause = here && !st.pause?.agent ? st.pause : null;
  return {
    approvalPending: here && st.asks.some((a) => a.call_id === callId && !a.agent),
    runEnded: run.end != null || (st.run === run.run && !st.open),
    pausedBefore: pause?.point === 'before_tool' && pause.call_id === callId,
    pausedAfter: pause?.point === 'after_result' && pause.call_id === callId,
    paused: here && (st.phase === 'paused' || st.phase === 'asking'),
  };
}

/** The tool did not run: the call was refused, invalid or skipped, so its result is Loupe's, not the tool's. */
function didNotRun(c: CallItem): boolean {
  const r = c.result?.payload;
  if (c.permission && c.permission.payload.decision !== 'allow') return true;
  if (c.call && !c.call.payload.valid) return true;
  return r?.error_kind === ERROR_KINDS.denied || r?.error_kind === ERROR_KINDS.skipped || r?.error_kind === ERROR_KINDS.invalidArgs || r?.error_kind === ERROR_KINDS.unknownTool;
}

const errorLabel: Record<string, CallState> = {
  [ERROR_KINDS.unknownTool]: { status: 'error', label: 'Unknown tool' },
  [ERROR_KINDS.invalidArgs]: { status: 'error', label: 'Invalid arguments' },
  [ERROR_KINDS.failed]: { status: 'error', label: 'Failed' },
  [ERROR_KINDS.denied]: { status: 'refused', label: 'Denied' },
  [ERROR_KINDS.cancelled]: { status: 'cancelled', label: 'Cancelled' },
  [ERROR_KINDS.interrupted]: { status: 'cancelled', label: 'Interrupted' },
  [ERROR_KINDS.skipped]: { status: 'cancelled', label: 'Skipped' },
  [ERROR_KINDS.stopped]: { status: 'cancelled', label: 'Stopped by you' },
};

export function callStatus(c: CallItem, ctx: CallContext): CallState {
  const r = c.result?.payload;
  // The tool ran, but its result waits at the pause: the call is not done
  // for the model yet. A call that did not run says why first.
  if (r && ctx.pausedAfter && !ctx.runEnded) {
    if (!didNotRun(c)) return { status: 'paused', label: 'Ran; paused before its result goes back' };
    const why = c.permission && c.permission.payload.decision !== 'allow' ? errorLabel[ERROR_KINDS.denied]! : (statusOfResult(c) ?? errorLabel[ERROR_KINDS.failed]!);
    return { status: why.status, label: `${why.label}; paused before that goes back` };
  }
  return statusOfResult(c) ?? pending(c, ctx);
}

function statusOfResult(c: CallItem): CallState | null {
  const r = c.result?.payload;
  if (r) {
    if (r.error_kind === ERROR_KINDS.skipped) return errorLabel[ERROR_KINDS.skipped]!;
    if (!r.is_error) {
      const code = r.exit_code;
      return code != null && code !== 0 ? { status: 'done', label: `Done, exit code ${code}` } : { status: 'done', label: 'Done' };
    }
    return errorLabel[r.error_kind ?? ''] ?? { status: 'error', label: 'Failed' };
  }
  return null;
}

/** A call without its result yet. */
function pending(c: CallItem, ctx: CallContext): CallState {
  const call = c.call?.payload;
  if (call && !call.valid) {
    return errorLabel[call.error_kind ?? ''] ?? { status: 'error', label: 'Invalid call' };
  }
  if (c.permission && c.permission.payload.decision !== 'allow') return { status: 'refused', label: 'Denied' };
  if (ctx.runEnded) return { status: 'cancelled', label: 'Never finished' };
  if (ctx.pausedBefore && !c.permission) return { status: 'paused', label: 'Paused before it runs' };
  if (ctx.approvalPending) return { status: 'awaiting_approval', label: 'Waiting for your approval' };
  // A run that waits checks nothing: a call not decided yet waits its turn.
  if (ctx.paused && !c.permission) return { status: 'queued', label: c.call ? 'Waiting its turn' : 'Not checked yet' };
  // An allowed call whose run waits: a task call whose sub-agent the user
  // stepped into (the pause or the question is the sub-agent's). Nothing
  // of it moves until the user does.
  if (ctx.paused && c.permission && c.call?.payload.name === 'task') return { status: 'paused', label: 'Its sub-agent waits for you' };
  if (c.permission) return { status: 'running', label: 'Running' };
  if (call) return { status: 'validating', label: 'Checking permission' };
  return { status: 'validating', label: 'Validating' };
}

/** Describes who decided, e.g. "Allowed by you" or "Denied by rule: read-only tools". */
export function permissionText(decision: string, by: string): string {
  const verb = decision === 'allow' ? 'Allowed' : 'Denied';
  return by ? `${verb} by ${by}` : verb;
}
