// @vitest-environment jsdom
// The Ollama host on the settings page, on the replay of the Go scenario
// "ollama_host" (backend/session/recordings_test.go): the backend's own
// refusal of a host is shown and what was typed kept; a host it takes is
// saved, and Ollama is checked again at once, so the status speaks of the
// host saved.
import { fireEvent, screen, waitFor } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import type { Settings } from '../lib/types';
import { finish, play, slow } from './testing';

afterEach(finish);

describe('the Ollama host in Settings', () => {
  it('shows the backend\u2019s refusal, keeps what was typed, then saves a host and checks Ollama again', slow, async () => {
    const replay = play('ollama_host');
    await fireEvent.click(await screen.findByTestId('open-settings'));
    await screen.findByTestId('settings-form');
    const field = screen.getByTestId('settings-ollama-host') as HTMLInputElement;
    // Where the status says Loupe talks now.
    expect(screen.getByTestId('settings-host-effective').textContent).toContain('Now talking to http://127.0.0.1:11434 (from the default)');
    // Two sentences, not run together.
    expect(screen.getByTestId('settings-host-effective').textContent).toMatch(/\(from the default\)\. Empty: /);

    await fireEvent.input(field, { target: { value: 'ftp://gpu-box:11434' } });
    await fireEvent.click(screen.getByTestId('settings-save'));
    const err = await screen.findByTestId('settings-error');
    expect(err.textContent).toContain('the Ollama host "ftp://gpu-box:11434" cannot be used: the scheme must be http or https');
    expect(err.textContent).toContain('type http:// or https://, a host name or IP address and an optional port');
    expect(field.value).toBe('ftp://gpu-box:11434');

    // Test asks the host typed, and saves nothing.
    await fireEvent.input(field, { target: { value: 'localhost:11500' } });
    await fireEvent.click(screen.getByTestId('settings-host-test'));
    expect((await screen.findByTestId('settings-host-result')).textContent).toContain('Ollama 0.13.0 answers at');
    expect(replay.callsOf('checkHost')).toEqual([['localhost:11500']]);

    const checksBefore = replay.callsOf('status').length;
    await fireEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() => expect(screen.queryByTestId('settings-form')).toBeNull());
    expect((replay.callsOf('saveSettings').at(-1)![0] as Settings).ollama_host).toBe('localhost:11500');
    // Checked at once, not at the next poll.
    await waitFor(() => expect(replay.callsOf('status').length).toBeGreaterThan(checksBefore));
    replay.check(); // the whole recording was played
  });
});
