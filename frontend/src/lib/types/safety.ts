// Mirrors of the safety types of the Go side: backend/permission (modes,
// tool settings, rules, grants, the call a question is about),
// backend/sandbox (which OS protections commands get) and backend/session
// (a workspace's trust and remembered answers, what a restore did). Field
// names are the Go json tags; sandbox.Protections has none, so its fields
// keep their Go names.
import { isRecord } from './json';

/**
 * permission.Mode: "ask_all" asks before every call, reads too; "ask" (the
 * default) runs reads and asks for changes and commands; "auto" runs
 * everything except what deny rules refuse and changes to protected paths.
 */
export type PermissionMode = 'ask_all' | 'ask' | 'auto';
export const PERMISSION_MODES: readonly PermissionMode[] = ['ask_all', 'ask', 'auto'];

/** permission.ToolSetting: overrides the mode for one tool. */
export type ToolSetting = 'always' | 'ask' | 'never';
export const TOOL_SETTINGS: readonly ToolSetting[] = ['always', 'ask', 'never'];

/** permission.Effect: what a rule does to the calls it matches. Deny wins. */
export type RuleEffect = 'allow' | 'ask' | 'deny';
export const RULE_EFFECTS: readonly RuleEffect[] = ['allow', 'ask', 'deny'];

/**
 * permission.Rule. At most one of command, command_line and path is set; a
 * rule with none matches every call of tool. command is a pattern for one
 * simple command's words ("go test ./...", "git log *"); command_line one
 * exact command line; path a doublestar glob relative to the workspace
 * (".env*" at any depth, "/build/**" anchored at the root).
 */
export interface Rule {
  effect: RuleEffect | string;
  tool?: string;
  command?: string;
  command_line?: string;
  path?: string;
}

/** permission.Scope: how long an answer counts. */
export type Scope = 'once' | 'session' | 'workspace';

/** permission.Grant: an answer remembered beyond one call. */
export interface Grant {
  rule: Rule;
  scope: Scope | string;
  /** For a path grant: 'file' covers that path only, 'dir' the folder and what is in it. */
  target?: 'file' | 'dir' | string;
}

/** permission.Call: what the policy decided on (the tool's own arguments only). */
export interface PolicyCall {
  tool: string;
  read_only: boolean;
  command?: string;
  /** Workspace-relative, slash-separated (or absolute, as the model sent them). */
  paths?: string[] | null;
}

/** permission.WorkspaceSettings: what a workspace's .loupe/settings.json proposes. */
export interface WorkspaceSettings {
  rules?: Rule[] | null;
  /** Command patterns to allow; each becomes an allow rule for run_command. */
  commands?: string[] | null;
  host?: string;
  allow_network?: boolean;
}

/** session.WorkspaceInfo: a workspace folder's trust, network and remembered answers. */
export interface WorkspaceInfo {
  dir: string;
  /** The user trusted the settings file as it is now; a changed file needs trusting again. */
  trusted: boolean;
  /** .loupe/settings.json exists (it may still be ignored: settings_error). */
  has_settings: boolean;
  /** Why the file is ignored, if it is. */
  settings_error?: string;
  settings: WorkspaceSettings;
  allow_network: boolean;
  /**
   * Host paths the workspace's commands may also read (read-only): a
   * toolchain under the home folder, a shared data set. Nothing else
   * outside the workspace and the system's folders is in their view.
   */
  expose: string[];
  /** Answers remembered "always for this workspace". */
  grants: Grant[] | null;
}

/** sandbox.Protection: one protection and whether commands get it here. */
export interface Protection {
  Name: string;
  Active: boolean;
  /** What is enforced and how, or why not, in plain words. */
  Detail: string;
}

/** sandbox.Protections: what the probe found on this machine. */
export interface Protections {
  /** The kernel's Landlock ABI version; 0 without Landlock. */
  LandlockABI: number;
  Writes: Protection;
  Network: Protection;
  Processes: Protection;
  Secrets: Protection;
  /** No Unix socket outside the sandbox (tmux, ssh-agent, D-Bus, Docker) is reachable. */
  Sockets: Protection;
  /**
   * No System V shared memory, message queue or semaphore, nor POSIX queue,
   * of the user's other programs is reachable (IPC namespace); its Detail
   * also says what is still shared with the machine.
   */
  IPC: Protection;
  /** Not required for commands to count as sandboxed. */
  Limits: Protection;
}

