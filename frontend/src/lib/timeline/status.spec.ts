import { describe, expect, it } from 'vitest';
import { EventLog } from '../testing/events';
import { buildTimeline, type CallItem } from './group';
import { callStatus, permissionText } from './status';

/** Builds a call through `steps` and returns its item. */
function call(steps: (log: EventLog) => void): CallItem {
  const log = new EventLog();
  log.user('x');
  log.request();
  log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'run_command', args: { command: 'ls' } }] });
  steps(log);
  return buildTimeline(log.events).calls.get('c1')!;
}

const open = { approvalPending: false, runEnded: false };

describe('callStatus', () => {
  it('at a pause: a call not reached is not checked yet, one paused before is paused, one whose result waits is not done', () => {
    expect(callStatus(call(() => {}), { ...open, paused: true })).toEqual({ status: 'queued', label: 'Not checked yet' });
    const checked = call((l) => l.toolCall({ call_id: 'c1', name: 'run_command' }));
    expect(callStatus(checked, { ...open, paused: true, pausedBefore: true })).toEqual({ status: 'paused', label: 'Paused before it runs' });
    const ran = call((l) => {
      l.toolCall({ call_id: 'c1', name: 'run_command' });
      l.permission('c1', 'run_command', 'allow');
      l.result({ call_id: 'c1', name: 'run_command', content: 'ok', exit_code: 0 });
    });
    expect(callStatus(ran, { ...open, paused: true, pausedAfter: true }).status).toBe('paused');
    expect(callStatus(ran, { ...open, paused: true, pausedAfter: true }).label).not.toMatch(/^Done/);
    expect(callStatus(ran, open).label).toBe('Done');
  });

  it('is validating before the tool_call event', () => {
    expect(callStatus(call(() => {}), open)).toEqual({ status: 'validating', label: 'Validating' });
  });

  it('checks permission once validated', () => {
    const c = call((l) => l.toolCall({ call_id: 'c1', name: 'run_command' }));
    expect(callStatus(c, open).status).toBe('validating');
    expect(callStatus(c, open).label).toBe('Checking permission');
  });

  it('awaits approval while one is open', () => {
    const c = call((l) => l.toolCall({ call_id: 'c1', name: 'run_command' }));
    expect(callStatus(c, { ...open, approvalPending: true }).status).toBe('awaiting_approval');
  });

  it('runs once allowed', () => {
    const c = call((l) => {
      l.toolCall({ call_id: 'c1', name: 'run_command' });
      l.permission('c1', 'run_command', 'allow');
    });
    expect(callStatus(c, open).status).toBe('running');
  });

  it('is refused when denied, before and after the result', () => {
    const denied = call((l) => {
      l.toolCall({ call_id: 'c1', name: 'run_command' });
      l.permission('c1', 'run_command', 'deny');
    });
    expect(callStatus(denied, open)).toEqual({ status: 'refused', label: 'Denied' });
    const answered = call((l) => {
      l.toolCall({ call_id: 'c1', name: 'run_command' });
      l.permission('c1', 'run_command', 'deny');
      l.result({ call_id: 'c1', name: 'run_command', is_error: true, error_kind: 'denied', content: 'denied' });
    });
    expect(callStatus(answered, open).status).toBe('refused');
  });

  it('is done with a successful result, and says a non-zero exit code', () => {
    const ok = call((l) => l.result({ call_id: 'c1', name: 'run_command', content: 'ok', exit_code: 0 }));
    expect(callStatus(ok, open)).toEqual({ status: 'done', label: 'Done' });
    const grepNoMatch = call((l) => l.result({ call_id: 'c1', name: 'run_command', content: '', exit_code: 1 }));
    expect(callStatus(grepNoMatch, open).label).toBe('Done, exit code 1');
  });

  it('tells invalid calls apart from failed ones', () => {
    const invalid = call((l) =>
      l.toolCall({ call_id: 'c1', name: 'run_command', valid: false, error_kind: 'invalid_args', problem: 'command is required' }),
    );
    expect(callStatus(invalid, open)).toEqual({ status: 'error', label: 'Invalid arguments' });
    const unknown = call((l) => l.toolCall({ call_id: 'c1', name: 'nope', valid: false, error_kind: 'unknown_tool' }));
    expect(callStatus(unknown, open).label).toBe('Unknown tool');
    const failed = call((l) => l.result({ call_id: 'c1', name: 'run_command', is_error: true, error_kind: 'failed' }));
    expect(callStatus(failed, open)).toEqual({ status: 'error', label: 'Failed' });
  });

  it('is cancelled for cancelled, interrupted and skipped results', () => {
    for (const [kind, label] of [
      ['cancelled', 'Cancelled'],
      ['interrupted', 'Interrupted'],
      ['skipped', 'Skipped'],
    ]) {
      const c = call((l) => l.result({ call_id: 'c1', name: 'run_command', is_error: true, error_kind: kind }));
      expect(callStatus(c, open)).toEqual({ status: 'cancelled', label });
    }
  });

  it('is cancelled when the run ended without a result', () => {
    const c = call((l) => {
      l.toolCall({ call_id: 'c1', name: 'run_command' });
      l.permission('c1', 'run_command', 'allow');
    });
    expect(callStatus(c, { approvalPending: false, runEnded: true }).status).toBe('cancelled');
  });
});

describe('permissionText', () => {
  it('says who decided', () => {
    expect(permissionText('allow', 'you')).toBe('Allowed by you');
    expect(permissionText('deny', 'rule: outside workspace')).toBe('Denied by rule: outside workspace');
    expect(permissionText('allow', '')).toBe('Allowed');
  });
});
