// @vitest-environment jsdom
// Traces of finished runs on the settings page, on the replay of the Go
// scenario "otlp_export" (backend/session/recordings_test.go): the
// backend's own refusal of an endpoint is shown and what was typed kept;
// one it takes is saved with its protocol and "without content".
import { fireEvent, screen, waitFor } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import type { Settings } from '../lib/types';
import { finish, play, slow } from './testing';

afterEach(finish);

describe('traces of finished runs in Settings', () => {
  it('shows the backend\u2019s refusal of an endpoint, then saves one with its protocol and without content', slow, async () => {
    const replay = play('otlp_export');
    await fireEvent.click(await screen.findByTestId('open-settings'));
    await screen.findByTestId('settings-form');
    const field = screen.getByTestId('settings-otlp-endpoint') as HTMLInputElement;
    const protocol = screen.getByTestId('settings-otlp-protocol') as HTMLSelectElement;
    const noContent = screen.getByTestId('settings-otlp-no-content') as HTMLInputElement;
    // Off by default: nothing to choose until an endpoint is typed.
    expect([field.value, protocol.disabled, noContent.disabled, noContent.checked]).toEqual(['', true, true, false]);

    await fireEvent.input(field, { target: { value: 'localhost:4318' } });
    await fireEvent.click(screen.getByTestId('settings-save'));
    const err = await screen.findByTestId('settings-error');
    expect(err.textContent).toContain('OTLP endpoint "localhost:4318" is not an http:// or https:// URL (such as http://localhost:4318)');
    expect(field.value).toBe('localhost:4318');

    await fireEvent.input(field, { target: { value: 'http://localhost:4318' } });
    expect(protocol.disabled).toBe(false);
    await fireEvent.change(protocol, { target: { value: 'http/json' } });
    await fireEvent.click(noContent);
    await fireEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() => expect(screen.queryByTestId('settings-form')).toBeNull());
    expect(replay.callsOf('saveSettings').at(-1)![0] as Settings).toMatchObject({
      otlp_endpoint: 'http://localhost:4318',
      otlp_protocol: 'http/json',
      otlp_no_content: true,
    });
    replay.check(); // the whole recording was played
  });
});
