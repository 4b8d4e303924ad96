// Permission rules as the settings page edits them: what a rule matches,
// examples, how a remembered answer reads, and the path rules the page
// offers where a command rule cannot see (the backend's
// permission.Rule.Limits says which). How a rule reads and what is wrong
// with it are Go's (App.CheckRule: permission.Rule.String and Validate).
import type { Grant, Rule, RuleEffect, RuleLimits } from '../types';

/** The tool whose command the classifier reads (permission.RunCommand). */
export const RUN_COMMAND = 'run_command';

/** What a rule matches: a command pattern, one exact command line, a path glob, or every call of a tool. */
export type RuleTarget = 'command' | 'command_line' | 'path' | 'tool';

export function ruleTarget(r: Rule): RuleTarget {
  if (r.command) return 'command';
  if (r.command_line) return 'command_line';
  if (r.path) return 'path';
  return 'tool';
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
 * lines (Limits says nothing of a rule that does not validate). Other
 * rules are not asked about.
 */
export function hasLimits(r: Rule): boolean {
  return (r.effect === 'deny' || r.effect === 'ask') && Boolean(r.command || r.command_line);
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
    if ([...offer, ...present].some((x) => sameRule(x, r))) continue;
    if (rules.some((x) => sameRule(x, r))) present.push(r);
    else offer.push(r);
  }
  return { offer, present };
}

/** The list with r added at the end, unless a rule saying the same is there already. */
export function withRule(rules: readonly Rule[], r: Rule): Rule[] {
  return rules.some((x) => sameRule(x, r)) ? [...rules] : [...rules, cleanRule(r)];
}
