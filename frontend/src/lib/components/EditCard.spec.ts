// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import EditCard from './EditCard.svelte';

afterEach(cleanup);

describe('EditCard', () => {
  it('shows a text edit as before → after with the change marked', () => {
    render(EditCard, { props: { id: 'e:4', edit: { target: 'result', call_id: 'c1', before: 'the file says hi', after: 'the file says bye' }, tool: 'read_file' } });
    expect(screen.getByTestId('card-edit').getAttribute('data-card-id')).toBe('e:4');
    expect(screen.getByTestId('edit-card').getAttribute('data-target')).toBe('result');
    const diff = screen.getByTestId('edit-diff');
    expect([...diff.querySelectorAll('del')].map((d) => d.textContent)).toEqual(['hi']);
    expect([...diff.querySelectorAll('ins')].map((d) => d.textContent)).toEqual(['bye']);
    expect(screen.getByTestId('edit-before').textContent).toBe('the file says hi');
    expect(screen.getByTestId('edit-after').textContent).toBe('the file says bye');
  });

  it('shows an edit of arguments or options as JSON', () => {
    render(EditCard, { props: { id: 'e:5', edit: { target: 'options', before: { num_ctx: 8192, temperature: 0.2 }, after: { num_ctx: 4096, temperature: 0.2 } } } });
    const diff = screen.getByTestId('edit-diff');
    expect(diff.querySelector('del')?.textContent).toContain('8192');
    expect(diff.querySelector('ins')?.textContent).toContain('4096');
    expect(screen.getByTestId('card-edit').textContent).toContain('You edited the options');
  });

  it('does not diff texts that came cut, which would show changes that never happened', () => {
    const head = Array.from({ length: 16 }, (_, i) => `line ${i + 1}`);
    const expand = { cuts: { '/before': { bytes: 4000, lines: 40 }, '/after': { bytes: 4010, lines: 41 } }, load: async () => {} };
    render(EditCard, { props: { id: 'e:6', edit: { target: 'result', call_id: 'c1', before: head.join('\n'), after: ['new first line', ...head.slice(0, 15)].join('\n') }, expand } });
    expect(screen.queryByTestId('edit-diff')).toBeNull();
    expect(screen.getByTestId('edit-cut').textContent).toMatch(/shown in part/);
  });
});
