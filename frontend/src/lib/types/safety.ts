// The safety types' lists. The types themselves are the Go ones (go.ts),
// read as Go sends them: permission's modes, tool settings, rules and
// grants, sandbox.Protections, workspace.Info.
import type { Effect, Mode, ToolSetting } from './go';

/** permission.Mode. */
export type PermissionMode = Mode;
export const PERMISSION_MODES = ['ask_all', 'ask', 'auto'] as const satisfies readonly Mode[];

export type { ToolSetting } from './go';
export const TOOL_SETTINGS = ['always', 'ask', 'never'] as const satisfies readonly ToolSetting[];

/** permission.Effect: what a rule does to the calls it matches. Deny wins. */
export type RuleEffect = Effect;
export const RULE_EFFECTS = ['allow', 'ask', 'deny'] as const satisfies readonly Effect[];
