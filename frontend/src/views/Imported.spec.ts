// @vitest-environment jsdom
// A session imported from another agent (the Go recording of a Claude
// Code file imported): its row says where it comes from, its timeline is
// the same cards, and in place of the composer it says it is read-only
// and offers a fork at its last event.
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { finish, openSession, play } from './testing';

afterEach(finish);

describe('an imported session', { timeout: 60_000 }, () => {
  it('is read-only, shows its source, and offers a fork at its last event', async () => {
    const replay = play('imported_claude_code');
    await openSession();
    const row = screen.getByTestId('session-item');
    expect(within(row).getByTestId('session-source').textContent).toContain('Imported from Claude Code');

    const bar = screen.getByTestId('session-imported');
    expect(bar.textContent).toContain('Imported from Claude Code: read-only');
    expect(screen.queryByTestId('composer-input')).toBeNull();
    expect(screen.queryByTestId('session-model')).toBeNull();

    // The same cards as a session of Loupe's own: the calls and their results, the two runs.
    await waitFor(() => expect(screen.getAllByTestId('card-call').length).toBe(3));
    expect(screen.getAllByTestId('run').length).toBe(2);
    expect(document.body.textContent).toContain('Fixed: Hello now returns "hello".');

    await fireEvent.click(within(bar).getByTestId('imported-fork'));
    await waitFor(() => expect(replay.calls.some((c) => c.method === 'previewFork')).toBe(true));
    const at = replay.calls.find((c) => c.method === 'previewFork')!.args[1];
    expect(at).toBe(22);
    // A replay cannot fork (the dialog says so); Loupe makes the fork (backend/session/importagent_test.go).
    const dialog = await screen.findByTestId('fork-dialog');
    expect(dialog.textContent).toContain('Fork at event 22');
  });

  it('says the context window is not recorded, and judges no prompt against one', async () => {
    play('imported_claude_code');
    await openSession();
    await waitFor(() => expect(screen.getAllByTestId('card-request').length).toBe(4));
    for (const card of screen.getAllByTestId('card-request')) {
      expect(within(card).getByTestId('num-ctx-unrecorded').textContent).toBe('num_ctx not recorded');
      expect(card.textContent).not.toMatch(/131,?072/);
      expect(card.textContent).not.toContain('larger than the context window');
      expect(card.textContent).not.toContain('fills most of the context window');
    }
    expect(document.body.textContent).not.toMatch(/131,?072/);
  });
});
