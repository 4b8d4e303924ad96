// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Approval } from '../types';
import ApprovalCard from './ApprovalCard.svelte';

afterEach(cleanup);

const base: Approval = {
  id: 'ap1',
  session_id: 's1',
  call_id: 'c1',
  tool: 'edit_file',
  args: { path: 'a.go', old_string: 'x', new_string: 'y' },
  display: { path: 'a.go', diff: '--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n' },
  summary: 'Edit a.go',
};

describe('ApprovalCard', () => {
  it('shows the diff of a file change', () => {
    render(ApprovalCard, { props: { approval: base, onanswer: () => {} } });
    const diff = screen.getByTestId('diff');
    expect(diff.textContent).toContain('-x');
    expect(diff.textContent).toContain('+y');
    expect(diff.textContent).toContain('a.go');
  });

  it('calls back with allow and deny', async () => {
    const onanswer = vi.fn();
    render(ApprovalCard, { props: { approval: base, onanswer } });
    await fireEvent.click(screen.getByTestId('deny-button'));
    await fireEvent.click(screen.getByTestId('approve-button'));
    expect(onanswer.mock.calls).toEqual([[false], [true]]);
  });

  it('disables the buttons while an answer is on its way', () => {
    render(ApprovalCard, { props: { approval: base, onanswer: () => {}, busy: true } });
    expect((screen.getByTestId('approve-button') as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByTestId('deny-button') as HTMLButtonElement).disabled).toBe(true);
  });

  it('shows the arguments when there is nothing better to show', () => {
    render(ApprovalCard, { props: { approval: { ...base, tool: 'task', display: null, args: { prompt: 'go' } }, onanswer: () => {} } });
    expect(screen.getByText(/"prompt": "go"/)).toBeTruthy();
  });
});
