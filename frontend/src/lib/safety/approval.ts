// What an approval card shows and which answers it offers. The broker
// refuses to remember an answer that is once_only or has no call, and
// GrantFor cannot remember an empty command or several paths: the card
// offers only "once" then, and says why. A command on a machine that
// cannot confine commands says which protections it would run without.
import { isRecord, type Approval, type JsonValue, type Protection, type Protections, type Scope } from '../types';
import { missingNames, missingRequired } from './protections';
import { RUN_COMMAND } from './rules';

/** What will happen if the call is approved. */
export type ApprovalShow =
  | { kind: 'command'; command: string; dir: string }
  | { kind: 'diff'; diff: string; path: string }
  | { kind: 'path'; path: string; verb: string }
  | { kind: 'args' };

function argString(args: JsonValue, key: string): string {
  return isRecord(args) && typeof args[key] === 'string' ? (args[key] as string) : '';
}

const pathVerbs: Record<string, string> = {
  read_file: 'Reads',
  list_dir: 'Lists',
  glob: 'Matches',
  grep: 'Searches in',
  write_file: 'Writes',
  edit_file: 'Edits',
};

/**
 * The full command and the folder it runs in; the diff of an edit or a
 * write; the path of a read; the arguments for anything else.
 */
export function approvalShow(a: Approval): ApprovalShow {
  const d = a.display ?? {};
  if (a.tool === RUN_COMMAND || d.command) {
    const command = d.command || a.call?.command || argString(a.args, 'command');
    return { kind: 'command', command, dir: d.path ?? '' };
  }
  if (d.diff) return { kind: 'diff', diff: d.diff, path: d.path ?? '' };
  const path = a.call?.paths?.[0] || d.path || argString(a.args, 'path') || argString(a.args, 'pattern');
  if (path) return { kind: 'path', path, verb: pathVerbs[a.tool] ?? 'Path' };
  return { kind: 'args' };
}

/** The scopes a card offers, in button order. */
export function answerScopes(a: Approval): Scope[] {
  return onceOnlyWhy(a) === '' ? ['once', 'session', 'workspace'] : ['once'];
}

/** What a command would run without, on a machine that cannot confine commands. */
export interface Unsandboxed {
  /** The missing protections, as the probe describes them. */
  missing: Protection[];
  /** Names them in a sentence, and says that Loupe asks before every command. */
  text: string;
}

/**
 * For a run_command question while commands are not sandboxed: which
 * protections the command would run without. null for other tools, when
 * commands are sandboxed, or when the protections are not known yet.
 */
export function unsandboxedCommand(a: Approval, p: Protections | null | undefined): Unsandboxed | null {
  if (a.tool !== RUN_COMMAND || !p || p.sandboxed) return null;
  return {
    missing: missingRequired(p),
    text: `Not sandboxed: this command would run without ${missingNames(p)} (Settings → Protections). Loupe asks before every command on this machine, whatever your rules allow.`,
  };
}

/**
 * Why only "Approve once" is offered, in a sentence; "" when the answer
 * can be remembered.
 */
export function onceOnlyWhy(a: Approval): string {
  const reasons = (a.reasons ?? []).join('\n');
  if (a.once_only) {
    if (/not sandboxed/i.test(reasons)) {
      return 'Commands are not sandboxed on this machine, so Loupe asks before every command and does not remember the answer.';
    }
    if (/protected/i.test(reasons)) return 'It changes something protected, so Loupe asks every time and does not remember the answer.';
    if (/might be refused|covers/i.test(reasons)) {
      return 'A deny rule might cover it, so Loupe asks every time and does not remember the answer.';
    }
    return 'Loupe asks about this every time: the answer is not remembered.';
  }
  const c = a.call;
  if (!c) return 'The question does not say which call it is about, so the answer cannot be remembered.';
  if (c.tool === RUN_COMMAND && !(c.command ?? '').trim()) return 'The command is empty, so the answer cannot be remembered.';
  if ((c.paths ?? []).length > 1) return 'It touches several paths, so the answer cannot be remembered.';
  return '';
}

export const SCOPE_LABELS: Record<Scope, string> = {
  once: 'Approve once',
  session: 'Approve for this session',
  workspace: 'Always for this workspace',
};

/** What a remembered answer will cover, for the buttons' tooltips. */
export function scopeHint(a: Approval, scope: Scope): string {
  const c = a.call;
  const what =
    c?.tool === RUN_COMMAND
      ? `this exact command line`
      : c?.paths?.length === 1
        ? `${a.tool} on ${c.paths[0]}`
        : `every ${a.tool} call`;
  switch (scope) {
    case 'once':
      return 'Run this call; ask again next time';
    case 'session':
      return `Allow ${what} for the rest of this session`;
    case 'workspace':
      return `Always allow ${what} in this workspace (Settings → Workspace lists it and can forget it)`;
  }
}
