import { describe, expect, it } from 'vitest';
import { machineProtections, sandboxedProtections, unconfinedProtections } from '../replay/machine';
import type { WorkspaceInfo, WorkspaceSettings } from '../types';
import {
  hiddenByRules,
  missingNames,
  reachContext,
  reachGroups,
  type ReachGroup,
} from './protections';

const WS = '/home/me/project';

function info(over: Partial<WorkspaceInfo> = {}): WorkspaceInfo {
  const none: WorkspaceInfo = { dir: WS, trusted: false, has_settings: false, settings: {}, allow_network: false, expose: null, grants: null };
  return { ...none, ...over };
}

/** Each group as "title: Name=state, …" for a compact comparison. */
function states(groups: ReachGroup[]): string[] {
  return groups.map((g) => `${g.title}: ${g.rows.map((r) => `${r.name}=${r.state}`).join(', ')}`);
}

function group(groups: ReachGroup[], key: ReachGroup['key']): ReachGroup {
  const g = groups.find((x) => x.key === key);
  if (!g) throw new Error(`no ${key} group`);
  return g;
}

const words = (g: ReachGroup) => g.items.map((i) => [i.text, ...(i.code ?? [])].join(' ')).join('\n');

describe('the missing protections', () => {
  it('are named from what Go judged', () => {
    expect(missingNames(sandboxedProtections())).toBe('');
    expect(missingNames(machineProtections('no_writes_sockets'))).toBe('writes and sockets');
    expect(missingNames(unconfinedProtections())).toBe('writes, secrets, network, sockets, ipc and processes');
  });
});

describe('what commands can reach', () => {
  it('puts every protection in one of Read, Write, Connect and Limits, Active when the probe found it', () => {
    const groups = reachGroups(sandboxedProtections());
    expect(states(groups)).toEqual([
      'Read: Secrets=Active',
      'Write: Writes=Active',
      'Connect: Network=Active, Sockets=Active, IPC=Active',
      'Limits: Limits=Active, Processes=Active',
    ]);
    expect(groups.every((g) => g.missing === '')).toBe(true);
    // Each row carries the probe's own words.
    expect(group(groups, 'connect').rows[1]!.detail).toBe(sandboxedProtections().Sockets.Detail);
  });

  it('says which protections are missing and that Loupe asks before every command', () => {
    const groups = reachGroups(machineProtections('no_sockets'));
    expect(states(groups)[2]).toBe('Connect: Network=Active, Sockets=Missing, IPC=Active');
    const connect = group(groups, 'connect');
    expect(connect.rows[1]).toEqual({ name: 'Sockets', active: false, state: 'Missing', required: true, detail: 'abstract Unix sockets outside are reachable' });
    expect(connect.missing).toBe(
      'Missing here: Sockets. The operating system does not enforce it, so what is listed above does not fully hold: commands are not sandboxed. Loupe asks before every command and does not remember the answer.',
    );
    expect(group(groups, 'read').missing).toBe('');

    const none = reachGroups(unconfinedProtections());
    expect(states(none)).toEqual([
      'Read: Secrets=Missing',
      'Write: Writes=Missing',
      'Connect: Network=Missing, Sockets=Missing, IPC=Missing',
      'Limits: Limits=Active, Processes=Missing',
    ]);
    expect(group(none, 'connect').missing).toMatch(/^Missing here: Network, Sockets and IPC\. The operating system does not enforce them, .* Loupe asks before every command/);
  });

  it('says missing limits let a command exhaust the machine, without calling it unsandboxed', () => {
    const limits = group(reachGroups(machineProtections('no_limits')), 'limits');
    expect(limits.rows[0]).toMatchObject({ name: 'Limits', state: 'Missing', required: false, detail: 'no process limit' });
    expect(limits.missing).toBe(
      'Missing here: Limits. The operating system does not enforce it, so what is listed above does not fully hold: a command could exhaust the machine, though it cannot reach further than the other parts allow.',
    );
  });

  it('lists what commands read and write: the workspace, system folders, their own home and temp, protected paths read-only', () => {
    const groups = reachGroups(sandboxedProtections());
    const read = words(group(groups, 'read'));
    expect(read).toContain('the workspace');
    expect(read).toContain('/usr');
    expect(read).toContain('/etc');
    expect(read).toContain('/opt');
    expect(read).toContain('a home folder and a temp folder of their own');
    expect(read).toContain('the paths a workspace exposes');
    const write = words(group(groups, 'write'));
    for (const p of ['.git/config', '.git/hooks', '.git/modules/…/config', '.loupe/', '.env*']) expect(write).toContain(p);
    expect(write).toContain('their own temp folder and home, and the workspace’s cache');
    expect(write).toContain('you have none');
    const connect = words(group(groups, 'connect'));
    expect(connect).toContain('blocked, unless the workspace allows it');
    expect(connect).toMatch(/tmux, ssh-agent, D-Bus or Docker/);
    const limits = words(group(groups, 'limits'));
    expect(limits).toMatch(/size of each file.*memory of each process.*how many processes/);
  });

  it('names the workspace’s exposed paths, its network setting and the paths deny rules hide', () => {
    const ws = info({ expose: ['/opt/sdk', '/home/me/go'], allow_network: true });
    const groups = reachGroups(sandboxedProtections(), reachContext(ws, [{ effect: 'deny', path: 'secrets/**' }]));
    expect(group(groups, 'read').items.at(-1)).toEqual({ text: 'and, read-only, the paths this workspace exposes', code: ['/opt/sdk', '/home/me/go'] });
    expect(group(groups, 'write').items[1]).toEqual({ text: 'and except the paths your deny rules hide: commands do not see them at all', code: ['secrets/**'] });
    expect(words(group(groups, 'connect'))).toContain('the network: allowed for this workspace’s commands (you turned it on)');

    const closed = reachGroups(sandboxedProtections(), reachContext(info()));
    expect(words(group(closed, 'read'))).toContain('no other path: this workspace exposes none');
    expect(words(group(closed, 'connect'))).toContain('the network: blocked for this workspace’s commands');
  });
});

describe('reachContext', () => {
  it('allows the network as the backend does: the user’s switch, or the settings file once trusted', () => {
    const asks = { rules: [], commands: [], allow_network: true };
    expect(reachContext(info({ settings: asks })).network).toEqual({ allowed: false, by: '' });
    expect(reachContext(info({ settings: asks, trusted: true })).network).toEqual({ allowed: true, by: 'settings file' });
    expect(reachContext(info({ allow_network: true })).network).toEqual({ allowed: true, by: 'you' });
    expect(reachContext(null)).toEqual({ network: null, expose: null, hidden: [] });
  });

  it('hides the paths of deny rules for every tool or run_command, the settings file’s trusted or not', () => {
    expect(
      hiddenByRules([
        { effect: 'deny', path: '.env*' },
        { effect: 'deny', tool: 'run_command', path: 'secrets/**' },
        { effect: 'deny', tool: 'read_file', path: 'private/**' },
        { effect: 'ask', path: 'docs/**' },
        { effect: 'deny', command: 'rm *' },
        { effect: 'deny', path: '.env*' },
      ]),
    ).toEqual(['.env*', 'secrets/**']);
    const file: WorkspaceSettings = { rules: [{ effect: 'deny', path: 'keys/**' }], commands: [] };
    expect(reachContext(info({ settings: file }), []).hidden).toEqual(['keys/**']);
    expect(reachContext(info({ settings: file, trusted: true }), [{ effect: 'deny', path: '.env*' }]).hidden).toEqual(['.env*', 'keys/**']);
  });
});
