// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { ReplayBridge } from '../replay/bridge';
import { recording } from '../replay/recordings';
import { settingsOf, type Settings, type SettingsWire } from '../types';
import { SettingsState } from './settings.svelte';

const settle = () => new Promise((r) => setTimeout(r, 0));

/** The settings the recording's user saves, in order. */
function saves(replay: ReplayBridge): Settings[] {
  return replay.recording.steps.flatMap((s) => (s.command?.method === 'saveSettings' ? [settingsOf(s.command.args[0] as unknown as SettingsWire)] : []));
}

describe('SettingsState', () => {
  it('keeps the refusal until a save goes through, then says so, reads back and tells the app', async () => {
    const replay = new ReplayBridge(recording('settings'));
    const notify = vi.fn();
    const afterSave = vi.fn();
    const s = new SettingsState(replay, notify, afterSave);
    await s.load();
    expect(s.settings?.permission_mode).toBe('ask');
    const [mode, broken, fixed] = saves(replay);
    expect(await s.save(mode!)).toBe(true);
    expect(s.settings?.permission_mode).toBe('ask_all');
    expect(notify).toHaveBeenCalledWith('Settings saved.');
    expect(afterSave).toHaveBeenCalledTimes(1);
    await settle();
    // The page is closed; what the backend holds is read back.
    expect(replay.callsOf('getSettings')).toHaveLength(2);

    expect(await s.save(broken!)).toBe(false);
    expect(s.error).toContain('the system prompt template does not parse');
    expect(s.settings?.system_prompt).not.toBe(broken!.system_prompt);
    expect(afterSave).toHaveBeenCalledTimes(1);
    expect(await s.save(fixed!)).toBe(true);
    expect(s.error).toBeNull();
    expect(afterSave).toHaveBeenCalledTimes(2);
    replay.check();
  });

  it('opens the page afresh at a section, without an old refusal', () => {
    const s = new SettingsState(new ReplayBridge(recording('settings')), vi.fn(), vi.fn());
    s.error = 'settings not saved: …';
    s.opening('protections');
    expect(s.error).toBeNull();
    expect(s.section).toBe('protections');
  });
});
