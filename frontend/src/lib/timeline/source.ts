// Where an imported session comes from, as the window names it. A session
// with a source (Summary.source) was imported from another agent's file
// and is read-only; a fork of it goes on in Loupe.

const NAMES: Record<string, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex CLI',
  atif: 'an ATIF trajectory',
};

/** The name of an imported session's source ("Claude Code"); '' for a session of Loupe's own. */
export function sourceName(source: string | undefined): string {
  if (!source) return '';
  return NAMES[source] ?? source;
}
