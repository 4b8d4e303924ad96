// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { recording } from '../replay/recordings';
import { isHookRun, parseEvent, type HookRun } from '../types';
import HookCard from './HookCard.svelte';

afterEach(cleanup);

const runs = (): HookRun[] =>
  recording('hooks').steps.flatMap((s) => {
    const e = s.event === undefined ? null : parseEvent(s.event);
    return e && isHookRun(e) ? [e.payload] : [];
  });

describe('HookCard', () => {
  it('shows a blocking hook: its verdict, its stderr for the model, its command and the JSON it read', () => {
    const guard = runs()[1]!;
    render(HookCard, { props: { id: 'e:12', hook: guard } });
    expect(screen.getByText('Hook no rm before run_command')).toBeTruthy();
    expect(screen.getByTestId('hook-verdict').textContent).toBe('blocked (exit 2)');
    expect(screen.getByTestId('hook-stderr').textContent).toBe('rm is not allowed here: move files to old/ instead\n');
    expect(screen.getByTestId('hook-command').textContent).toContain('exit 2');
    expect(JSON.parse(screen.getByTestId('hook-input').textContent ?? '')).toMatchObject({ event: 'before_tool', tool: 'run_command', args: { command: 'rm notes.txt' } });
  });

  it('shows what an after_edit hook printed', () => {
    render(HookCard, { props: { id: 'e:6', hook: runs()[0]! } });
    expect(screen.getByTestId('hook-verdict').textContent).toBe('went on');
    expect(screen.getByTestId('hook-stdout').textContent).toBe('lint: README.md ok\n');
  });
});
