// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rawOf } from '../types';
import MessageCard from './MessageCard.svelte';

afterEach(cleanup);

describe('Raw toggle', () => {
  it('shows the exact bytes and a pretty form of a request body', async () => {
    const body = '{"model":"qwen3:0.6b","options":{"num_ctx":8192}}';
    const load = vi.fn(async () => body);
    render(MessageCard, { props: { id: 'e:1', kind: 'notice', code: 'x', message: 'hello', raw: { load, exact: true } } });
    expect(screen.queryByTestId('raw-view')).toBeNull();
    await fireEvent.click(screen.getByTestId('raw-toggle'));
    await waitFor(() => expect(screen.getByTestId('raw-content')).toBeTruthy());
    expect(load).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId('raw-content').textContent).toContain('"num_ctx": 8192');
    await fireEvent.click(screen.getByTestId('raw-exact'));
    expect(screen.getByTestId('raw-exact').textContent).toContain('Exact bytes');
    expect(screen.getByTestId('raw-content').textContent).toBe(body);
    await fireEvent.click(screen.getByTestId('raw-toggle'));
    expect(screen.queryByTestId('raw-view')).toBeNull();
  });

  it('shows an event as compact or pretty JSON', async () => {
    render(MessageCard, { props: { id: 'e:1', kind: 'error', code: 'x', message: 'm', raw: rawOf({ seq: 1, kind: 'error' }) } });
    await fireEvent.click(screen.getByTestId('raw-toggle'));
    await waitFor(() => expect(screen.getByTestId('raw-content')).toBeTruthy());
    expect(screen.getByTestId('raw-exact').textContent).toContain('Compact');
    await fireEvent.click(screen.getByTestId('raw-exact'));
    expect(screen.getByTestId('raw-content').textContent).toBe('{"seq":1,"kind":"error"}');
  });

  it('says when the raw data could not be loaded', async () => {
    render(MessageCard, {
      props: { id: 'e:1', kind: 'notice', code: '', message: 'm', raw: { load: () => Promise.reject(new Error('no such event')), exact: true } },
    });
    await fireEvent.click(screen.getByTestId('raw-toggle'));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toContain('no such event'));
  });
});
