import { describe, expect, it } from 'vitest';
import {
  MAX_HIGHLIGHT_CHARS,
  MAX_HIGHLIGHT_LINES,
  highlightLines,
  highlightText,
  langForPath,
  loadHighlighter,
  splitHighlightedLines,
  splitNumbered,
  worthHighlighting,
} from './index';

/** The text of an HTML fragment, as the page would show it. */
function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Whether every span opened in a line is closed in it. */
function balanced(line: string): boolean {
  return (line.match(/<span/g) ?? []).length === (line.match(/<\/span>/g) ?? []).length;
}

describe('langForPath', () => {
  it('knows common source files by extension or name', () => {
    expect(langForPath('main.go')).toBe('go');
    expect(langForPath('src/app/calc.py')).toBe('python');
    expect(langForPath('frontend/src/App.svelte')).toBe('xml');
    expect(langForPath('x.TSX')).toBe('typescript');
    expect(langForPath('build/Makefile')).toBe('makefile');
    expect(langForPath('Cargo.toml')).toBe('ini');
  });

  it('leaves unknown and extensionless files plain', () => {
    expect(langForPath('notes.txt')).toBeNull();
    expect(langForPath('LICENSE')).toBeNull();
    expect(langForPath('.gitignore')).toBeNull();
    expect(langForPath('')).toBeNull();
    expect(langForPath(undefined)).toBeNull();
  });
});

describe('worthHighlighting', () => {
  it('skips empty and huge texts', () => {
    expect(worthHighlighting('x := 1\n')).toBe(true);
    expect(worthHighlighting('')).toBe(false);
    expect(worthHighlighting('x'.repeat(MAX_HIGHLIGHT_CHARS + 1))).toBe(false);
    expect(worthHighlighting('\n'.repeat(MAX_HIGHLIGHT_LINES))).toBe(false);
    expect(worthHighlighting('\n'.repeat(MAX_HIGHLIGHT_LINES - 1))).toBe(true);
  });
});

describe('splitHighlightedLines', () => {
  it('closes and reopens spans across line ends', () => {
    const html = 'a <span class="c">/* one\ntwo <span class="d">x\ny</span> */</span> b';
    const lines = splitHighlightedLines(html);
    expect(lines).toHaveLength(3);
    expect(lines.every(balanced)).toBe(true);
    expect(lines.map(textOf)).toEqual(['a /* one', 'two x', 'y */ b']);
    expect(lines[2]).toBe('<span class="c"><span class="d">y</span> */</span> b');
  });
});

describe('splitNumbered', () => {
  it("splits read_file's number column from the code and keeps notes", () => {
    const text = '     1\tpackage main\n     2\t\n\n[showing lines 1–2 of 9; use offset=3 to read on]\n';
    const parts = splitNumbered(text);
    expect(parts.map((p) => p.gutter + p.code).join('\n')).toBe(text);
    expect(parts[0]).toEqual({ gutter: '     1\t', code: 'package main' });
    expect(parts[1]).toEqual({ gutter: '     2\t', code: '' });
    expect(parts[3]!.gutter).toBe('');
  });
});

describe('the highlighter', () => {
  it('is loaded on demand and marks Go keywords and strings', async () => {
    const h = await loadHighlighter();
    const html = h.highlight('func main() {\n\tfmt.Println("hi <there>")\n}\n', 'go');
    expect(html).not.toBeNull();
    expect(textOf(html!)).toBe('func main() {\n\tfmt.Println("hi <there>")\n}\n');
    expect(html).toMatch(/<span[^>]*>func<\/span>/);
    expect(html).toMatch(/<span[^>]*>&quot;hi &lt;there&gt;&quot;<\/span>/);
    expect(h.highlight('x', 'cobol')).toBeNull();
  });

  it('keeps a comment across lines coloured line by line', async () => {
    const h = await loadHighlighter();
    const lines = highlightLines(h, ['x = 1', '"""a doc', 'string"""', 'y = 2'], 'python')!;
    expect(lines.map(textOf)).toEqual(['x = 1', '"""a doc', 'string"""', 'y = 2']);
    expect(lines.every(balanced)).toBe(true);
    expect(lines[2]).toMatch(/^<span[^>]*>string&quot;&quot;&quot;<\/span>$/);
  });

  it("highlights read_file's output without changing its text", async () => {
    const h = await loadHighlighter();
    const text = '     1\tdef f(x):\n     2\t    return x  # <ok>\n\n[showing lines 1–2 of 9; use offset=3 to read on]\n';
    const html = highlightText(h, text, 'python', true)!;
    expect(textOf(html)).toBe(text);
    expect(html).toContain('<span class="gutter">     1\t</span>');
    expect(html).toMatch(/<span[^>]*>def<\/span>/);
    // Loupe's note is not code.
    expect(html).toContain('\n[showing lines 1–2 of 9; use offset=3 to read on]\n');
  });
});
