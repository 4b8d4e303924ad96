import { describe, expect, it } from 'vitest';
import { machineProtections, sandboxedProtections, unconfinedProtections } from '../replay/machine';
import type { Approval } from '../types';
import { answerScopes, approvalShow, onceOnlyWhy, scopeHint, unsandboxedCommand } from './approval';

const command: Approval = {
  id: 'ap1',
  session_id: 's1',
  call_id: 'c1',
  seq: 7,
  tool: 'run_command',
  args: { command: 'echo hi > a.txt' },
  display: { command: 'echo hi > a.txt', path: '/home/me/w' },
  summary: 'run_command {"command":"echo hi > a.txt"}',
  call: { tool: 'run_command', read_only: false, command: 'echo hi > a.txt' },
  reasons: ['it writes to a file (> a.txt)', 'no rule allows echo hi'],
};

describe('approvalShow', () => {
  it('shows the full command and the folder it runs in', () => {
    expect(approvalShow(command)).toEqual({ kind: 'command', command: 'echo hi > a.txt', dir: '/home/me/w' });
    // Without a preview, the command the policy decided on.
    expect(approvalShow({ ...command, display: null })).toEqual({ kind: 'command', command: 'echo hi > a.txt', dir: '' });
  });

  it('shows the diff of a change', () => {
    const a: Approval = { ...command, tool: 'edit_file', args: { path: 'a.go' }, display: { path: 'a.go', diff: '-x\n+y\n' }, call: { tool: 'edit_file', read_only: false, paths: ['a.go'] } };
    expect(approvalShow(a)).toEqual({ kind: 'diff', diff: '-x\n+y\n', path: 'a.go' });
  });

  it('shows the path of a read (asked in "Ask every time")', () => {
    const a: Approval = { ...command, tool: 'read_file', args: { path: './src/../main.go' }, display: null, call: { tool: 'read_file', read_only: true, paths: ['main.go'] } };
    expect(approvalShow(a)).toEqual({ kind: 'path', path: 'main.go', verb: 'Reads' });
    // A path the policy could not resolve: the one the model sent.
    expect(approvalShow({ ...a, call: { tool: 'read_file', read_only: true } })).toEqual({ kind: 'path', path: './src/../main.go', verb: 'Reads' });
  });

  it('falls back to the arguments', () => {
    expect(approvalShow({ ...command, tool: 'task', args: { prompt: 'x' }, display: null, call: { tool: 'task', read_only: false } })).toEqual({ kind: 'args' });
  });
});

describe('answerScopes', () => {
  it('offers once, this session and this workspace when the answer can be remembered', () => {
    expect(answerScopes(command)).toEqual(['once', 'session', 'workspace']);
    expect(onceOnlyWhy(command)).toBe('');
    expect(scopeHint(command, 'workspace')).toContain('this exact command line');
  });

  it('offers only once for a once-only question, and says why', () => {
    const unsandboxed = { ...command, once_only: true, reasons: ['commands are not sandboxed here: writes: no Landlock'] };
    expect(answerScopes(unsandboxed)).toEqual(['once']);
    expect(onceOnlyWhy(unsandboxed)).toMatch(/not sandboxed/);
    const protectedPath = { ...command, once_only: true, reasons: ['.env is protected (.env*): Loupe asks before every change to it'] };
    expect(onceOnlyWhy(protectedPath)).toMatch(/protected/);
    const maybeDenied = { ...command, once_only: true, reasons: ['rm $X might be refused by rule: deny rm *: its words are only known when it runs'] };
    expect(onceOnlyWhy(maybeDenied)).toMatch(/deny rule might cover it/);
    expect(onceOnlyWhy({ ...command, once_only: true, reasons: [] })).toMatch(/every time/);
  });

  it('offers only once when the broker could not remember the answer', () => {
    // An ask event without the command the policy decided on (the field is left out when empty).
    expect(answerScopes({ ...command, call: { tool: 'run_command', read_only: false } })).toEqual(['once']);
    expect(onceOnlyWhy({ ...command, call: { tool: 'run_command', read_only: false } })).toMatch(/command is empty/);
    expect(answerScopes({ ...command, call: { tool: 'run_command', read_only: false, command: '  ' } })).toEqual(['once']);
    expect(answerScopes({ ...command, tool: 'x', call: { tool: 'x', read_only: false, paths: ['a', 'b'] } })).toEqual(['once']);
  });
});

describe('unsandboxedCommand', () => {
  it('names the protections a command would run without when commands are not sandboxed', () => {
    const p = machineProtections('no_writes_sockets');
    const u = unsandboxedCommand(command, p);
    expect(u?.missing.map((m) => m.Name)).toEqual(['Writes', 'Sockets']);
    expect(u?.text).toBe(
      'Not sandboxed: this command would run without writes and sockets (Settings → Protections). Loupe asks before every command on this machine, whatever your rules allow.',
    );
  });

  it('says nothing for a sandboxed machine, another tool, or protections not known yet', () => {
    expect(unsandboxedCommand(command, sandboxedProtections())).toBeNull();
    expect(unsandboxedCommand({ ...command, tool: 'write_file' }, unconfinedProtections())).toBeNull();
    expect(unsandboxedCommand(command, null)).toBeNull();
    expect(unsandboxedCommand(command, unconfinedProtections())?.text).toContain('without writes, secrets, network, sockets, ipc and processes');
  });
});
