// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { machineProtections, sandboxedProtections, unconfinedProtections } from '../replay/machine';
import type { Approval } from '../types';
import ApprovalCard from './ApprovalCard.svelte';

afterEach(cleanup);

const base: Approval = {
  id: 'ap1',
  session_id: 's1',
  call_id: 'c1',
  seq: 7,
  tool: 'edit_file',
  args: { path: 'a.go', old_string: 'x', new_string: 'y' },
  display: { path: 'a.go', diff: '--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n' },
  summary: 'Edit a.go',
  call: { tool: 'edit_file', read_only: false, paths: ['a.go'] },
};

describe('ApprovalCard', () => {
  it('shows the diff of a file change', () => {
    render(ApprovalCard, { props: { approval: base, onanswer: () => {} } });
    const diff = screen.getByTestId('diff');
    expect(diff.textContent).toContain('-x');
    expect(diff.textContent).toContain('+y');
    expect(diff.textContent).toContain('a.go');
  });

  it('calls back with allow and deny', async () => {
    const onanswer = vi.fn();
    render(ApprovalCard, { props: { approval: base, onanswer } });
    await fireEvent.click(screen.getByTestId('deny-button'));
    await fireEvent.click(screen.getByTestId('approve-button'));
    expect(onanswer.mock.calls).toEqual([
      [false, 'once'],
      [true, 'once'],
    ]);
  });

  it('disables the buttons while an answer is on its way', () => {
    render(ApprovalCard, { props: { approval: base, onanswer: () => {}, busy: true } });
    expect((screen.getByTestId('approve-button') as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByTestId('deny-button') as HTMLButtonElement).disabled).toBe(true);
  });

  it('shows the arguments when there is nothing better to show', () => {
    render(ApprovalCard, { props: { approval: { ...base, tool: 'task', display: null, args: { prompt: 'go' }, call: { tool: 'task', read_only: false } }, onanswer: () => {} } });
    expect(screen.getByText(/"prompt": "go"/)).toBeTruthy();
  });
});

describe('ApprovalCard: what will happen, why, and for how long', () => {
  const command: Approval = {
    id: 'ap2',
    session_id: 's1',
    call_id: 'c2',
    seq: 9,
    tool: 'run_command',
    args: { command: 'echo hi > a.txt' },
    display: { command: 'echo hi > a.txt', path: '/home/me/w' },
    summary: 'run_command {"command":"echo hi > a.txt"}',
    call: { tool: 'run_command', read_only: false, command: 'echo hi > a.txt' },
    reasons: ['it writes to a file (> a.txt)', 'no rule allows echo hi'],
  };

  it('shows the full command, the folder it runs in and the policy\u2019s reasons', () => {
    render(ApprovalCard, { props: { approval: command, onanswer: () => {} } });
    expect(screen.getByTestId('approval-command').textContent).toBe('echo hi > a.txt');
    expect(screen.getByTestId('approval-dir').textContent).toBe('/home/me/w');
    expect(screen.getAllByTestId('approval-reason').map((li) => li.textContent)).toEqual(['it writes to a file (> a.txt)', 'no rule allows echo hi']);
    // The backend's summary repeats the arguments: the command view says it better.
    expect(screen.queryByText(/run_command \{/)).toBeNull();
  });

  it('offers once, this session, always for this workspace and deny, and answers with the scope', async () => {
    const onanswer = vi.fn();
    render(ApprovalCard, { props: { approval: command, onanswer } });
    expect(screen.getByTestId('approval-card').getAttribute('data-once-only')).toBe('false');
    expect(screen.queryByTestId('approval-once-only')).toBeNull();
    await fireEvent.click(screen.getByTestId('approve-session-button'));
    await fireEvent.click(screen.getByTestId('approve-workspace-button'));
    await fireEvent.click(screen.getByTestId('approve-button'));
    await fireEvent.click(screen.getByTestId('deny-button'));
    expect(onanswer.mock.calls).toEqual([
      [true, 'session'],
      [true, 'workspace'],
      [true, 'once'],
      [false, 'once'],
    ]);
  });

  it('offers only once for a once-only question and says why', async () => {
    const onanswer = vi.fn();
    const approval = { ...command, once_only: true, reasons: ['commands are not sandboxed here: writes: no Landlock'] };
    render(ApprovalCard, { props: { approval, onanswer } });
    expect(screen.getByTestId('approval-card').getAttribute('data-once-only')).toBe('true');
    expect(screen.queryByTestId('approve-session-button')).toBeNull();
    expect(screen.queryByTestId('approve-workspace-button')).toBeNull();
    expect(screen.getByTestId('approval-once-only').textContent).toMatch(/Only “Approve once” is offered: Commands are not sandboxed/);
    await fireEvent.click(screen.getByTestId('approve-button'));
    expect(onanswer).toHaveBeenCalledWith(true, 'once');
  });

  it('shows the path of a read', () => {
    const read: Approval = { ...command, tool: 'read_file', args: { path: 'notes.md' }, display: null, call: { tool: 'read_file', read_only: true, paths: ['notes.md'] }, reasons: ['Ask every time is on', 'it reads notes.md'] };
    render(ApprovalCard, { props: { approval: read, onanswer: () => {} } });
    expect(screen.getByTestId('approval-path').textContent).toBe('notes.md');
    expect(screen.getByText('Reads')).toBeTruthy();
  });

  it('names the protections a command would run without when commands are not sandboxed', () => {
    const cmd: Approval = { ...base, tool: 'run_command', args: { command: 'make' }, display: { command: 'make' }, call: { tool: 'run_command', read_only: false, command: 'make' } };
    const p = machineProtections('no_sockets');
    render(ApprovalCard, { props: { approval: cmd, onanswer: () => {}, protections: p } });
    expect(screen.getByTestId('approval-unsandboxed').textContent).toContain('this command would run without sockets');
    expect(screen.getByTestId('approval-missing').textContent).toBe('Sockets: abstract Unix sockets outside are reachable');
    cleanup();
    render(ApprovalCard, { props: { approval: cmd, onanswer: () => {}, protections: sandboxedProtections() } });
    expect(screen.queryByTestId('approval-unsandboxed')).toBeNull();
    cleanup();
    render(ApprovalCard, { props: { approval: base, onanswer: () => {}, protections: unconfinedProtections() } });
    expect(screen.queryByTestId('approval-unsandboxed')).toBeNull();
  });
});
