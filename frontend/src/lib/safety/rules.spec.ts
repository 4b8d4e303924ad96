import { describe, expect, it } from 'vitest';
import { recordedRuleCheck } from '../replay/machine';
import { cleanRule, grantText, RULE_EXAMPLES, ruleTarget, sameRule } from './rules';

describe('ruleTarget', () => {
  it('says what a rule matches', () => {
    expect(ruleTarget({ effect: 'allow', command: 'ls' })).toBe('command');
    expect(ruleTarget({ effect: 'allow', command_line: 'ls -l' })).toBe('command_line');
    expect(ruleTarget({ effect: 'deny', path: '*.pem' })).toBe('path');
    expect(ruleTarget({ effect: 'deny', tool: 'grep' })).toBe('tool');
  });
});

describe('the examples', () => {
  // How a rule reads and what is wrong with it are Go's (permission.Rule.Check,
  // tested in backend/permission); the examples the editor offers must be
  // rules Go accepts, and the window's specs read Go's answer for them.
  it('are rules Go accepts', () => {
    for (const ex of RULE_EXAMPLES) expect(recordedRuleCheck(ex.rule), JSON.stringify(ex.rule)).toMatchObject({ problem: '' });
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
