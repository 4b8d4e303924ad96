// The safety side of FakeBridge, as the backend's permission broker and
// session.restore do it: answers to approvals (once, for the session, or
// always for the workspace), workspace folders with their settings file,
// trust, network, exposed paths and remembered grants, the OS protections,
// and putting files back (restore, undo a run).
import { cleanPath, isWithin, planRestore, RUN_COMMAND } from '../safety';
import type { Grant, PolicyCall, Protections, RestoreResult, Scope, WorkspaceInfo, WorkspaceSettings } from '../types';
import { FakeStore, type FakeOptions } from './fakestore';
import { BridgeError } from './types';

/** What a Linux machine with Landlock ABI 6 and user namespaces offers: everything. */
export function sandboxedProtections(): Protections {
  return {
    LandlockABI: 6,
    Writes: { Name: 'Writes', Active: true, Detail: 'only the workspace and a temporary directory are writable (Landlock ABI 6)' },
    Network: { Name: 'Network', Active: true, Detail: 'blocked: a network namespace with only a loopback interface' },
    Processes: { Name: 'Processes', Active: true, Detail: 'a PID namespace: nothing a command starts outlives it' },
    Secrets: { Name: 'Secrets', Active: true, Detail: 'a command sees the workspace, the system\'s directories and a private home: nothing of your home' },
    Sockets: { Name: 'Sockets', Active: true, Detail: 'no Unix socket outside the sandbox is reachable: abstract sockets are per network namespace' },
    Limits: { Name: 'Limits', Active: true, Detail: 'files up to 1024 MiB, 8 GiB of memory per process, at most 2048 processes' },
  };
}

/** A kernel without Landlock or user namespaces: nothing confines commands. */
export function unconfinedProtections(why = 'Landlock is not available (the kernel does not support it)'): Protections {
  return {
    LandlockABI: 0,
    Writes: { Name: 'Writes', Active: false, Detail: why },
    Network: { Name: 'Network', Active: false, Detail: 'no network namespace and no Landlock network rules' },
    Processes: { Name: 'Processes', Active: false, Detail: 'no PID namespace: user namespaces are disabled' },
    Secrets: { Name: 'Secrets', Active: false, Detail: 'no mount namespace; only the environment is scrubbed' },
    Sockets: { Name: 'Sockets', Active: false, Detail: 'Unix sockets outside the sandbox (tmux, ssh-agent, D-Bus, Docker) are reachable: no mount namespace' },
    Limits: { Name: 'Limits', Active: true, Detail: 'files up to 1024 MiB, 8 GiB of memory per process, no core dumps' },
  };
}

/** A workspace folder as the fake backend keeps it. */
export interface FakeWorkspace {
  /** What .loupe/settings.json holds; null when there is none. */
  file: WorkspaceSettings | null;
  /** Why the file is ignored (it does not parse…). */
  fileError?: string;
  /** Changes whenever the file does: trust is tied to it. */
  digest: string;
  trustedDigest: string;
  allowNetwork: boolean;
  /** Host paths its commands may also read. */
  expose: string[];
  grants: Grant[];
}

/** The fake machine's home folder and Loupe's data folder in it, which cannot be exposed. */
export const FAKE_HOME = '/home/me';
export const FAKE_DATA_DIR = '/home/me/.local/share/loupe';

const scopeBy: Record<Scope, string> = { once: 'you', session: 'you (for this session)', workspace: 'you (always for this workspace)' };

/** The name an answer of this scope gives in "Allowed by …". */
export function answeredBy(scope: Scope): string {
  return scopeBy[scope];
}

function escapeGlob(p: string): string {
  return p.replace(/[*?[\]{}\\]/g, (c) => `\\${c}`);
}

/** permission.GrantFor: the grant that remembers an answer about a call. */
export function grantFor(c: PolicyCall, allow: boolean, scope: Scope): Grant {
  if (scope !== 'session' && scope !== 'workspace') throw new Error(`permission: a "${scope}" answer is not remembered`);
  const rule: Grant['rule'] = { effect: allow ? 'allow' : 'deny', tool: c.tool };
  const paths = c.paths ?? [];
  if (c.tool === RUN_COMMAND) {
    if (!(c.command ?? '').trim()) throw new Error('permission: cannot remember an empty command');
    rule.command_line = c.command;
  } else if (paths.length > 1) {
    throw new Error('permission: cannot remember a call with several paths');
  } else if (paths.length === 1) {
    rule.path = `/${escapeGlob(paths[0]!)}`;
  }
  return { rule, scope };
}

/** Whether a remembered grant covers a call (the exact command line, path or tool it names). */
export function grantCovers(g: Grant, c: PolicyCall): boolean {
  const r = g.rule;
  if (r.tool && r.tool !== c.tool) return false;
  if (r.command_line) return c.tool === RUN_COMMAND && (c.command ?? '').trim() === r.command_line.trim();
  if (r.path) return (c.paths ?? []).length === 1 && r.path === `/${escapeGlob(c.paths![0]!)}`;
  return !r.command;
}

