// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import RestoreConfirm from './RestoreConfirm.svelte';
import StopConfirm from './StopConfirm.svelte';

afterEach(cleanup);

// The two dialogs that ask take their title and buttons from Modal: the
// title names the dialog, the text describes it, the buttons sit in it.
describe('dialogs that ask', () => {
  it('Stop: named by its title, described by its text, Keep focused and answering', async () => {
    const onstop = vi.fn();
    const oncancel = vi.fn();
    render(StopConfirm, { props: { unsent: true, onstop, oncancel } });
    const dialog = screen.getByRole('alertdialog', { name: 'Stop the paused run?' });
    expect(dialog.dataset.testid).toBe('stop-confirm');
    expect(dialog.getAttribute('aria-describedby')).toBe('stop-desc');
    expect(document.getElementById('stop-desc')?.textContent).toContain('edits you typed there and did not send are lost');
    const keep = within(dialog).getByTestId('stop-confirm-keep');
    expect(document.activeElement).toBe(keep);
    await fireEvent.click(keep);
    expect(oncancel).toHaveBeenCalledOnce();
    await fireEvent.click(within(dialog).getByTestId('stop-confirm-stop'));
    expect(onstop).toHaveBeenCalledOnce();
  });

  it('Restore: named by its title, lists the conflicts, Cancel focused', () => {
    render(RestoreConfirm, {
      props: { what: 'Undo run 2', conflicts: [{ path: 'main.go', reason: 'changed outside Loupe' }], onoverwrite: () => {}, oncancel: () => {} },
    });
    const dialog = screen.getByRole('alertdialog', { name: 'Overwrite changes made outside Loupe?' });
    expect(within(dialog).getAllByTestId('restore-conflict').map((li) => li.dataset.path)).toEqual(['main.go']);
    expect(document.activeElement).toBe(within(dialog).getByTestId('restore-cancel'));
    expect(within(dialog).getByTestId('restore-overwrite')).toBeTruthy();
  });
});
