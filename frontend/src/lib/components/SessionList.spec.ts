// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeSummary } from '../testing/events';
import ModelPicker from './ModelPicker.svelte';
import SessionList from './SessionList.svelte';

afterEach(cleanup);

describe('SessionList', () => {
  const sessions = [
    makeSummary({ id: 'a', title: 'Fix the test', running: true }),
    makeSummary({ id: 'b', title: 'Explain', last_reason: 'round_cap' }),
  ];

  it('shows running sessions and stop reasons', () => {
    render(SessionList, { props: { sessions, currentId: null, waiting: new Set<string>(), onopen: () => {}, ondelete: () => {} } });
    const [a, b] = screen.getAllByTestId('session-item');
    expect(within(a!).getByTestId('session-running').textContent).toContain('Running');
    expect(within(b!).getByTestId('stop-reason').textContent).toContain('Round limit reached');
  });

  it('shows a session that waits at a pause of step-through', () => {
    const paused = makeSummary({ id: 'p', title: 'Paused', running: true, open_run: 1, standing: 'paused' });
    render(SessionList, { props: { sessions: [paused], currentId: null, waiting: new Set<string>(), onopen: () => {}, ondelete: () => {} } });
    expect(screen.getByTestId('session-paused').textContent).toContain('Paused');
    expect(screen.queryByTestId('session-running')).toBeNull();
  });

  it('deletes at once (the window offers Undo), but not a session whose run goes on', async () => {
    const ondelete = vi.fn();
    render(SessionList, { props: { sessions, currentId: null, waiting: new Set<string>(), onopen: () => {}, ondelete } });
    const [a, b] = screen.getAllByTestId('session-item');
    expect((within(a!).getByTestId('session-delete') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.click(within(b!).getByTestId('session-delete'));
    expect(ondelete).toHaveBeenCalledWith('b');
  });

  it('shows what a copy was copied from, and opens the original in one click', async () => {
    const onopen = vi.fn();
    const list = [
      makeSummary({ id: 'orig', title: 'The original' }),
      makeSummary({ id: 'copy', title: 'The original (copy)', copied_from: 'orig' }),
      makeSummary({ id: 'orphan', title: 'An older copy', copied_from: 'gone' }),
    ];
    render(SessionList, { props: { sessions: list, currentId: null, waiting: new Set<string>(), onopen, ondelete: () => {} } });
    const row = (id: string) => screen.getAllByTestId('session-item').find((li) => li.dataset['sessionId'] === id)!;
    expect(within(row('orig')).queryByTestId('session-copied-from')).toBeNull();
    const link = within(row('copy')).getByTestId('session-copied-from-open');
    expect(link.textContent).toBe('The original');
    await fireEvent.click(link);
    expect(onopen).toHaveBeenCalledWith('orig');
    expect(within(row('orphan')).getByTestId('session-copied-from').textContent).toContain('since deleted');
    expect(within(row('orphan')).queryByTestId('session-copied-from-open')).toBeNull();
  });

  it('shows where an imported session comes from', () => {
    const list = [makeSummary({ id: 'own', title: 'Ours' }), makeSummary({ id: 'cc', title: 'Fix the greeting', source: 'claude-code', source_id: '7f3e' })];
    render(SessionList, { props: { sessions: list, currentId: null, waiting: new Set<string>(), onopen: () => {}, ondelete: () => {} } });
    const row = (id: string) => screen.getAllByTestId('session-item').find((li) => li.dataset['sessionId'] === id)!;
    expect(within(row('own')).queryByTestId('session-source')).toBeNull();
    const source = within(row('cc')).getByTestId('session-source');
    expect(source.textContent).toContain('Imported from Claude Code');
    expect(source.dataset['source']).toBe('claude-code');
  });

  it('flags a session that waits for an approval', () => {
    render(SessionList, { props: { sessions, currentId: 'a', waiting: new Set(['a']), onopen: () => {}, ondelete: () => {} } });
    expect(screen.getByTestId('session-waiting').textContent).toContain('Needs approval');
  });
});

describe('ModelPicker', () => {
  it('shows capabilities and flags a model that cannot use tools', async () => {
    const onselect = vi.fn();
    render(ModelPicker, {
      props: {
        models: [
          { name: 'qwen3:0.6b', size: 1, family: 'qwen3', parameter_size: '0.6B', quantization: 'Q4_K_M', capabilities: ['tools', 'thinking'], context_length: 40960, modified_at: '' },
          { name: 'gemma3:1b', size: 1, family: 'gemma3', parameter_size: '1B', quantization: 'Q4_K_M', capabilities: ['completion'], context_length: 32768, modified_at: '' },
        ],
        selected: 'qwen3:0.6b',
        onselect,
      },
    });
    const [qwen, gemma] = screen.getAllByTestId('model-option');
    expect(qwen!.textContent).toContain('tools');
    expect(qwen!.textContent).toContain('thinking');
    expect(qwen!.textContent).toContain('40,960 ctx');
    expect(within(qwen!).queryByTestId('no-tools')).toBeNull();
    expect(within(gemma!).getByTestId('no-tools').textContent).toBe("can't use tools");
    await fireEvent.click(within(gemma!).getByRole('radio'));
    expect(onselect).toHaveBeenCalledWith('gemma3:1b');
  });
});

describe('SessionList keyboard', () => {
  const today = new Date().toISOString();
  const list = [
    makeSummary({ id: 'a', title: 'First', updated_at: today, rounds: 3, last_reason: 'answered' }),
    makeSummary({ id: 'b', title: 'Second', updated_at: today }),
    makeSummary({ id: 'c', title: 'Third', updated_at: today, pinned: true }),
  ];
  const base = { sessions: list, currentId: null, waiting: new Set<string>(), onopen: () => {}, ondelete: () => {} };
  const row = (id: string) => document.querySelector<HTMLElement>(`[data-session-id="${id}"] .open`)!;

  it('shows the pinned on top and each row its model, workspace, rounds, outcome and time', () => {
    render(SessionList, { props: base });
    const heads = [...document.querySelectorAll('[data-testid="session-group"] h3')].map((h) => h.textContent?.trim());
    expect(heads).toEqual(['Pinned', 'Today']);
    const a = screen.getAllByTestId('session-item').find((x) => x.dataset['sessionId'] === 'a')!;
    expect(within(a).getByTestId('session-model-name').textContent).toContain('qwen3');
    expect(within(a).getByTestId('session-row-workspace').textContent).toBe('project');
    expect(within(a).getByTestId('session-rounds').textContent).toBe('3 rounds');
    expect(within(a).getByTestId('stop-reason').textContent).toContain('Answered');
    expect(within(a).getByTestId('session-when').textContent).toBe('just now');
  });

  it('↑ / ↓ walk the rows as drawn, F2 renames, Delete deletes and moves on', async () => {
    const ondelete = vi.fn();
    const onstartrename = vi.fn();
    render(SessionList, { props: { ...base, ondelete, onstartrename } });
    row('c').focus();
    await fireEvent.keyDown(row('c'), { key: 'ArrowDown' });
    await vi.waitFor(() => expect(document.activeElement).toBe(row('a')));
    await fireEvent.keyDown(row('a'), { key: 'ArrowDown' });
    await vi.waitFor(() => expect(document.activeElement).toBe(row('b')));
    await fireEvent.keyDown(row('b'), { key: 'ArrowDown' });
    await vi.waitFor(() => expect(document.activeElement).toBe(row('b')));
    await fireEvent.keyDown(row('b'), { key: 'ArrowUp' });
    await vi.waitFor(() => expect(document.activeElement).toBe(row('a')));
    await fireEvent.keyDown(row('a'), { key: 'F2' });
    expect(onstartrename).toHaveBeenCalledWith('a');
    await fireEvent.dblClick(row('b'));
    expect(onstartrename).toHaveBeenCalledWith('b');
    await fireEvent.keyDown(row('a'), { key: 'Delete' });
    expect(ondelete).toHaveBeenCalledWith('a');
    await vi.waitFor(() => expect(document.activeElement).toBe(row('b')));
  });

  it('C or the compare button picks a session to compare; the picked row is marked and the others say Enter compares', async () => {
    const oncompare = vi.fn();
    const { rerender } = render(SessionList, { props: { ...base, oncompare } });
    await fireEvent.keyDown(row('a'), { key: 'c' });
    expect(oncompare).toHaveBeenCalledWith('a');
    const b = screen.getAllByTestId('session-item').find((x) => x.dataset['sessionId'] === 'b')!;
    await fireEvent.click(within(b).getByTestId('session-compare'));
    expect(oncompare).toHaveBeenLastCalledWith('b');
    await rerender({ ...base, oncompare, comparing: 'a' });
    const a = screen.getAllByTestId('session-item').find((x) => x.dataset['sessionId'] === 'a')!;
    expect(a.classList.contains('comparing')).toBe(true);
    expect(within(a).getByTestId('session-compare').getAttribute('aria-pressed')).toBe('true');
    expect(row('b').title).toBe('Compare with this session (Enter)');
  });

  it('renaming: Enter saves what was typed, Esc cancels, a refused name keeps the field', async () => {
    let accept = false;
    const onrename = vi.fn(async () => accept);
    const onstartrename = vi.fn();
    const { rerender } = render(SessionList, { props: { ...base, renaming: 'a', onrename, onstartrename } });
    const input = screen.getByTestId('session-rename') as HTMLInputElement;
    expect(input.value).toBe('First');
    await fireEvent.input(input, { target: { value: 'Renamed' } });
    await fireEvent.keyDown(input, { key: 'Enter' });
    expect(onrename).toHaveBeenLastCalledWith('a', 'Renamed');
    expect(screen.getByTestId('session-rename')).toBeTruthy(); // refused: still editing
    await fireEvent.keyDown(input, { key: 'Escape' });
    expect(onstartrename).toHaveBeenLastCalledWith(null);
    accept = true;
    await rerender({ ...base, renaming: null, onrename, onstartrename });
    await fireEvent.keyDown(row('b'), { key: 'F2' });
    expect(onstartrename).toHaveBeenLastCalledWith('b');
  });
});
