// What the settings page, the global banner and an approval say of the OS
// protections commands get. Whether commands are sandboxed, which
// protections they lack and the summary are Go's (sandbox.Report, what
// App.Protections answers); this says in plain words what a command can
// read, write and connect to (what backend/sandbox's view and
// backend/permission's CommandGuard give it), row by row with what the
// probe found.
import type { Protection, Protections, Rule, WorkspaceInfo } from '../types';
import { RUN_COMMAND } from './rules';

/** The required protections commands lack here, as Go judged them. */
export function missingRequired(p: Protections): Protection[] {
  return p.missing ?? [];
}

/** Only the names of the missing required protections, for a sentence: "writes and secrets". */
export function missingNames(p: Protections): string {
  return wordList(missingRequired(p).map((x) => x.Name.toLowerCase()));
}

/** "a", "a and b", "a, b and c". */
export function wordList(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

// --- what commands can reach -------------------------------------------------

/** What the settings page knows of the workspace whose commands it describes. */
export interface ReachContext {
  /** Whether its commands may use the network; null: no workspace is open. */
  network: null | { allowed: boolean; by: 'you' | 'settings file' | '' };
  /** Host paths its commands may also read; null: no workspace is open. */
  expose: string[] | null;
  /** Workspace paths deny rules hide from commands (path globs). */
  hidden: string[];
}

/**
 * The path globs deny rules hide from commands: a deny rule on a path that
 * applies to every tool or to run_command (permission.Policy.CommandGuard).
 * The workspace's settings file's deny rules count trusted or not (they
 * only restrict).
 */
export function hiddenByRules(rules: readonly Rule[]): string[] {
  const out: string[] = [];
  for (const r of rules) {
    if (r.effect !== 'deny' || !r.path || r.command || r.command_line) continue;
    if (r.tool && r.tool !== RUN_COMMAND) continue;
    if (!out.includes(r.path)) out.push(r.path);
  }
  return out;
}

/**
 * What the page says about a workspace's commands: the network as the
 * backend decides it (the user's switch, or the settings file's request
 * once trusted), its exposed paths, and the paths the user's and the
 * settings file's deny rules hide (trusted or not: they only restrict).
 */
export function reachContext(info: WorkspaceInfo | null | undefined, rules: readonly Rule[] = []): ReachContext {
  if (!info) return { network: null, expose: null, hidden: hiddenByRules(rules) };
  const byFile = info.trusted && info.settings.allow_network === true;
  const wsRules = info.settings.rules ?? [];
  return {
    network: { allowed: info.allow_network || byFile, by: info.allow_network ? 'you' : byFile ? 'settings file' : '' },
    expose: [...(info.expose ?? [])],
    hidden: hiddenByRules([...rules, ...wsRules]),
  };
}

/** One protection as a row of the page: Active or Missing, with the probe's words. */
export interface ReachRow {
  name: string;
  active: boolean;
  /** "Active" or "Missing". */
  state: string;
  /** Without it, commands are not sandboxed (Loupe asks before every one). */
  required: boolean;
  /** What the probe says is enforced and how, or why not. */
  detail: string;
}

/** One line of what a command gets; code holds paths or names shown as such. */
export interface ReachItem {
  text: string;
  code?: string[];
}

export type ReachKey = 'read' | 'write' | 'connect' | 'limits';

/** One part of "What commands can reach": Read, Write, Connect, Limits. */
export interface ReachGroup {
  key: ReachKey;
  title: string;
  /** One sentence: what a command may do here. */
  lead: string;
  items: ReachItem[];
  rows: ReachRow[];
  /** Said when a row is missing: which, and what it means; "" when all are active. */
  missing: string;
}

function row(p: Protection, req: boolean): ReachRow {
  return { name: p.Name, active: p.Active, state: p.Active ? 'Active' : 'Missing', required: req, detail: p.Detail };
}

/** The system folders a command's view holds, read-only (sandbox's systemDirs, the common ones). */
export const SYSTEM_FOLDERS = ['/usr', '/bin', '/lib', '/etc', '/opt'] as const;

/** The workspace paths that stay read-only for commands (permission's built-in protected paths). */
export const PROTECTED_PATHS = ['.git/config', '.git/hooks', '.git/modules/…/config', '.git/modules/…/hooks', '.loupe/', '.env*'] as const;

function missingText(rows: ReachRow[]): string {
  const off = rows.filter((r) => !r.active);
  if (off.length === 0) return '';
  const head = `Missing here: ${wordList(off.map((r) => r.name))}. The operating system does not enforce ${off.length === 1 ? 'it' : 'them'}, so what is listed above does not fully hold`;
  if (off.some((r) => r.required)) {
    return `${head}: commands are not sandboxed. Loupe asks before every command and does not remember the answer.`;
  }
  return `${head}: a command could exhaust the machine, though it cannot reach further than the other parts allow.`;
}

/**
 * "What commands can reach", in four parts, each with the protections
 * that enforce it and whether the probe found them.
 */
export function reachGroups(p: Protections, ctx: ReachContext = { network: null, expose: null, hidden: [] }): ReachGroup[] {
  const read: ReachItem[] = [
    { text: 'the workspace' },
    { text: 'the system folders, read-only (system secrets such as /etc/shadow hidden)', code: [...SYSTEM_FOLDERS] },
    { text: 'a home folder and a temp folder of their own, emptied after each command: nothing of your home, other projects or Loupe’s database' },
  ];
  if (ctx.expose == null) read.push({ text: 'and the paths a workspace exposes to its commands (Settings → Workspace)' });
  else if (ctx.expose.length === 0) read.push({ text: 'no other path: this workspace exposes none' });
  else read.push({ text: 'and, read-only, the paths this workspace exposes', code: [...ctx.expose] });

  const write: ReachItem[] = [
    {
      text: 'the workspace, except its protected paths, read-only in every repository and submodule in it: git’s settings and hooks, Loupe’s workspace settings, .env files',
      code: [...PROTECTED_PATHS],
    },
    ctx.hidden.length > 0
      ? { text: 'and except the paths your deny rules hide: commands do not see them at all', code: [...ctx.hidden] }
      : { text: 'a deny rule on a path hides it from commands too (you have none)' },
    { text: 'their own temp folder and home, and the workspace’s cache (~/.cache, kept between commands)' },
  ];

  const net = ctx.network;
  const connect: ReachItem[] = [
    net == null
      ? { text: 'the network: blocked, unless the workspace allows it (Settings → Workspace); a loopback of their own still works' }
      : net.allowed
        ? { text: `the network: allowed for this workspace’s commands (${net.by === 'you' ? 'you turned it on' : 'its trusted settings file asks for it'}), so the network block below does not apply to them` }
        : { text: 'the network: blocked for this workspace’s commands; a loopback of their own still works' },
    { text: 'no Unix socket outside the sandbox: not tmux, ssh-agent, D-Bus or Docker' },
    { text: 'no shared memory, message queue or semaphore of your other programs (an X11 server’s images among them)' },
  ];

  const limits: ReachItem[] = [
    { text: 'the size of each file a command writes, the memory of each process and how many processes it may have at once; no core dumps' },
    { text: 'everything a command starts ends with it, and it cannot signal your other processes' },
  ];

  const groups: Omit<ReachGroup, 'missing'>[] = [
    { key: 'read', title: 'Read', lead: 'Commands can read:', items: read, rows: [row(p.Secrets, true)] },
    { key: 'write', title: 'Write', lead: 'Commands can write:', items: write, rows: [row(p.Writes, true)] },
    { key: 'connect', title: 'Connect', lead: 'Commands can connect to:', items: connect, rows: [row(p.Network, true), row(p.Sockets, true), row(p.IPC, true)] },
    { key: 'limits', title: 'Limits', lead: 'The operating system caps:', items: limits, rows: [row(p.Limits, false), row(p.Processes, true)] },
  ];
  return groups.map((g) => ({ ...g, missing: missingText(g.rows) }));
}