export class FakeSafety extends FakeStore {
  /** Called after an answer was accepted (the approval is closed by then). */
  onAnswer?: (approvalId: string, allow: boolean, scope: Scope) => void;
  /** What Protections returns. */
  protectionsInfo: Protections;
  /** Workspace folders by path; one is made on first use. */
  readonly workspaces = new Map<string, FakeWorkspace>();
  /**
   * Files of each workspace folder as tools and restores left them (null:
   * removed). A file not listed is taken to be as Loupe last left it; set
   * one to simulate a change outside Loupe.
   */
  readonly files = new Map<string, Map<string, string | null>>();
  /** Answers remembered "for this session", by session. */
  readonly sessionGrants = new Map<string, Grant[]>();
  /** What pickFolder returns ("" = the user cancelled). */
  folderToPick = '/home/me/sdk';
  /** Host paths that do not exist, for setWorkspaceExpose to refuse. */
  readonly missingPaths = new Set<string>();

  constructor(opts: FakeOptions = {}) {
    super(opts);
    this.protectionsInfo = opts.protections ?? sandboxedProtections();
  }

  async answer(approvalId: string, allow: boolean): Promise<void> {
    this.record('answer', approvalId, allow);
    this.#reply(approvalId, allow, 'once', 'answer');
  }

  async answerFor(approvalId: string, allow: boolean, scope: Scope): Promise<void> {
    this.record('answerFor', approvalId, allow, scope);
    this.#reply(approvalId, allow, scope, 'answerFor');
  }

