// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import ResponseCard from './ResponseCard.svelte';

afterEach(cleanup);

describe('ResponseCard', () => {
  it('shows streaming text as it grows', async () => {
    const r = render(ResponseCard, { props: { id: 'live', content: 'Hel', streaming: true } });
    expect(screen.getByText('Model is answering')).toBeTruthy();
    expect(screen.getByTestId('streaming')).toBeTruthy();
    expect(screen.getByTestId('response-text').textContent).toBe('Hel');
    await r.rerender({ id: 'live', content: 'Hello, world', streaming: true });
    expect(screen.getByTestId('response-text').textContent).toBe('Hello, world');
  });

  it('says when its text came cut and fetches it whole on Show all', async () => {
    const load = vi.fn(async () => {});
    const expand = { cuts: { '/content': { bytes: 9000, lines: 120 }, '/raw': { bytes: 400 } }, load };
    render(ResponseCard, { props: { id: 'e:3', content: 'The start of a long answer', expand } });
    expect(screen.getByTestId('card-cut').textContent).toContain('9.2 KB');
    await fireEvent.click(screen.getByTestId('card-show-all'));
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('does not offer Show all when only its wire JSON was left out (the Raw view fetches that)', () => {
    const expand = { cuts: { '/raw': { bytes: 400 } }, load: vi.fn(async () => {}) };
    render(ResponseCard, { props: { id: 'e:3', content: 'Short', expand } });
    expect(screen.queryByTestId('card-cut')).toBeNull();
  });

  it('waits visibly for the first token', () => {
    render(ResponseCard, { props: { id: 'live', content: '', streaming: true } });
    expect(screen.getByText(/Waiting for the first token/)).toBeTruthy();
  });

  it('marks an incomplete message and says its tool calls did not run', () => {
    render(ResponseCard, {
      props: {
        id: 'e:3',
        content: 'Let me',
        incomplete: true,
        doneReason: 'length',
        toolCalls: [{ id: 'c1', index: 0, name: 'run_command', args: { command: 'rm -rf build' } }],
      },
    });
    expect(screen.getByTestId('incomplete').textContent).toContain('Incomplete');
    const note = screen.getByTestId('incomplete-note').textContent ?? '';
    expect(note).toContain('token limit');
    expect(note).toContain('not run');
    expect(screen.queryByTestId('streaming')).toBeNull();
  });

  it('keeps thinking folded until asked', async () => {
    render(ResponseCard, { props: { id: 'e:3', content: 'Answer', thinking: 'first I will look around' } });
    const details = screen.getByTestId('thinking') as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(details.textContent).toContain('5 words');
    await fireEvent.click(details.querySelector('summary')!);
    expect(details.open).toBe(true);
  });

  it('lists the tool calls asked for', () => {
    render(ResponseCard, {
      props: { id: 'e:3', content: '', toolCalls: [{ id: 'c1', index: 0, name: 'read_file', args: { path: 'go.mod' } }] },
    });
    expect(screen.getByRole('list', { name: 'Tool calls asked for' }).textContent).toMatch(/read_file\s*go\.mod/);
  });
});

describe('ResponseCard waiting for the first token', () => {
  it('counts the seconds and explains a slow start', async () => {
    vi.useFakeTimers();
    try {
      render(ResponseCard, { props: { id: 'r', content: '', streaming: true } });
      const waiting = screen.getByTestId('waiting-first-token');
      expect(waiting.textContent).toContain('0s');
      expect(waiting.textContent).not.toContain('loading the model');
      await vi.advanceTimersByTimeAsync(3100);
      expect(screen.getByTestId('waiting-first-token').textContent).toContain('3s');
      expect(screen.getByTestId('waiting-first-token').textContent).toContain('loading the model');
    } finally {
      vi.useRealTimers();
    }
  });
});
