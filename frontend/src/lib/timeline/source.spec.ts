import { describe, expect, it } from 'vitest';
import { sourceName } from './source';

describe('sourceName', () => {
  it('names each agent a session can be imported from, and nothing for Loupe’s own', () => {
    expect(sourceName('claude-code')).toBe('Claude Code');
    expect(sourceName('codex')).toBe('Codex CLI');
    expect(sourceName('atif')).toBe('an ATIF trajectory');
    expect(sourceName('')).toBe('');
    expect(sourceName(undefined)).toBe('');
    expect(sourceName('other-agent')).toBe('other-agent');
  });
});
