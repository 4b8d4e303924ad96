// A pull's progress (ollama.PullProgress, as Go sends it: the percent is
// Go's, 0 to 99 until done) in the window's words.
import type { PullProgress } from './go';

/** The step of a pull in words: every layer is "Downloading", whatever its digest. */
export function pullStep(p: PullProgress): string {
  switch (p.status) {
    case 'pulling manifest':
      return 'Reading the manifest';
    case 'verifying sha256 digest':
      return 'Verifying';
    case 'writing manifest':
      return 'Finishing';
    case 'success':
      return 'Installed';
  }
  return p.status.startsWith('pulling ') ? 'Downloading' : p.status;
}
