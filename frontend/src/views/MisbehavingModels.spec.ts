// @vitest-environment jsdom
// Misbehaving models in the whole UI, on replays of the Go engine's
// recordings (backend/session/recordings_test.go): calls the model printed
// as text are shown as calls marked "recovered from text", with the text
// they came from; broken arguments as "arguments repaired"; a model that
// repeats itself gets the notice, then the stop.
import { screen, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { ended, finish, openSession, play, send, slow } from './testing';

afterEach(finish);

describe('misbehaving models', () => {
  it('shows each call printed as text as a recovered call, with its text', slow, async () => {
    const replay = play('text_calls');
    await openSession();
    await send('What is here?');
    await ended();
    const cards = screen.getAllByTestId('card-call');
    expect(cards).toHaveLength(5);
    for (const c of cards) expect(within(c).getByTestId('recovered-call').textContent).toContain('recovered from text');
    expect(within(cards[0]!).getByTestId('rescue-original').textContent).toContain('<tool_call>');
    expect(within(cards[1]!).getByTestId('rescue-original').textContent).toContain('```json');
    expect(within(cards[0]!).queryByTestId('repaired-args')).toBeNull();
    replay.check();
  });

  it('marks repaired arguments, and shows the error for arguments beyond repair', slow, async () => {
    const replay = play('repaired_args');
    await openSession();
    await send('Read them');
    await ended();
    const cards = screen.getAllByTestId('card-call');
    expect(cards).toHaveLength(3);
    expect(within(cards[0]!).getByTestId('repaired-args').getAttribute('title')).toContain('single quotes, a trailing comma');
    expect(within(cards[1]!).getByTestId('repaired-args').getAttribute('title')).toContain('a JSON string holding the object');
    expect(within(cards[2]!).getByTestId('validation-error').textContent).toContain('expected {path: string');
    replay.check();
  });
});
