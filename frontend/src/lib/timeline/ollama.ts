// How Ollama stands for this window, in one word, and what to do about it:
// the one reading of the status that every hint about Ollama uses (the
// sidebar, the new-session page, the session's banner, "As the model read
// it"). The backend's own message says "not running" whatever the cause,
// since from where it stands nothing answered; the status says more.
import type { StatusInfo } from '../types';

export type OllamaKind = 'checking' | 'running' | 'not_installed' | 'not_running' | 'unreachable';

export function ollamaKind(s: StatusInfo | null | undefined): OllamaKind {
  if (s == null) return 'checking';
  if (s.reachable) return 'running';
  if (s.local?.on_this_machine && !s.local.installed) return 'not_installed';
  if (s.local?.on_this_machine) return 'not_running';
  return 'unreachable';
}

/** What the window says when Ollama is needed and does not answer ("" when it runs or is being checked). */
export function ollamaHint(s: StatusInfo | null | undefined): string {
  const host = (s?.ollama_host ?? '').replace(/^https?:\/\//, '');
  const at = host ? ` at ${host}` : '';
  switch (ollamaKind(s)) {
    case 'not_installed':
      return 'Ollama is not installed on this machine. Install it (Get Ollama, in the sidebar), then pull a model that can use tools.';
    case 'not_running':
      return `Ollama is installed but not running${at}. Start Ollama (in the sidebar) starts it, or run \`ollama serve\` yourself.`;
    case 'unreachable':
      return `Nothing answers${at}. Start Ollama on that machine, or change the host in Settings.`;
    default:
      return '';
  }
}
