// What state a tool call is in, in words the user reads.
import { ERROR_KINDS } from '../types';
import type { CallItem } from './group';

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
  /** The call's run waits at a pause (anywhere): nothing of it moves now. */
  paused?: boolean;
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
  // for the model yet.
  if (r && ctx.pausedAfter && !ctx.runEnded) return { status: 'paused', label: 'Ran; paused before its result goes back' };
  if (r) {
    if (r.error_kind === ERROR_KINDS.skipped) return errorLabel[ERROR_KINDS.skipped]!;
    if (!r.is_error) {
      const code = r.exit_code;
      return code != null && code !== 0 ? { status: 'done', label: `Done, exit code ${code}` } : { status: 'done', label: 'Done' };
    }
    return errorLabel[r.error_kind ?? ''] ?? { status: 'error', label: 'Failed' };
  }
  const call = c.call?.payload;
  if (call && !call.valid) {
    return errorLabel[call.error_kind ?? ''] ?? { status: 'error', label: 'Invalid call' };
  }
  if (c.permission && c.permission.payload.decision !== 'allow') return { status: 'refused', label: 'Denied' };
  if (ctx.runEnded) return { status: 'cancelled', label: 'Never finished' };
  if (ctx.pausedBefore && !c.permission) return { status: 'paused', label: 'Paused before it runs' };
  if (ctx.approvalPending) return { status: 'awaiting_approval', label: 'Waiting for your approval' };
  // A paused run checks and runs nothing: a call not reached yet waits.
  if (ctx.paused && !c.call && !c.permission) return { status: 'queued', label: 'Not checked yet' };
  if (c.permission) return { status: 'running', label: 'Running' };
  if (call) return { status: 'validating', label: 'Checking permission' };
  return { status: 'validating', label: 'Validating' };
}

/** Describes who decided, e.g. "Allowed by you" or "Denied by rule: read-only tools". */
export function permissionText(decision: string, by: string): string {
  const verb = decision === 'allow' ? 'Allowed' : 'Denied';
  return by ? `${verb} by ${by}` : verb;
}
