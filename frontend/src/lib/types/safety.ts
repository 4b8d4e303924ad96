// The safety types' lists and the window's reading of what the backend
// sends. The types themselves are the Go ones (go.ts): permission's modes,
// tool settings, rules and grants, sandbox.Protections, workspace.Info.
import type { Conflict, Effect, Grant, Mode, RestoreResult, Rule, RuleLimitsWire, ToolSetting, WorkspaceInfo } from './go';
import { isRecord } from './json';

/** permission.Mode. */
export type PermissionMode = Mode;
export const PERMISSION_MODES = ['ask_all', 'ask', 'auto'] as const satisfies readonly Mode[];

export type { ToolSetting } from './go';
export const TOOL_SETTINGS = ['always', 'ask', 'never'] as const satisfies readonly ToolSetting[];

/** permission.Effect: what a rule does to the calls it matches. Deny wins. */
export type RuleEffect = Effect;
export const RULE_EFFECTS = ['allow', 'ask', 'deny'] as const satisfies readonly Effect[];

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

/** permission.RuleLimits with both lists present (Go leaves an empty one out). */
export type RuleLimits = Required<RuleLimitsWire>;

/** A RuleLimits from the backend with Go nil slices (omitted fields) made empty. */
export function ruleLimitsOf(v: unknown): RuleLimits {
  const r = isRecord(v) ? v : {};
  return {
    limits: Array.isArray(r['limits']) ? (r['limits'] as unknown[]).filter((s): s is string => typeof s === 'string') : [],
    path_rules: Array.isArray(r['path_rules']) ? (r['path_rules'] as unknown[]).filter((p): p is Rule => isRecord(p) && typeof p['effect'] === 'string') : [],
  };
}
