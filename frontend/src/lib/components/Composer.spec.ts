// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import Composer from './Composer.svelte';

afterEach(cleanup);

describe('Composer', () => {
  it('sends with Ctrl+Enter and the button, not with an empty text', async () => {
    const onsend = vi.fn();
    const r = render(Composer, { props: { value: '', running: false, onsend, onstop: () => {} } });
    const send = screen.getByTestId('send-button') as HTMLButtonElement;
    expect(send.disabled).toBe(true);
    await fireEvent.keyDown(screen.getByTestId('composer-input'), { key: 'Enter', ctrlKey: true });
    expect(onsend).not.toHaveBeenCalled();
    await r.rerender({ value: 'list the files', running: false, onsend, onstop: () => {} });
    await fireEvent.keyDown(screen.getByTestId('composer-input'), { key: 'Enter', ctrlKey: true });
    expect(onsend).toHaveBeenCalledTimes(1);
    await fireEvent.click(screen.getByTestId('send-button'));
    expect(onsend).toHaveBeenCalledTimes(2);
  });

  it('offers Stop instead of Send while running', async () => {
    const onstop = vi.fn();
    render(Composer, { props: { value: '', running: true, onsend: () => {}, onstop } });
    expect(screen.queryByTestId('send-button')).toBeNull();
    await fireEvent.click(screen.getByTestId('stop-button'));
    expect(onstop).toHaveBeenCalled();
  });

  it('says why Ctrl+Enter sent nothing while the run goes, and keeps the text', async () => {
    const onsend = vi.fn();
    const r = render(Composer, { props: { value: 'also add a README line', running: true, onsend, onstop: () => {} } });
    expect(screen.queryByTestId('composer-held')).toBeNull();
    await fireEvent.keyDown(screen.getByTestId('composer-input'), { key: 'Enter', ctrlKey: true });
    expect(onsend).not.toHaveBeenCalled();
    expect(screen.getByTestId('composer-held').textContent).toContain('Not sent: the run is still going');
    expect((screen.getByTestId('composer-input') as HTMLTextAreaElement).value).toBe('also add a README line');
    await r.rerender({ value: 'also add a README line', running: false, onsend, onstop: () => {} });
    expect(screen.queryByTestId('composer-held')).toBeNull();
  });

  it('shows why sending was refused', () => {
    render(Composer, { props: { value: 'x', running: false, error: 'A run is already going.', onsend: () => {}, onstop: () => {} } });
    expect(screen.getByTestId('send-error').textContent).toBe('A run is already going.');
  });
});
