// Permission rules as the settings page edits them: how a rule reads, the
// mistakes the page can catch before saving (the backend checks every rule
// again with a real shell parser and says what is wrong), examples, how
// a remembered answer reads, and the path rules the page offers where a
// command rule cannot see (the backend's permission.Rule.Limits says which).
import type { Grant, Rule, RuleEffect, RuleLimits } from '../types';

/** The tool whose command the classifier reads (permission.RunCommand). */
export const RUN_COMMAND = 'run_command';

/** The built-in tools, in the order the model sees them. */
export const BUILTIN_TOOLS = ['read_file', 'write_file', 'edit_file', 'list_dir', 'glob', 'grep', 'run_command'] as const;

/** The tools that take a path (glob's pattern counts as one). */
export const PATH_TOOLS = ['read_file', 'write_file', 'edit_file', 'list_dir', 'glob', 'grep'] as const;

/** What a rule matches: a command pattern, one exact command line, a path glob, or every call of a tool. */
export type RuleTarget = 'command' | 'command_line' | 'path' | 'tool';

export function ruleTarget(r: Rule): RuleTarget {
  if (r.command) return 'command';
  if (r.command_line) return 'command_line';
  if (r.path) return 'path';
  return 'tool';
}

/** The rule as the backend names it after "rule: " (permission.Rule.String). */
export function ruleText(r: Rule): string {
  let what: string;
  if (r.command) what = r.command;
  else if (r.command_line) what = r.command_line;
  else if (r.path) what = r.tool ? `${r.tool} ${r.path}` : r.path;
  else what = r.tool || 'every tool';
  return `${r.effect} ${what}`;
}

/** A rule with only the fields that are set, as the backend stores it. */
export function cleanRule(r: Rule): Rule {
  const out: Rule = { effect: r.effect };
  if (r.tool) out.tool = r.tool;
  if (r.command) out.command = r.command;
  if (r.command_line) out.command_line = r.command_line;
  if (r.path) out.path = r.path;
  return out;
}

/** Whether two rules say the same thing. */
export function sameRule(a: Rule, b: Rule): boolean {
  return JSON.stringify(cleanRule(a)) === JSON.stringify(cleanRule(b));
}

/** Shell syntax outside quotes that makes a pattern more than one simple command. */
function shellProblem(src: string): string {
  let quote = '';
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (quote) {
      if (c === quote) quote = '';
      else if (c === '\\' && quote === '"') i++;
      continue;
    }
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      continue;
    }
    if (c === '\n' || c === ';' || c === '&' || c === '|') return 'must be one simple command (rules for chains are checked part by part)';
    if (c === '<' || c === '>') return 'must be one simple command without redirections';
    if (c === '$' || c === '`') return 'must use plain words (no $ or substitutions)';
    if (c === '(' || c === ')') return 'must be one simple command with plain words';
  }
  return quote ? 'does not parse: a quote is not closed' : '';
}

function globProblem(p: string): string {
  let square = 0;
  let curly = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') i++;
    else if (c === '[') square++;
    else if (c === ']') square = Math.max(0, square - 1);
    else if (c === '{') curly++;
    else if (c === '}') curly = Math.max(0, curly - 1);
  }
  return square || curly ? 'is not a valid glob' : '';
}

/**
 * What is wrong with a rule, in the backend's words where it can tell
 * without a shell parser; "" when nothing is found. Passing here does not
 * mean the backend accepts it: Save shows the backend's verdict.
 */
