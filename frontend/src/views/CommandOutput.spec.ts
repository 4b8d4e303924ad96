// @vitest-environment jsdom
// A running command's card on the replay of the Go scenario stop_command:
// its output streams in (stdout and stderr apart), and "Stop command"
// stops that command alone; the run goes on to the model's answer.
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { ended, finish, openSession, play, played, send, slow } from './testing';

afterEach(finish);

describe('a running command', slow, () => {
  it('streams its output to its card and is stopped from there', async () => {
    const replay = play('stop_command');
    await openSession();
    await send('Run the tests');
    const box = await screen.findByTestId('command-output');
    await waitFor(() => expect(within(box).getByTestId('command-output-text').textContent).toBe('compiling\nwarning: slow test\n'));
    const streams = [...within(box).getByTestId('command-output-text').querySelectorAll('[data-stream]')].map((s) => [
      s.getAttribute('data-stream'),
      s.textContent,
    ]);
    expect(streams).toEqual([
      ['stdout', 'compiling\n'],
      ['stderr', 'warning: slow test\n'],
    ]);
    expect(within(box).getByTestId('command-elapsed').textContent).toMatch(/\d+(\.\d)? (s|min)/);
    expect(screen.getByTestId('call-status').textContent).toContain('Running');

    await fireEvent.click(within(box).getByTestId('stop-command-button'));
    await ended();
    await played(replay);
    expect(replay.commandsOf('stop_call')).toEqual([{ do: 'stop_call', session: 'session-1', call_id: 'call_1' }]);
    // The result is the record now: the live output is gone, the card says
    // who stopped it, and the observation holds what the model read.
    expect(screen.queryByTestId('command-output')).toBeNull();
    expect(screen.getByTestId('call-status').textContent).toContain('Stopped by you');
    expect(screen.getByTestId('card-observation').textContent).toContain('stopped by the user after 1.2 s');
    expect(within(screen.getByTestId('card-end')).getByTestId('stop-reason').getAttribute('data-reason')).toBe('answered');
  });
});
