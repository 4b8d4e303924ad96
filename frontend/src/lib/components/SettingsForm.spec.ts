// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { settingsOf } from '../types';
import SettingsForm from './SettingsForm.svelte';

afterEach(cleanup);

const saved = settingsOf({ max_rounds: 50, num_ctx_cap: 16384, temperature: 0.2, permission_mode: 'ask', tools: {}, rules: [], system_prompt: 'x', first_token_timeout_s: 600, stall_timeout_s: 300 });

describe('SettingsForm', () => {
  it('saves the waits for Ollama, and refuses one that is not a number of seconds', async () => {
    const onsave = vi.fn();
    render(SettingsForm, { props: { settings: saved, onsave, oncancel: () => {} } });
    const first = screen.getByTestId('settings-first-token-timeout') as HTMLInputElement;
    expect(first.value).toBe('600');
    await fireEvent.input(first, { target: { value: '-5' } });
    expect(screen.getByRole('alert').textContent).toMatch(/first token must be a whole number of seconds/);
    expect((screen.getByTestId('settings-save') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(first, { target: { value: '120' } });
    await fireEvent.input(screen.getByTestId('settings-stall-timeout'), { target: { value: '0' } });
    await fireEvent.click(screen.getByTestId('settings-save'));
    expect(onsave).toHaveBeenCalledTimes(1);
    expect(onsave.mock.calls[0]![0]).toMatchObject({ first_token_timeout_s: 120, stall_timeout_s: 0 });
  });
});

describe('SettingsForm, changes not saved', () => {
  it('reports what was typed, starts from it again, and discards it on demand', async () => {
    let kept: unknown = 'never told';
    const { unmount } = render(SettingsForm, {
      props: { settings: saved, onsave: () => {}, oncancel: () => {}, onunsaved: (d: unknown) => (kept = d) },
    });
    expect(kept).toBeNull();
    expect(screen.queryByTestId('settings-unsaved')).toBeNull();
    await fireEvent.input(screen.getByTestId('settings-stall-timeout'), { target: { value: '90' } });
    expect(screen.getByTestId('settings-unsaved').textContent).toMatch(/kept if you leave/);
    expect(kept).toMatchObject({ stall_timeout_s: 90 });
    unmount();
    // Back on the page: the typed value is there.
    render(SettingsForm, { props: { settings: saved, onsave: () => {}, oncancel: () => {}, unsaved: kept as typeof saved, onunsaved: (d: unknown) => (kept = d) } });
    expect((screen.getByTestId('settings-stall-timeout') as HTMLInputElement).value).toBe('90');
    await fireEvent.click(screen.getByTestId('settings-discard'));
    expect((screen.getByTestId('settings-stall-timeout') as HTMLInputElement).value).toBe('300');
    expect(kept).toBeNull();
  });
});
