import { describe, expect, it } from 'vitest';
import type { Rule, RuleLimits } from '../types';
import { hasLimits, limitsKey, limitsToLoad, pathRuleOffers, withRule } from './rules';

const blind: RuleLimits = {
  limits: ['Loupe cannot see inside inline interpreter code (python3 -c, perl -e, node -e), scripts …'],
  path_rules: [{ effect: 'deny', path: '.env' }],
};

describe('which rules have limits', () => {
  it('asks about command deny and ask rules and exact lines, not allow or path rules', () => {
    expect(hasLimits({ effect: 'deny', command: 'cat .env' })).toBe(true);
    expect(hasLimits({ effect: 'ask', command: 'git push *' })).toBe(true);
    expect(hasLimits({ effect: 'deny', command_line: 'rm -rf build' })).toBe(true);
    expect(hasLimits({ effect: 'allow', command: 'go test ./...' })).toBe(false);
    expect(hasLimits({ effect: 'deny', path: '.env*' })).toBe(false);
    expect(hasLimits({ effect: 'deny', tool: 'write_file' })).toBe(false);
  });

  it('loads each rule once, skipping what is known', () => {
    const rules: Rule[] = [
      { effect: 'deny', command: 'cat .env' },
      { effect: 'deny', command: 'cat .env', tool: '' }, // the same rule
      { effect: 'allow', command: 'ls *' },
      { effect: 'ask', command: 'git push *' },
    ];
    expect(limitsToLoad(rules, {})).toEqual([
      { effect: 'deny', command: 'cat .env' },
      { effect: 'ask', command: 'git push *' },
    ]);
    expect(limitsToLoad(rules, { [limitsKey({ effect: 'deny', command: 'cat .env' })]: blind })).toEqual([{ effect: 'ask', command: 'git push *' }]);
  });

  it('keys rules by what they say', () => {
    expect(limitsKey({ effect: 'deny', command: 'cat .env', tool: '' })).toBe(limitsKey({ effect: 'deny', command: 'cat .env' }));
    expect(limitsKey({ effect: 'deny', command: 'cat .env' })).not.toBe(limitsKey({ effect: 'ask', command: 'cat .env' }));
  });
});

describe('path rule offers', () => {
  it('offers the path rules not in the list yet, and says which are there', () => {
    const two: RuleLimits = { limits: [], path_rules: [{ effect: 'deny', path: '*.pem' }, { effect: 'deny', path: 'secrets/key.txt' }] };
    expect(pathRuleOffers(two, [{ effect: 'deny', command: 'cat *.pem secrets/key.txt' }])).toEqual({
      offer: [
        { effect: 'deny', path: '*.pem' },
        { effect: 'deny', path: 'secrets/key.txt' },
      ],
      present: [],
    });
    expect(pathRuleOffers(two, [{ effect: 'deny', path: '*.pem', tool: '' }])).toEqual({
      offer: [{ effect: 'deny', path: 'secrets/key.txt' }],
      present: [{ effect: 'deny', path: '*.pem' }],
    });
  });

  it('offers nothing without limits, and never a repeated rule', () => {
    expect(pathRuleOffers(undefined, [])).toEqual({ offer: [], present: [] });
    const odd: RuleLimits = { limits: [], path_rules: [{ effect: 'deny', path: '.env' }, { effect: 'deny', path: '.env' }] };
    expect(pathRuleOffers(odd, [])).toEqual({ offer: [{ effect: 'deny', path: '.env' }], present: [] });
  });

  it('adds a rule once', () => {
    const rules: Rule[] = [{ effect: 'deny', command: 'cat .env' }];
    const once = withRule(rules, { effect: 'deny', path: '.env', tool: '' });
    expect(once).toEqual([
      { effect: 'deny', command: 'cat .env' },
      { effect: 'deny', path: '.env' },
    ]);
    expect(withRule(once, { effect: 'deny', path: '.env' })).toEqual(once);
    expect(rules).toHaveLength(1); // the list given is left alone
  });
});