  /** permission.Broker.Reply: first answer wins; a longer scope needs a call and must not be once_only. */
  #reply(approvalId: string, allow: boolean, scope: Scope, method: string): void {
    if (scope !== 'once' && scope !== 'session' && scope !== 'workspace') {
      throw new BridgeError(`permission: unknown scope "${String(scope)}" (use once, session or workspace)`, method);
    }
    const a = this.approvals.get(approvalId);
    if (!a) throw new BridgeError('permission: no such pending request (already answered or the run stopped)', method);
    if (scope !== 'once') {
      if (a.once_only) throw new BridgeError('permission: this can only be answered for this call (it touches something protected)', method);
      if (!a.call) throw new BridgeError('permission: this question cannot be remembered (it does not say which call it is about)', method);
      let g: Grant;
      try {
        g = grantFor(a.call, allow, scope);
      } catch (e) {
        throw new BridgeError(e instanceof Error ? e.message : String(e), method);
      }
      if (scope === 'session') this.sessionGrants.set(a.session_id, [...(this.sessionGrants.get(a.session_id) ?? []), g]);
      else {
        const ws = this.#workspace(this.sessions.get(a.session_id)?.workspace ?? '');
        ws.grants = [...ws.grants, g];
      }
    }
    this.emitApprovalClosed({ id: approvalId, decision: allow ? 'allow' : 'deny' });
    this.onAnswer?.(approvalId, allow, scope);
  }

  /** The remembered answer that covers a call of this session, if any (session grants first). */
  grantFor(sessionId: string, c: PolicyCall): Grant | undefined {
    const ws = this.workspaces.get(this.sessions.get(sessionId)?.workspace ?? '');
    return [...(this.sessionGrants.get(sessionId) ?? []), ...(ws?.grants ?? [])].find((g) => grantCovers(g, c));
  }

  #workspace(dir: string): FakeWorkspace {
    let ws = this.workspaces.get(dir);
    if (!ws) {
      ws = { file: null, digest: '', trustedDigest: '', allowNetwork: false, expose: [], grants: [] };
      this.workspaces.set(dir, ws);
    }
    return ws;
  }

  /** Writes (or removes, with null) a workspace's .loupe/settings.json: a changed file needs trusting again. */
  setWorkspaceFile(dir: string, file: WorkspaceSettings | null, error = ''): void {
    const ws = this.#workspace(dir);
    ws.file = file;
    ws.fileError = error || undefined;
    ws.digest = file || error ? `sha-${JSON.stringify(file)}-${error}` : '';
  }

  #checkDir(dir: string, method: string): string {
    if (!dir.startsWith('/')) throw new BridgeError(`workspace ${dir}: not an absolute path`, method);
    return dir.replace(/\/+$/, '') || '/';
  }

  async workspace(dir: string): Promise<WorkspaceInfo> {
    this.record('workspace', dir);
    const abs = this.#checkDir(dir, 'workspace');
    const ws = this.#workspace(abs);
    const info: WorkspaceInfo = {
      dir: abs,
      trusted: false,
      has_settings: ws.file != null || ws.fileError != null,
      settings: {},
      allow_network: ws.allowNetwork,
      expose: [...ws.expose],
      grants: ws.grants.map((g) => ({ ...g, rule: { ...g.rule } })),
    };
    if (ws.fileError) info.settings_error = `workspace settings .loupe/settings.json ignored: ${ws.fileError}`;
    else if (ws.file) {
      info.settings = { rules: [...(ws.file.rules ?? [])], commands: [...(ws.file.commands ?? [])], ...(ws.file.host ? { host: ws.file.host } : {}), allow_network: ws.file.allow_network ?? false };
      info.trusted = ws.trustedDigest !== '' && ws.trustedDigest === ws.digest;
    }
    return info;
  }

  async trustWorkspace(dir: string, trust: boolean): Promise<void> {
    this.record('trustWorkspace', dir, trust);
    const ws = this.#workspace(this.#checkDir(dir, 'trustWorkspace'));
    if (trust && ws.fileError) throw new BridgeError(`cannot trust it: workspace settings .loupe/settings.json ignored: ${ws.fileError}`, 'trustWorkspace');
    ws.trustedDigest = trust ? ws.digest : '';
  }

  async setWorkspaceNetwork(dir: string, allow: boolean): Promise<void> {
    this.record('setWorkspaceNetwork', dir, allow);
    this.#workspace(this.#checkDir(dir, 'setWorkspaceNetwork')).allowNetwork = allow;
  }

  /** session.Manager.SetWorkspaceExpose: every path checked, nothing saved when one is refused. */
  async setWorkspaceExpose(dir: string, paths: string[]): Promise<void> {
    this.record('setWorkspaceExpose', dir, [...paths]);
    const ws = this.#workspace(this.#checkDir(dir, 'setWorkspaceExpose'));
    const clean: string[] = [];
    for (const raw of paths) {
      const p = raw.trim();
      if (p === '') continue;
      if (!p.startsWith('/')) throw new BridgeError(`"${p}": give an absolute path`, 'setWorkspaceExpose');
      const c = cleanPath(p);
      if (this.missingPaths.has(c)) throw new BridgeError(`${c} cannot be shown to commands: stat ${c}: no such file or directory`, 'setWorkspaceExpose');
      if (c === '/' || isWithin(FAKE_HOME, c)) throw new BridgeError(`${c} cannot be shown to commands: it is or holds your home folder`, 'setWorkspaceExpose');
      if (isWithin(FAKE_DATA_DIR, c)) throw new BridgeError(`${c} cannot be shown to commands: it holds Loupe's data folder`, 'setWorkspaceExpose');
      clean.push(c);
    }
    ws.expose = clean;
  }

  async pickFolder(title: string): Promise<string> {
    this.record('pickFolder', title);
    return this.folderToPick;
  }

  async forgetGrants(dir: string): Promise<void> {
    this.record('forgetGrants', dir);
    this.#workspace(this.#checkDir(dir, 'forgetGrants')).grants = [];
  }

  async protections(): Promise<Protections> {
    this.record('protections');
    return structuredClone(this.protectionsInfo);
  }

  /** A workspace's files as the fake knows them. */
  filesOf(dir: string): Map<string, string | null> {
    let m = this.files.get(dir);
    if (!m) {
      m = new Map();
      this.files.set(dir, m);
    }
    return m;
  }

  async restoreFiles(id: string, seq: number, force: boolean): Promise<RestoreResult> {
    this.record('restoreFiles', id, seq, force);
    return this.#restore(id, seq, 0, force, 'restoreFiles');
  }

  async undoRun(id: string, run: number, force: boolean): Promise<RestoreResult> {
    this.record('undoRun', id, run, force);
    const first = (this.events.get(id) ?? []).find((e) => e.run === run);
    if (!first) throw new BridgeError(`session ${id} has no run ${run}`, 'undoRun');
    return this.#restore(id, first.seq, run, force, 'undoRun');
  }

  /** session.restore: put the files back, or report the conflicts and write nothing. */
  #restore(id: string, toSeq: number, run: number, force: boolean, method: string): RestoreResult {
    const s = this.sessions.get(id);
    if (!s) throw new BridgeError(`No session ${id}.`, method);
    if (s.running || s.paused) throw new BridgeError('stop the run before restoring files', method);
    const events = this.events.get(id) ?? [];
    const files = this.filesOf(s.workspace);
    const plan = planRestore(events, toSeq, (p) => (files.has(p) ? files.get(p)! : undefined));
    if (plan.conflicts.length > 0 && !force) return { done: false, restored: [], conflicts: plan.conflicts };
    for (const w of plan.writes) files.set(w.path, w.content);
    this.commit(
      id,
      'restore',
      {
        to_seq: toSeq,
        ...(run ? { run } : {}),
        restored: plan.paths,
        ...(plan.conflicts.length ? { overwritten: plan.conflicts.map((c) => c.path) } : {}),
        ...(plan.changes.length ? { changes: plan.changes } : {}),
      },
      events.at(-1)?.run ?? 0,
      0,
    );
    return { done: true, restored: plan.paths, conflicts: plan.conflicts };
  }
}
