// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { limitsKey } from '../safety';
import type { Rule, RuleLimits } from '../types';
import { judged } from '../testing/judged';
import RulesEditor from './RulesEditor.svelte';

afterEach(cleanup);

function show(rules: Rule[] = [], limits: Record<string, RuleLimits> = {}) {
  const onchange = vi.fn();
  render(RulesEditor, { props: { rules, onchange, limits, ...judged } });
  return onchange;
}

async function type(value: string) {
  await fireEvent.input(screen.getByTestId('rule-pattern'), { target: { value } });
}

describe('RulesEditor', () => {
  it('adds an allow rule for a command', async () => {
    const onchange = show();
    expect(screen.getByTestId('rules-empty')).toBeTruthy();
    await type('go test ./...');
    await fireEvent.click(screen.getByTestId('rule-add'));
    expect(onchange).toHaveBeenCalledWith([{ effect: 'allow', command: 'go test ./...' }]);
    expect(screen.queryByTestId('rule-error')).toBeNull();
  });

  it('adds a deny rule for a path, for one tool or any, with Enter', async () => {
    const onchange = show();
    await fireEvent.change(screen.getByTestId('rule-effect'), { target: { value: 'deny' } });
    await fireEvent.change(screen.getByTestId('rule-target'), { target: { value: 'path' } });
    await type('**/*.pem');
    await fireEvent.keyDown(screen.getByTestId('rule-pattern'), { key: 'Enter' });
    expect(onchange).toHaveBeenLastCalledWith([{ effect: 'deny', path: '**/*.pem' }]);
    await fireEvent.change(screen.getByTestId('rule-tool'), { target: { value: 'write_file' } });
    await type('docs/**');
    await fireEvent.click(screen.getByTestId('rule-add'));
    expect(onchange).toHaveBeenLastCalledWith([{ effect: 'deny', path: 'docs/**', tool: 'write_file' }]);
  });

  it('refuses a chain, an empty pattern and a duplicate, and says why', async () => {
    const onchange = show([{ effect: 'allow', command: 'make test' }]);
    await type('go build && rm -rf x');
    await fireEvent.click(screen.getByTestId('rule-add'));
    expect(screen.getByTestId('rule-error').textContent).toContain('must be one simple command');
    await type('');
    await fireEvent.click(screen.getByTestId('rule-add'));
    expect(screen.getByTestId('rule-error').textContent).toContain('Type a command pattern');
    await type('make test');
    await fireEvent.click(screen.getByTestId('rule-add'));
    expect(screen.getByTestId('rule-error').textContent).toContain('already a rule "allow make test"');
    expect(onchange).not.toHaveBeenCalled();
    // Typing again clears the message.
    await type('make tes');
    expect(screen.queryByTestId('rule-error')).toBeNull();
  });

  it('lists the rules, marks a broken one and removes one', async () => {
    const onchange = show([
      { effect: 'allow', command: 'go test ./...' },
      { effect: 'deny', path: 'src/[ab' },
      { effect: 'deny', path: '.env*' },
    ]);
    const rows = screen.getAllByTestId('rule-row');
    expect(rows.map((r) => r.getAttribute('data-effect'))).toEqual(['allow', 'deny', 'deny']);
    expect(screen.getAllByTestId('rule-row-error')).toHaveLength(1);
    expect(screen.getByTestId('rule-row-error').textContent).toContain('not a valid glob');
    await fireEvent.click(screen.getAllByTestId('rule-remove')[1]!);
    expect(onchange).toHaveBeenCalledWith([
      { effect: 'allow', command: 'go test ./...' },
      { effect: 'deny', path: '.env*' },
    ]);
  });

  it('fills the form from an example', async () => {
    const onchange = show();
    const ex = screen.getAllByTestId('rule-example').find((b) => b.getAttribute('data-rule') === 'deny .env*')!;
    await fireEvent.click(ex);
    expect((screen.getByTestId('rule-pattern') as HTMLInputElement).value).toBe('.env*');
    expect((screen.getByTestId('rule-effect') as HTMLSelectElement).value).toBe('deny');
    await fireEvent.click(screen.getByTestId('rule-add'));
    expect(onchange).toHaveBeenCalledWith([{ effect: 'deny', path: '.env*' }]);
  });

  it('says under a command deny rule what it cannot see, and adds the path rule in one click', async () => {
    const deny: Rule = { effect: 'deny', command: 'cat .env' };
    const limits: Record<string, RuleLimits> = {
      [limitsKey(deny)]: {
        limits: ['Loupe cannot see inside inline interpreter code (python3 -c, perl -e, node -e), scripts …'],
        path_rules: [{ effect: 'deny', path: '.env' }],
      },
    };
    const onchange = show([{ effect: 'allow', command: 'ls *' }, deny], limits);
    const shown = screen.getAllByTestId('rule-limits');
    expect(shown).toHaveLength(1);
    expect(shown[0]!.getAttribute('data-index')).toBe('1');
    expect(screen.getByTestId('rule-limit').textContent).toContain('cannot see inside inline interpreter code');
    const add = screen.getByTestId('rule-add-path');
    expect(add.getAttribute('data-rule')).toBe('deny .env');
    await fireEvent.click(add);
    expect(onchange).toHaveBeenCalledWith([{ effect: 'allow', command: 'ls *' }, deny, { effect: 'deny', path: '.env' }]);
  });

  it('says the path rule is there once it is, and offers nothing for rules without limits', () => {
    const deny: Rule = { effect: 'deny', command: 'cat .env' };
    show([deny, { effect: 'deny', path: '.env' }], { [limitsKey(deny)]: { limits: ['…'], path_rules: [{ effect: 'deny', path: '.env' }] } });
    expect(screen.queryByTestId('rule-add-path')).toBeNull();
    expect(screen.getByTestId('rule-path-present').textContent).toContain('deny .env');
    cleanup();
    show([{ effect: 'allow', command: 'go test ./...' }, { effect: 'deny', path: '.env*' }]);
    expect(screen.queryByTestId('rule-limits')).toBeNull();
  });
});
