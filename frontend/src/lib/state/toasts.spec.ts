import { afterEach, describe, expect, it, vi } from 'vitest';
import { Toasts } from './toasts.svelte';

describe('Toasts', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows each message, lets an error stay longer, and dismisses one alone', () => {
    vi.useFakeTimers();
    const t = new Toasts();
    t.notify('Settings saved.');
    t.notify('Could not answer: the pause is over', 'error');
    t.notify('Saved again.');
    expect(t.list.map((x) => [x.tone, x.message])).toEqual([
      ['info', 'Settings saved.'],
      ['error', 'Could not answer: the pause is over'],
      ['info', 'Saved again.'],
    ]);
    t.dismiss(t.list[2]!.id);
    expect(t.list.map((x) => x.message)).toEqual(['Settings saved.', 'Could not answer: the pause is over']);
    vi.advanceTimersByTime(4000);
    expect(t.list.map((x) => x.message)).toEqual(['Could not answer: the pause is over']);
    vi.advanceTimersByTime(4000);
    expect(t.list).toEqual([]);
  });
});
