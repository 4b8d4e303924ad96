import { describe, expect, it } from 'vitest';
import { systemParts } from './system';

const bytes = (s: string) => new TextEncoder().encode(s).length;

describe('systemParts', () => {
  it('gives the prompt whole when no instructions file was added', () => {
    expect(systemParts('You are a coding agent.', null)).toEqual([{ kind: 'prompt', text: 'You are a coding agent.' }]);
    expect(systemParts('', undefined)).toEqual([]);
  });

  it('cuts at byte offsets, as Go counts them, past characters of several bytes', () => {
    const base = 'Agent in /home/zoë/projét — café\n\n';
    const part = '<project_instructions source="AGENTS.md">\nUse ünïcode ✓\n</project_instructions>';
    const system = base + part;
    const parts = systemParts(system, { source: 'AGENTS.md', start: bytes(base), len: bytes(part), bytes: 20 });
    expect(parts).toEqual([
      { kind: 'prompt', text: base },
      { kind: 'instructions', text: part },
    ]);
  });

  it('leaves the prompt whole when the part does not fit it', () => {
    expect(systemParts('short', { source: 'AGENTS.md', start: 3, len: 50, bytes: 50 })).toEqual([{ kind: 'prompt', text: 'short' }]);
  });
});
