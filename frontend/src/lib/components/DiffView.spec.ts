// @vitest-environment jsdom
import { cleanup, render, screen, waitFor } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { loadHighlighter } from '../highlight';
import DiffView from './DiffView.svelte';
import LongText from './LongText.svelte';
import ObservationCard from './ObservationCard.svelte';

afterEach(cleanup);

const goDiff = '--- a/main.go\n+++ b/main.go\n@@ -1,3 +1,3 @@\n package main\n-func old() {}\n+func main() { println("<hi>") }\n\\ No newline at end of file\n';

/** Lets the highlighter's import settle and the page update. */
async function settle() {
  await loadHighlighter();
  await tick();
  await tick();
}

describe('DiffView highlighting', () => {
  it('colours the code of a diff once the highlighter loads, keeping every line and its text', async () => {
    render(DiffView, { props: { diff: goDiff, path: 'main.go' } });
    const pre = screen.getByTestId('diff').querySelector('pre')!;
    const plain = pre.textContent;
    expect(plain).toContain('+func main() { println("<hi>") }');
    await waitFor(() => expect(pre.getAttribute('data-lang')).toBe('go'));
    expect(pre.textContent).toBe(plain);
    const keywords = [...pre.querySelectorAll('span span')].filter((s) => s.textContent === 'func');
    expect(keywords).toHaveLength(2);
    // Headers, hunk lines and the no-newline note are not code.
    const lines = [...pre.children].map((l) => l.textContent);
    expect(lines).toEqual(['--- a/main.go', '+++ b/main.go', '@@ -1,3 +1,3 @@', ' package main', '-func old() {}', '+func main() { println("<hi>") }', '\\ No newline at end of file']);
    expect(pre.children[6]!.children).toHaveLength(0);
  });

  it('leaves files of unknown languages and huge diffs plain', async () => {
    render(DiffView, { props: { diff: goDiff.replaceAll('main.go', 'notes.txt'), path: 'notes.txt' } });
    // Past the size limit (a long generated file): plain.
    const huge = '--- a/big.go\n+++ b/big.go\n@@ -0,0 +1,200 @@\n' + `+var x = "${'y'.repeat(600)}"\n`.repeat(200);
    render(DiffView, { props: { diff: huge, path: 'big.go' } });
    await settle();
    for (const fig of screen.getAllByTestId('diff')) {
      const pre = fig.querySelector('pre')!;
      expect(pre.getAttribute('data-lang')).toBeNull();
      expect(pre.querySelectorAll('span span')).toHaveLength(0);
    }
  });
});

describe('LongText highlighting', () => {
  it("colours read_file's numbered lines and keeps the text as the model saw it", async () => {
    const text = '     1\tdef f(x):\n     2\t    return x\n';
    render(LongText, { props: { text, lang: 'python', numbered: true, testid: 'content' } });
    const pre = screen.getByTestId('content');
    expect(pre.textContent).toBe(text);
    await waitFor(() => expect(pre.querySelector('code')?.getAttribute('data-lang')).toBe('python'));
    expect(pre.textContent).toBe(text);
    expect([...pre.querySelectorAll('span')].some((s) => s.textContent === 'def')).toBe(true);
  });

  it('stays plain without a language', async () => {
    render(LongText, { props: { text: 'def f(x):\n', testid: 'content' } });
    await settle();
    const pre = screen.getByTestId('content');
    expect(pre.querySelector('code')).toBeNull();
    expect(pre.textContent).toBe('def f(x):\n');
  });
});

describe('ObservationCard', () => {
  const read = (path: string, is_error = false) => ({
    call_id: 'c1',
    name: 'read_file',
    content: '     1\tpackage main\n',
    is_error,
    truncated: false,
    bytes: 13,
    duration_ms: 1,
    display: { path },
  });

  it('highlights a file read by its language', async () => {
    render(ObservationCard, { props: { id: 'r:1', result: read('main.go') } });
    const pre = screen.getByTestId('observation-content');
    await waitFor(() => expect(pre.querySelector('code')?.getAttribute('data-lang')).toBe('go'));
    expect(pre.textContent).toBe('     1\tpackage main\n');
  });

  it('shows errors and other files plain', async () => {
    render(ObservationCard, { props: { id: 'r:2', result: read('main.go', true) } });
    render(ObservationCard, { props: { id: 'r:3', result: read('README') } });
    await settle();
    for (const pre of screen.getAllByTestId('observation-content')) expect(pre.querySelector('code')).toBeNull();
  });
});
