// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recording } from '../replay/recordings';
import { isError, parseEvent, type ErrorPayload } from '../types';
import MessageCard from './MessageCard.svelte';

afterEach(cleanup);

// The error the engine recorded when a 20 KB file read did not fit num_ctx
// 4096 (backend/session recordings_test.go, "does_not_fit").
function doesNotFit(): ErrorPayload {
  for (const s of recording('does_not_fit').steps) {
    if (s.event === undefined) continue;
    const e = parseEvent(s.event);
    if (e && isError(e)) return e.payload;
  }
  throw new Error('the recording has no error event');
}

describe('a prompt that does not fit', () => {
  it('shows tokens needed against num_ctx, the parts as a table, the largest message and the ways out', () => {
    const p = doesNotFit();
    expect(p.code).toBe('does_not_fit');
    render(MessageCard, { props: { id: 'e:9', kind: 'error', code: p.code, message: p.message, fit: p.fit } });
    expect(screen.getByText('Does not fit')).toBeTruthy();
    const summary = screen.getByTestId('fit-summary').textContent ?? '';
    expect(summary).toContain(p.fit!.needed.toLocaleString('en-US'));
    expect(summary).toContain('4,096');
    expect(summary).toContain('nothing was lost');
    const rows = within(screen.getByTestId('fit-parts')).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.querySelector('td')?.textContent)).toEqual([
      'latest observations',
      'tool schemas (7 tools)',
      'system prompt',
      'history',
    ]);
    expect(rows[0]!.textContent).toMatch(/~6,\d{3}.*\d+ %/);
    expect(screen.getByTestId('fit-largest').textContent).toContain('the result of read_file');
    const ways = within(screen.getByTestId('fit-ways')).getAllByRole('listitem').map((li) => li.textContent ?? '');
    expect(ways).toHaveLength(4);
    expect(ways.join(' ')).toMatch(/Compact.*num_ctx.*tool outputs.*fewer tools/s);
  });

  it('is a plain error card without a fit', () => {
    render(MessageCard, { props: { id: 'e:1', kind: 'error', code: 'model', message: 'Ollama answered HTTP 500' } });
    expect(screen.getByText('Error')).toBeTruthy();
    expect(screen.queryByTestId('fit-parts')).toBeNull();
    expect(screen.getByRole('alert').textContent).toBe('Ollama answered HTTP 500');
  });
});

describe('Compact now on a prompt that does not fit', () => {
  it('is offered with the ways out, and off with its reason while a run goes', async () => {
    const p = doesNotFit();
    const onclick = vi.fn();
    const { rerender } = render(MessageCard, {
      props: { id: 'e:9', kind: 'error', code: p.code, message: p.message, fit: p.fit, compact: { blocked: '', busy: false, onclick } },
    });
    const b = screen.getByTestId('fit-compact') as HTMLButtonElement;
    expect(b.disabled).toBe(false);
    await fireEvent.click(b);
    expect(onclick).toHaveBeenCalledOnce();
    await rerender({ id: 'e:9', kind: 'error', code: p.code, message: p.message, fit: p.fit, compact: { blocked: 'A run is going: compact when it ends (or stop it).', busy: false, onclick } });
    expect(b.disabled).toBe(true);
    expect(screen.getByTestId('fit-compact-why').textContent).toContain('run is going');
  });
});
