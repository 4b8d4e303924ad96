import { describe, expect, it } from 'vitest';
import { diffStats, parseDiff } from './diff';
import { argSummary, baseName, formatWhen, prettyJson } from './format';

describe('parseDiff', () => {
  it('classifies unified diff lines', () => {
    const lines = parseDiff('--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,2 @@\n package x\n-old\n+new\n');
    expect(lines.map((l) => l.kind)).toEqual(['meta', 'meta', 'hunk', 'ctx', 'del', 'add']);
    expect(diffStats(lines)).toEqual({ added: 1, removed: 1 });
  });

  it('reads a removed "-- comment" line inside a hunk as removed, not as a header', () => {
    const lines = parseDiff('--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,2 @@\n--- old note\n+++ new note\n select 1;\n');
    expect(lines.map((l) => l.kind)).toEqual(['meta', 'meta', 'hunk', 'del', 'add', 'ctx']);
    expect(diffStats(lines)).toEqual({ added: 1, removed: 1 });
  });
});

describe('argSummary', () => {
  it('picks the telling argument of each tool', () => {
    expect(argSummary('run_command', { command: 'go test ./...' })).toBe('go test ./...');
    expect(argSummary('read_file', { path: 'a.go', limit: 3 })).toBe('a.go');
    expect(argSummary('grep', { pattern: 'TODO', path: 'src' })).toBe('TODO in src');
    expect(argSummary('glob', { pattern: '**/*.ts' })).toBe('**/*.ts');
    expect(argSummary('read_file', null)).toBe('');
    expect(argSummary('read_file', ['x'])).toBe('');
  });
});

describe('prettyJson', () => {
  it('indents values and JSON strings, and leaves other text alone', () => {
    expect(prettyJson({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson('not json')).toBe('not json');
    expect(prettyJson(undefined)).toBe('null');
  });
});

describe('small helpers', () => {
  it('formats relative times', () => {
    const now = Date.parse('2026-01-05T12:00:00Z');
    expect(formatWhen('2026-01-05T11:59:50Z', now)).toBe('just now');
    expect(formatWhen('2026-01-05T11:30:00Z', now)).toBe('30 min ago');
    expect(formatWhen('2026-01-05T09:00:00Z', now)).toBe('3 h ago');
    expect(formatWhen('2026-01-04T10:00:00Z', now)).toBe('yesterday');
    expect(formatWhen('nonsense', now)).toBe('');
  });
  it('takes the last folder of a path', () => {
    expect(baseName('/home/me/tally/')).toBe('tally');
    expect(baseName('C:\\work\\shop')).toBe('shop');
  });
});
