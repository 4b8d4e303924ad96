// Settings for the specs: what Go stored in a recording (settings.Defaults,
// as the engine wrote it), with the fields a spec sets changed.
import newSession from '../replay/recordings/new_session.json';
import { settingsOf, type Settings, type SettingsWire } from '../types';

export function goSettings(over: Partial<SettingsWire> = {}): Settings {
  return settingsOf({ ...(newSession.settings as unknown as SettingsWire), ...over });
}
