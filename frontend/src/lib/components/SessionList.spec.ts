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

  it('asks before deleting', async () => {
    const ondelete = vi.fn();
    render(SessionList, { props: { sessions, currentId: null, waiting: new Set<string>(), onopen: () => {}, ondelete } });
    const b = screen.getAllByTestId('session-item')[1]!;
    await fireEvent.click(within(b).getByTestId('session-delete'));
    expect(ondelete).not.toHaveBeenCalled();
    expect(b.textContent).toContain('Delete Explain and its whole timeline?');
    await fireEvent.click(within(b).getByTestId('session-delete-confirm'));
    expect(ondelete).toHaveBeenCalledWith('b');
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
