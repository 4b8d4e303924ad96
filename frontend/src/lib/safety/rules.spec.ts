import { describe, expect, it } from 'vitest';
import type { Rule } from '../types';
import { checkRule, checkRules, cleanRule, grantText, RULE_EXAMPLES, ruleTarget, ruleText, sameRule } from './rules';

describe('ruleText', () => {
  it('names a rule as permission.Rule.String does', () => {
    expect(ruleText({ effect: 'allow', command: 'go test ./...' })).toBe('allow go test ./...');
    expect(ruleText({ effect: 'deny', path: '.env*' })).toBe('deny .env*');
    expect(ruleText({ effect: 'allow', tool: 'write_file', path: 'docs/**' })).toBe('allow write_file docs/**');
    expect(ruleText({ effect: 'ask', command_line: 'make   deploy' })).toBe('ask make   deploy');
    expect(ruleText({ effect: 'deny', tool: 'run_command' })).toBe('deny run_command');
    expect(ruleText({ effect: 'deny' })).toBe('deny every tool');
  });

  it('says what a rule matches', () => {
    expect(ruleTarget({ effect: 'allow', command: 'ls' })).toBe('command');
    expect(ruleTarget({ effect: 'allow', command_line: 'ls -l' })).toBe('command_line');
    expect(ruleTarget({ effect: 'deny', path: '*.pem' })).toBe('path');
    expect(ruleTarget({ effect: 'deny', tool: 'grep' })).toBe('tool');
  });
});

describe('checkRule', () => {
  it('accepts the examples the editor offers', () => {
    for (const ex of RULE_EXAMPLES) expect(checkRule(ex.rule), ruleText(ex.rule)).toBe('');
  });

  it('refuses what the backend would refuse, in its words', () => {
    expect(checkRule({ effect: 'permit' as Rule['effect'], command: 'ls' })).toBe('rule "permit ls": effect must be allow, ask or deny');
    expect(checkRule({ effect: 'allow', command: 'ls', path: 'a' })).toBe('rule "allow ls": give one of command, command_line and path');
    expect(checkRule({ effect: 'allow', tool: 'read_file', command: 'ls' })).toBe('rule "allow ls": command patterns are for run_command, not read_file');
    expect(checkRule({ effect: 'allow', command: 'go test && rm -rf x' })).toContain('must be one simple command');
    expect(checkRule({ effect: 'allow', command: 'ls | sh' })).toContain('must be one simple command');
    expect(checkRule({ effect: 'allow', command: 'echo $(id)' })).toContain('no $ or substitutions');
    expect(checkRule({ effect: 'allow', command: 'echo hi > out.txt' })).toContain('redirections');
    expect(checkRule({ effect: 'allow', command: "echo 'open" })).toContain('quote is not closed');
    expect(checkRule({ effect: 'allow', command: '* foo' })).toContain('must start with a command name');
    expect(checkRule({ effect: 'allow', command: 'FOO=1' })).toContain('must start with a command name');
    expect(checkRule({ effect: 'deny', path: '/' })).toBe('rule "deny /": path pattern "/" is empty');
    expect(checkRule({ effect: 'deny', path: 'src/[ab' })).toContain('is not a valid glob');
    expect(checkRule({ effect: 'allow' })).toContain('say which command, path or tool');
  });

  it('leaves quoted shell characters alone: they are words', () => {
    expect(checkRule({ effect: 'allow', command: "grep -r 'a|b' ." })).toBe('');
    expect(checkRule({ effect: 'allow', command: 'echo "x; y"' })).toBe('');
    expect(checkRule({ effect: 'deny', path: 'a\\[b' })).toBe('');
  });

  it('lists every problem of a list', () => {
    expect(checkRules([{ effect: 'allow', command: 'ls' }, { effect: 'nope' as Rule['effect'], path: 'x' }, { effect: 'deny', path: '/' }])).toHaveLength(2);
  });
});

describe('rules as data', () => {
  it('compares rules by the fields that are set', () => {
    expect(sameRule({ effect: 'deny', path: '.env*', tool: '' }, { effect: 'deny', path: '.env*' })).toBe(true);
    expect(sameRule({ effect: 'deny', path: '.env*' }, { effect: 'ask', path: '.env*' })).toBe(false);
    expect(cleanRule({ effect: 'allow', tool: '', command: 'ls', path: '' })).toEqual({ effect: 'allow', command: 'ls' });
  });

  it('reads a remembered answer in words', () => {
    expect(grantText({ scope: 'workspace', rule: { effect: 'allow', tool: 'run_command', command_line: 'go test ./...' } })).toBe(
      'Allow run_command: go test ./...',
    );
    expect(grantText({ scope: 'workspace', rule: { effect: 'deny', tool: 'write_file', path: '/notes/a\\*b.md' } })).toBe('Deny write_file notes/a*b.md');
    expect(grantText({ scope: 'session', rule: { effect: 'allow', tool: 'task' } })).toBe('Allow every task call');
  });
});
