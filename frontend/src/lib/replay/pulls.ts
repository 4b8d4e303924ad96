// Pulls as the window receives them, written by the Go client from the
// fake Ollama's /api/pull stream (backend/ollama/pull_record_test.go): the
// progress of each line, then the model installed or the error. For specs
// and the demo: the machine's side of a pull, never computed here.
import json from './pulls.json';
import { BridgeError } from '../bridge/types';
import type { ModelInfo, PullProgress } from '../types';

export interface RecordedPull {
  name: string;
  progress: PullProgress[];
  /** The model installed at the end, when the pull succeeds. */
  model?: ModelInfo;
  /** What PullModel rejects with, when it fails. */
  error?: string;
}

// Go wrote the file from its types (ollama.PullProgress, ollama.ModelInfo).
const all = json as unknown as Record<'installs' | 'offline' | 'missing', RecordedPull>;

/** A model of two layers that installs. */
export const installs: RecordedPull = all.installs;
/** A pull on a machine without a network. */
export const offline: RecordedPull = all.offline;
/** A pull of a name the registry does not have. */
export const missing: RecordedPull = all.missing;

/** The recorded pulls, by the name pulled. */
export function recordedPulls(): Record<string, RecordedPull> {
  return { [installs.name]: installs, [offline.name]: offline, [missing.name]: missing };
}

/**
 * Plays a recorded pull: its progress lines through push, stepMs apart,
 * then done resolves with the model it installs (or none) or rejects with
 * its error. cancel resolves done at once with none: a cancelled pull is
 * not an error.
 */
export function playPull(rec: RecordedPull, stepMs: number, push: (p: PullProgress) => void): { done: Promise<ModelInfo | undefined>; cancel: () => void } {
  let cancel = () => {};
  const done = new Promise<ModelInfo | undefined>((resolve, reject) => {
    let i = 0;
    let timer: ReturnType<typeof setTimeout> | null = null;
    cancel = () => {
      if (timer) clearTimeout(timer);
      resolve(undefined);
    };
    const next = () => {
      timer = null;
      if (i < rec.progress.length) {
        push(rec.progress[i++]!);
        timer = setTimeout(next, stepMs);
        return;
      }
      if (rec.error !== undefined) reject(new BridgeError(rec.error, 'PullModel'));
      else resolve(rec.model);
    };
    timer = setTimeout(next, 0);
  });
  return { done, cancel };
}
