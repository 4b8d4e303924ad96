// Types of Ollama without a terminal: the Ollama of this machine
// (localollama.State) and a pull's progress (ollama.PullProgress). Field
// names are the Go json tags.
import type { LocalOllama, PullProgress } from './go';
import { isRecord } from './json';

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

export function localOllamaOf(v: unknown): LocalOllama | undefined {
  if (!isRecord(v)) return undefined;
  return {
    on_this_machine: v['on_this_machine'] === true,
    installed: v['installed'] === true,
    binary: str(v['binary']),
    binary_version: str(v['binary_version']),
    started_by_loupe: v['started_by_loupe'] === true,
    log_path: str(v['log_path']),
    install: str(v['install']),
    install_url: str(v['install_url']),
    last_error: str(v['last_error']),
  };
}

/** A pull's progress from the backend, or null when it is not one. */
export function pullProgressOf(v: unknown): PullProgress | null {
  if (!isRecord(v) || typeof v['model'] !== 'string' || typeof v['status'] !== 'string') return null;
  return {
    model: v['model'],
    status: v['status'],
    completed: num(v['completed']),
    total: num(v['total']),
    percent: Math.max(0, Math.min(100, num(v['percent']))),
    done: v['done'] === true,
  };
}

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