export function checkRule(r: Rule): string {
  const name = `rule "${ruleText(r)}"`;
  if (r.effect !== 'allow' && r.effect !== 'ask' && r.effect !== 'deny') return `${name}: effect must be allow, ask or deny`;
  const set = [r.command, r.command_line, r.path].filter((s) => s != null && s !== '').length;
  if (set > 1) return `${name}: give one of command, command_line and path`;
  if ((r.command || r.command_line) && r.tool && r.tool !== RUN_COMMAND) {
    return `${name}: command patterns are for ${RUN_COMMAND}, not ${r.tool}`;
  }
  if (r.command != null && r.command !== '') {
    const src = r.command;
    if (src.trim() === '') return `${name}: command pattern is empty`;
    const p = shellProblem(src);
    if (p) return `${name}: command pattern "${src}" ${p}`;
    const words = src.trim().split(/\s+/).filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    if (words.length === 0 || words[0] === '*') return `${name}: command pattern "${src}" must start with a command name`;
  }
  if (r.command_line != null && r.command_line !== '') {
    if (r.command_line.trim() === '') return `${name}: the command line is empty`;
  }
  if (r.path != null && r.path !== '') {
    const p = r.path.replace(/\/+$/, '').replace(/^\//, '').replace(/^\.\//, '');
    if (p === '') return `${name}: path pattern "${r.path}" is empty`;
    const g = globProblem(p);
    if (g) return `${name}: path pattern "${r.path}" ${g}`;
  }
  if (set === 0 && !r.tool) return `${name}: say which command, path or tool it is about`;
  return '';
}

/** Everything wrong with a list of rules: one line per problem. */
export function checkRules(rules: readonly Rule[]): string[] {
  return rules.map(checkRule).filter((p) => p !== '');
}

export interface RuleExample {
  rule: Rule;
  /** What it does, in a few words. */
  what: string;
}

/** Examples the editor offers with one click. */
export const RULE_EXAMPLES: readonly RuleExample[] = [
  { rule: { effect: 'allow', command: 'go test ./...' }, what: 'run the Go tests without asking' },
  { rule: { effect: 'allow', command: 'git log *' }, what: 'read the git history without asking' },
  { rule: { effect: 'ask', command: 'git push *' }, what: 'always ask before pushing, whatever else allows it' },
  { rule: { effect: 'deny', command: 'rm *' }, what: 'never run rm (also /bin/rm, \\rm)' },
  { rule: { effect: 'deny', path: '.env*' }, what: 'never touch .env files, at any depth' },
  { rule: { effect: 'deny', path: '**/*.pem' }, what: 'never touch private keys' },
  { rule: { effect: 'allow', tool: 'write_file', path: 'docs/**' }, what: 'write under docs/ without asking' },
];

const effectWords: Record<string, string> = { allow: 'Allow', ask: 'Ask for', deny: 'Deny' };

/** A remembered answer in words: "Allow run_command: go test ./..." or "Deny write_file notes.md". */
export function grantText(g: Grant): string {
  const r = g.rule;
  const verb = effectWords[r.effect] ?? r.effect;
  if (r.command_line) return `${verb} ${RUN_COMMAND}: ${r.command_line}`;
  if (r.command) return `${verb} ${RUN_COMMAND}: ${r.command}`;
  if (r.path) {
    // Grants name one exact path: "/" anchors it, glob characters are escaped.
    const path = r.path.replace(/^\//, '').replace(/\\(.)/g, '$1');
    return `${verb} ${r.tool ? `${r.tool} ` : ''}${path}`;
  }
  return `${verb} every ${r.tool || 'tool'} call`;
}

/** The effects in the order the editor offers them, with a short label. */
export const EFFECT_LABELS: Record<RuleEffect, string> = {
  allow: 'Allow',
  ask: 'Ask',
  deny: 'Deny',
};

/**
 * Whether the backend has something to say about what a rule cannot hold
 * (permission.Rule.Limits): command deny and ask rules and exact command
 * lines that pass checkRule. Other rules are not asked about.
 */
export function hasLimits(r: Rule): boolean {
  return (r.effect === 'deny' || r.effect === 'ask') && Boolean(r.command || r.command_line) && checkRule(r) === '';
}

/** The key a rule's limits are kept under: rules that say the same thing share it. */
export function limitsKey(r: Rule): string {
  return JSON.stringify(cleanRule(r));
}

/** The rules to ask the backend about: those with limits that are not known yet, each once. */
export function limitsToLoad(rules: readonly Rule[], known: Readonly<Record<string, RuleLimits>>): Rule[] {
  const out: Rule[] = [];
  const seen = new Set<string>();
  for (const r of rules) {
    const k = limitsKey(r);
    if (!hasLimits(r) || k in known || seen.has(k)) continue;
    seen.add(k);
    out.push(cleanRule(r));
  }
  return out;
}

/** The suggested path rules of a rule's limits, split into those to offer and those already in the list. */
export function pathRuleOffers(limits: RuleLimits | undefined, rules: readonly Rule[]): { offer: Rule[]; present: Rule[] } {
  const offer: Rule[] = [];
  const present: Rule[] = [];
  for (const p of limits?.path_rules ?? []) {
    const r = cleanRule(p);
    if (checkRule(r) !== '' || [...offer, ...present].some((x) => sameRule(x, r))) continue;
    if (rules.some((x) => sameRule(x, r))) present.push(r);
    else offer.push(r);
  }
  return { offer, present };
}

/** The list with r added at the end, unless a rule saying the same is there already. */
export function withRule(rules: readonly Rule[], r: Rule): Rule[] {
  return rules.some((x) => sameRule(x, r)) ? [...rules] : [...rules, cleanRule(r)];
}
