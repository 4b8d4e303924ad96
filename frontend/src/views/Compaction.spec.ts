// @vitest-environment jsdom
// Compaction in the whole UI, on the replay of the Go engine's recording
// (backend/session recordings_test.go, "compaction"): a run that compacts
// at its threshold shows the summarising request and the compaction card;
// Compact now is off while the run goes, says why, and once it has ended
// sends the compact command the recording has.
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { ended, finish, openSession, play, played, send, slow } from './testing';

afterEach(finish);

describe('compaction', () => {
  it('shows the automatic compaction, and Compact now works between runs only', slow, async () => {
    const replay = play('compaction');
    await openSession();
    const button = () => screen.getByTestId('compact-now') as HTMLButtonElement;
    expect(button().disabled).toBe(true);
    expect(screen.getByTestId('compact-now-why').textContent).toContain('Nothing to compact');
    await send('What do the notes say?');
    await waitFor(() => expect(screen.getByTestId('compact-now-why').textContent).toContain('run is going'));
    expect(button().disabled).toBe(true);
    await ended();
    const auto = await screen.findByTestId('card-compaction');
    expect(within(auto).getByTestId('compaction-trigger').textContent).toBe('context nearly full');
    expect(within(auto).getByTestId('compaction-summary').textContent).toContain('Notes 1 to');
    expect(screen.getAllByTestId('request-compaction')).toHaveLength(1);
    await waitFor(() => expect(button().disabled).toBe(false));
    await fireEvent.click(button());
    await played(replay);
    expect(replay.commandsOf('compact')).toEqual([{ do: 'compact', session: 'session-1' }]);
    await waitFor(() => expect(screen.getAllByTestId('card-compaction')).toHaveLength(2));
    const [, now] = screen.getAllByTestId('card-compaction');
    expect(within(now!).getByTestId('compaction-trigger').textContent).toBe('Compact now');
    // It comes after the run's end on the timeline.
    const end = screen.getByTestId('card-end');
    expect(end.compareDocumentPosition(now!) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('toast').textContent).toMatch(/Compacted: \d+ messages summarised/));
  });
});
