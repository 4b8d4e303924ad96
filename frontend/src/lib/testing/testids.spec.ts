// Test ids are for the tests: the app's own code finds its elements by
// data-part (or data-tour, for the guided tour's stops), so that a test
// id can be renamed or removed without changing what the window does.
import { describe, expect, it } from 'vitest';

const sources = import.meta.glob(['/src/**/*.ts', '/src/**/*.svelte', '!/src/**/*.spec.ts', '!/src/lib/testing/**'], {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;

describe('production code and test ids', () => {
  it('reads the sources it checks', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(50);
    expect(Object.keys(sources).some((p) => p.endsWith('AppShell.svelte'))).toBe(true);
  });

  it('never looks an element up by its data-testid', () => {
    const lookups = Object.entries(sources).flatMap(([path, text]) =>
      text
        .split('\n')
        .map((line, i) => ({ line, at: `${path}:${i + 1}` }))
        .filter(({ line }) => /\[data-testid|dataset\.testid|getAttribute\(['"]data-testid/.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(lookups).toEqual([]);
  });
});
