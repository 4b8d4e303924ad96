// @vitest-environment jsdom
// A pull's bar, on the progress the Go client made of the fake Ollama's
// stream (lib/replay/pulls.json): what the user reads at each step.
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installs, offline } from '../replay/pulls';
import PullProgressBar from './PullProgressBar.svelte';

afterEach(cleanup);

const props = { name: 'qwen3:8b', cancelling: false, error: '', oncancel: () => {}, onretry: () => {}, ondismiss: () => {} };
const at = (pct: number) => installs.progress.find((p) => p.percent === pct && p.status.startsWith('pulling '))!;

describe('PullProgressBar', () => {
  it('waits without numbers until Ollama names the first layer', () => {
    render(PullProgressBar, { props: { ...props, progress: installs.progress[0]! } });
    expect(screen.getByTestId('pull-step').textContent).toBe('Reading the manifest');
    expect(screen.queryByTestId('pull-percent')).toBeNull();
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBeNull();
  });

  it('shows the bytes and percent added up over the layers, and a bar that far', () => {
    render(PullProgressBar, { props: { ...props, progress: at(50) } });
    expect(screen.getByTestId('pull-step').textContent).toBe('Downloading');
    expect(screen.getByTestId('pull-percent').textContent).toBe('50%');
    expect(screen.getByTestId('pull-bytes').textContent).toBe('2.4 GB of 4.9 GB');
    const bar = screen.getByRole('progressbar', { name: 'Pulling qwen3:8b' });
    expect(bar.getAttribute('aria-valuenow')).toBe('50');
    expect((bar.firstElementChild as HTMLElement).style.width).toBe('50%');
  });

  it('ends at 100% when Ollama says success', () => {
    const last = installs.progress.at(-1)!;
    render(PullProgressBar, { props: { ...props, progress: last } });
    expect(screen.getByTestId('pull-step').textContent).toBe('Installed');
    expect(screen.getByTestId('pull-percent').textContent).toBe('100%');
  });

  it('cancels from the keyboard and says it is cancelling', async () => {
    const oncancel = vi.fn();
    const { rerender } = render(PullProgressBar, { props: { ...props, progress: at(25), oncancel } });
    const cancel = screen.getByRole('button', { name: 'Cancel the pull of qwen3:8b' });
    cancel.focus();
    expect(document.activeElement).toBe(cancel);
    await fireEvent.click(cancel);
    expect(oncancel).toHaveBeenCalledTimes(1);
    await rerender({ ...props, progress: at(25), oncancel, cancelling: true });
    expect(screen.getByTestId('pull-step').textContent).toBe('Cancelling…');
    expect((screen.getByTestId('pull-cancel') as HTMLButtonElement).disabled).toBe(true);
  });

  it('says why a pull failed, with Try again and Dismiss', async () => {
    const onretry = vi.fn();
    const ondismiss = vi.fn();
    render(PullProgressBar, { props: { ...props, name: offline.name, progress: offline.progress.at(-1)!, error: offline.error!, onretry, ondismiss } });
    expect(screen.getByRole('alert').textContent).toContain('cannot reach the model registry');
    expect(screen.queryByRole('progressbar')).toBeNull();
    await fireEvent.click(screen.getByTestId('pull-retry'));
    await fireEvent.click(screen.getByTestId('pull-dismiss'));
    expect(onretry).toHaveBeenCalledTimes(1);
    expect(ondismiss).toHaveBeenCalledTimes(1);
  });
});
