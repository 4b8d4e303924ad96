// @vitest-environment jsdom
// A session opened again sends its events as previews (Manager.Open): a
// long observation shows its first lines and how long it is whole, and
// fetches the rest (EventPayload) when the user shows all of it. Played on
// the long_read recording, whose openSession and eventPayload answers are
// the Go engine's.
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { finish, openSession, play, slow } from './testing';

afterEach(finish);

describe('a long session opened again', () => {
  it('shows a long observation cut, and all of it after Show all', slow, async () => {
    const replay = play('long_read', { from: 'reopened' });
    await openSession();
    const obs = await screen.findByTestId('card-observation');
    const box = within(obs).getByTestId('observation-content');
    expect(box.getAttribute('data-cut')).toBe('true');
    expect(box.textContent).toContain('release 300: fixes');
    expect(box.textContent).not.toContain('release 1: fixes');
    expect(replay.callsOf('eventPayload')).toEqual([]);
    // The responses lost only their wire JSON, which no card draws.
    expect(screen.queryAllByTestId('card-cut')).toEqual([]);

    await fireEvent.click(within(obs).getByRole('button', { name: 'Show all 601 lines' }));
    await waitFor(() => expect(within(obs).getByTestId('observation-content').textContent).toContain('release 1: fixes'));
    const whole = within(obs).getByTestId('observation-content');
    expect(whole.getAttribute('data-cut')).toBeNull();
    expect(whole.textContent).toContain('release 150: fixes');
    expect(replay.callsOf('eventPayload')).toEqual([['session-1', 6]]);

    // Whole now, it folds and unfolds without asking again.
    await fireEvent.click(within(obs).getByRole('button', { name: 'Show less' }));
    expect(within(obs).getByTestId('observation-content').textContent).not.toContain('release 1: fixes');
    await fireEvent.click(within(obs).getByRole('button', { name: 'Show all 601 lines' }));
    expect(within(obs).getByTestId('observation-content').textContent).toContain('release 1: fixes');
    expect(replay.callsOf('eventPayload')).toHaveLength(1);
  });

  it("fetches a response whole for its Raw view (its wire JSON came left out)", slow, async () => {
    const replay = play('long_read', { from: 'reopened' });
    await openSession();
    const response = (await screen.findAllByTestId('card-response'))[0]!;
    await fireEvent.click(within(response).getByTestId('raw-toggle'));
    await waitFor(() => expect(within(response).getByTestId('raw-content').textContent).toContain('"done_reason": "stop"'));
    expect(replay.callsOf('eventPayload')).toEqual([['session-1', 3]]);
  });
});
