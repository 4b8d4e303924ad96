// @vitest-environment jsdom
// The context meter in the whole UI, on a replay of the Go engine's
// recording "context_meter" (backend/session/recordings_test.go): a 7 KB
// read into num_ctx 4096. Each request card shows its meter and what the
// tool schemas cost; the second prompt takes over 80%, and both its card
// and the session header warn, saying what to do. The numbers are the
// engine's, as they came in its events.
import { fireEvent, screen, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { ended, finish, openSession, play, send, slow } from './testing';

afterEach(finish);

const text = (el: HTMLElement) => el.textContent?.replace(/\s+/g, ' ').trim() ?? '';

describe('the context meter', () => {
  it('shows each request against the context, and warns at 80% on the card and in the header', slow, async () => {
    const replay = play('context_meter');
    await openSession();
    await send('What is in notes.md?');
    await ended();
    const cards = screen.getAllByTestId('card-request');
    expect(cards).toHaveLength(2);
    const [first, second] = cards.map((c) => within(c));
    expect(text(first!.getByTestId('meter-total'))).toMatch(/^1,5\d\d of 4,096 tokens \(38%\) · allocated 4,096, num_ctx 4,096$/);
    expect(first!.queryByTestId('meter-warning')).toBeNull();
    expect(text(first!.getByTestId('tools-cost'))).toMatch(/^about 1,4\d\d tokens for 7 tools/);
    expect(text(second!.getByTestId('meter-total'))).toMatch(/^3,7\d\d of 4,096 tokens \(9\d%\)/);
    expect(text(second!.getByTestId('meter-warning'))).toMatch(/What to do: .*Compact/);
    // The new observation (the read) is the second prompt's biggest part.
    const parts = within(second!.getByTestId('meter-parts')).getAllByRole('listitem').map(text);
    expect(parts[3]).toMatch(/^New observations 2,\d{3} 5\d%$/);

    const header = await screen.findByTestId('session-meter');
    expect(text(within(header).getByTestId('session-meter-share'))).toMatch(/^9\d%$/);
    expect(within(header).getByTestId('session-meter-flag').textContent).toBe('nearly full');
    await fireEvent.click(header.querySelector('summary')!);
    expect(text(within(header).getByTestId('meter-total'))).toMatch(/^Latest request \(run 1, round 2\)/);
    expect(within(header).getByTestId('meter-warning')).toBeTruthy();
    replay.check();
  });
});