/**
 * session.Conflict: a file changed outside Loupe since Loupe last wrote it.
 * kept: it is now a link (or not a regular file) or a protected path, and
 * stays as it is even when the user overwrites.
 */
export interface Conflict {
  path: string;
  reason: string;
  kept?: boolean;
}

/** session.RestoreResult: what a restore did, or (done false) which files need a yes first. */
export interface RestoreResult {
  done: boolean;
  restored: string[] | null;
  conflicts: Conflict[] | null;
}

function protectionOf(v: unknown, name: string): Protection {
  const r = isRecord(v) ? v : {};
  return {
    Name: typeof r['Name'] === 'string' && r['Name'] !== '' ? r['Name'] : name,
    Active: r['Active'] === true,
    Detail: typeof r['Detail'] === 'string' ? r['Detail'] : '',
  };
}

/** Protections from the backend with every field present (a missing one is inactive). */
export function protectionsOf(v: unknown): Protections {
  const r = isRecord(v) ? v : {};
  return {
    LandlockABI: typeof r['LandlockABI'] === 'number' ? r['LandlockABI'] : 0,
    Writes: protectionOf(r['Writes'], 'Writes'),
    Network: protectionOf(r['Network'], 'Network'),
    Processes: protectionOf(r['Processes'], 'Processes'),
    Secrets: protectionOf(r['Secrets'], 'Secrets'),
    Sockets: protectionOf(r['Sockets'], 'Sockets'),
    IPC: protectionOf(r['IPC'], 'IPC'),
    Limits: protectionOf(r['Limits'], 'Limits'),
  };
}

/** A WorkspaceInfo from the backend with Go nil slices made empty. */
export function workspaceInfoOf(v: unknown): WorkspaceInfo {
  const r = isRecord(v) ? v : {};
  const s = isRecord(r['settings']) ? r['settings'] : {};
  return {
    dir: typeof r['dir'] === 'string' ? r['dir'] : '',
    trusted: r['trusted'] === true,
    has_settings: r['has_settings'] === true,
    ...(typeof r['settings_error'] === 'string' && r['settings_error'] ? { settings_error: r['settings_error'] } : {}),
    settings: {
      rules: Array.isArray(s['rules']) ? (s['rules'] as Rule[]) : [],
      commands: Array.isArray(s['commands']) ? (s['commands'] as string[]) : [],
      ...(typeof s['host'] === 'string' && s['host'] ? { host: s['host'] } : {}),
      allow_network: s['allow_network'] === true,
    },
    allow_network: r['allow_network'] === true,
    expose: Array.isArray(r['expose']) ? (r['expose'] as unknown[]).filter((p): p is string => typeof p === 'string') : [],
    grants: Array.isArray(r['grants']) ? (r['grants'] as Grant[]) : [],
  };
}

/** A RestoreResult with Go nil slices made empty. */
export function restoreResultOf(v: unknown): RestoreResult {
  const r = isRecord(v) ? v : {};
  return {
    done: r['done'] === true,
    restored: Array.isArray(r['restored']) ? (r['restored'] as string[]) : [],
    conflicts: Array.isArray(r['conflicts']) ? (r['conflicts'] as Conflict[]) : [],
  };
}

/**
 * permission.RuleLimits: what a rule cannot hold, in plain sentences (a
 * command deny rule cannot see inside inline interpreter code or
 * scripts), and the deny path rules that would hold it whatever runs.
 */
export interface RuleLimits {
  limits: string[];
  path_rules: Rule[];
}

/** A RuleLimits from the backend with Go nil slices (omitted fields) made empty. */
export function ruleLimitsOf(v: unknown): RuleLimits {
  const r = isRecord(v) ? v : {};
  return {
    limits: Array.isArray(r['limits']) ? (r['limits'] as unknown[]).filter((s): s is string => typeof s === 'string') : [],
    path_rules: Array.isArray(r['path_rules']) ? (r['path_rules'] as unknown[]).filter((p): p is Rule => isRecord(p) && typeof p['effect'] === 'string') : [],
  };
}
