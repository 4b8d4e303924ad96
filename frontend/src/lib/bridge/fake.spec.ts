import { describe, expect, it } from 'vitest';
import type { Approval } from '../types';
import { FakeBridge, grantCovers, grantFor, makeSummary } from './fake';
import { EventLog } from './fixtures';

const approval: Approval = {
  id: 'ap1',
  session_id: 's1',
  call_id: 'c1',
  tool: 'run_command',
  args: { command: 'go test ./...' },
  display: { command: 'go test ./...', path: '/w' },
  summary: '',
  call: { tool: 'run_command', read_only: false, command: 'go test ./...' },
};

describe('FakeBridge answers, like the permission broker', () => {
  it('refuses to remember a once-only answer and keeps the question open', async () => {
    const fake = new FakeBridge({ sessions: [makeSummary({ id: 's1', workspace: '/w' })], approvals: [{ ...approval, once_only: true }] });
    await expect(fake.answerFor('ap1', true, 'session')).rejects.toThrow('can only be answered for this call');
    expect(fake.approvals.has('ap1')).toBe(true);
    await fake.answerFor('ap1', true, 'once');
    expect(fake.approvals.has('ap1')).toBe(false);
    await expect(fake.answerFor('ap1', true, 'once')).rejects.toThrow('no such pending request');
  });

  it('remembers a session answer for the session and a workspace answer for the folder', async () => {
    const fake = new FakeBridge({
      sessions: [makeSummary({ id: 's1', workspace: '/w' })],
      approvals: [approval, { ...approval, id: 'ap2', call_id: 'c2', tool: 'edit_file', call: { tool: 'edit_file', read_only: false, paths: ['a[1].md'] } }],
    });
    await fake.answerFor('ap1', true, 'session');
    await fake.answerFor('ap2', false, 'workspace');
    expect(fake.sessionGrants.get('s1')).toEqual([{ scope: 'session', rule: { effect: 'allow', tool: 'run_command', command_line: 'go test ./...' } }]);
    expect((await fake.workspace('/w')).grants).toEqual([{ scope: 'workspace', rule: { effect: 'deny', tool: 'edit_file', path: '/a\\[1\\].md' } }]);
    expect(fake.grantFor('s1', { tool: 'edit_file', read_only: false, paths: ['a[1].md'] })?.rule.effect).toBe('deny');
    expect(fake.grantFor('s1', { tool: 'run_command', read_only: false, command: 'go test ./... -v' })).toBeUndefined();
  });

  it('builds grants as permission.GrantFor does', () => {
    expect(() => grantFor({ tool: 'x', read_only: false, paths: ['a', 'b'] }, true, 'session')).toThrow('several paths');
    expect(() => grantFor({ tool: 'run_command', read_only: false, command: ' ' }, true, 'session')).toThrow('empty command');
    expect(() => grantFor({ tool: 'x', read_only: false }, true, 'once')).toThrow('not remembered');
    const g = grantFor({ tool: 'task', read_only: false }, true, 'workspace');
    expect(g).toEqual({ scope: 'workspace', rule: { effect: 'allow', tool: 'task' } });
    expect(grantCovers(g, { tool: 'task', read_only: false })).toBe(true);
    expect(grantCovers(g, { tool: 'grep', read_only: true })).toBe(false);
  });
});

describe('FakeBridge restores, like session.restore', () => {
  function session(running = false) {
    const log = new EventLog('s1');
    log.user('x');
    log.toolCall({ call_id: 'c1', name: 'write_file' });
    log.result({ call_id: 'c1', name: 'write_file', changes: [{ path: 'new.txt', before: null, after: 'hi' }] });
    log.end('answered');
    return new FakeBridge({ sessions: [makeSummary({ id: 's1', workspace: '/w', running })], events: log.events });
  }

  it('removes a file that did not exist before, and records a restore event', async () => {
    const fake = session();
    expect(await fake.undoRun('s1', 1, false)).toEqual({ done: true, restored: ['new.txt'], conflicts: [] });
    expect(fake.filesOf('/w').get('new.txt')).toBeNull();
    const e = fake.events.get('s1')!.at(-1)!;
    expect(e.kind).toBe('restore');
    if (e.kind === 'restore') expect(e.payload).toEqual({ to_seq: 1, run: 1, restored: ['new.txt'], changes: [{ path: 'new.txt', before: 'hi', after: null }] });
  });

  it('refuses while a run is going, and for a run that does not exist', async () => {
    await expect(session(true).restoreFiles('s1', 1, false)).rejects.toThrow('stop the run before restoring files');
    await expect(session().undoRun('s1', 9, false)).rejects.toThrow('has no run 9');
  });
});
