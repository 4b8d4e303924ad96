// Every recording the Go scenarios wrote (backend/session/recordings_test.go),
// by scenario name. For specs: the demo loads only the one it plays.
import { parseRecording, type Recording } from './recording';

const files = import.meta.glob<unknown>('./recordings/*.json', { eager: true, import: 'default' });

const byName = new Map<string, Recording>();
for (const [path, json] of Object.entries(files)) {
  // NAME.got.json is what a failing Go test wrote beside the recording.
  if (path.endsWith('.got.json')) continue;
  const r = parseRecording(json);
  byName.set(path.replace(/^.*\/(.*)\.json$/, '$1'), r);
}

/** The recording of a scenario; throws when there is none, naming the ones there are. */
export function recording(name: string): Recording {
  const r = byName.get(name);
  if (!r) throw new Error(`no recording "${name}" (there are: ${[...byName.keys()].sort().join(', ')})`);
  return r;
}

/** All recordings, by name. */
export function allRecordings(): ReadonlyMap<string, Recording> {
  return byName;
}
