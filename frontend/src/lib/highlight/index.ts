// Syntax highlighting for code in observations and diffs. What is here is
// small and loaded with the page: which language a path is, whether a text
// is worth highlighting, and how to cut highlighted HTML into lines. The
// highlighter itself (highlight.js with a few languages, and its colours)
// is a chunk of its own that loadHighlighter() imports on first use, so the
// first paint never waits for it.

/** Past these sizes a text stays plain: highlighting would cost more than it helps. */
export const MAX_HIGHLIGHT_CHARS = 100_000;
export const MAX_HIGHLIGHT_LINES = 3_000;

const BY_EXT: Record<string, string> = {
  go: 'go',
  py: 'python',
  pyi: 'python',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'typescript',
  json: 'json',
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  yml: 'yaml',
  yaml: 'yaml',
  md: 'markdown',
  css: 'css',
  html: 'xml',
  htm: 'xml',
  xml: 'xml',
  svg: 'xml',
  svelte: 'xml',
  vue: 'xml',
  rs: 'rust',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  java: 'java',
  sql: 'sql',
  toml: 'ini',
  ini: 'ini',
  cfg: 'ini',
};

const BY_NAME: Record<string, string> = {
  makefile: 'makefile',
  gnumakefile: 'makefile',
  dockerfile: 'dockerfile',
};

/** The highlight.js language for a file path, or null to show it plain. */
export function langForPath(path: string | null | undefined): string | null {
  if (!path) return null;
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  if (BY_NAME[name]) return BY_NAME[name]!;
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return null;
  return BY_EXT[name.slice(dot + 1)] ?? null;
}

/** Whether a text is small enough to highlight. */
export function worthHighlighting(text: string): boolean {
  if (text.length === 0 || text.length > MAX_HIGHLIGHT_CHARS) return false;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    if (++lines > MAX_HIGHLIGHT_LINES) return false;
  }
  return true;
}

/**
 * Cuts highlight.js HTML into one string per line, closing the spans still
 * open at each line's end and opening them again on the next, so that each
 * line is whole HTML and a comment or string spanning lines keeps its colour.
 */
export function splitHighlightedLines(html: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  let line = '';
  let last = 0;
  const tags = /<span[^>]*>|<\/span>|\n/g;
  for (let m = tags.exec(html); m; m = tags.exec(html)) {
    line += html.slice(last, m.index);
    last = m.index + m[0].length;
    if (m[0] === '\n') {
      lines.push(line + '</span>'.repeat(open.length));
      line = open.join('');
    } else {
      if (m[0] === '</span>') open.pop();
      else open.push(m[0]);
      line += m[0];
    }
  }
  lines.push(line + html.slice(last));
  return lines;
}

/** One line of read_file's output: its number column ("     7\t") and its text. */
export interface NumberedLine {
  /** The number and its tab, or '' for a line of Loupe's own (a note at the end). */
  gutter: string;
  code: string;
}

const NUMBERED = /^( *\d+\t)(.*)$/;

/** Splits read_file's numbered output into gutters and code; joining gutter + code gives each line back. */
export function splitNumbered(text: string): NumberedLine[] {
  return text.split('\n').map((l) => {
    const m = NUMBERED.exec(l);
    return m ? { gutter: m[1]!, code: m[2]! } : { gutter: '', code: l };
  });
}

/** Escapes text for HTML. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Highlights lines of code as one text (so constructs spanning lines keep
 * their colour) and gives one HTML string per line, or null when the
 * language is not loaded.
 */
export function highlightLines(h: Highlighter, lines: readonly string[], lang: string): string[] | null {
  const html = h.highlight(lines.join('\n'), lang);
  return html == null ? null : splitHighlightedLines(html);
}

/**
 * HTML for text in lang: read_file's numbered output keeps its numbers in a
 * muted gutter and Loupe's notes plain. The HTML's text is text, unchanged.
 */
export function highlightText(h: Highlighter, text: string, lang: string, numbered: boolean): string | null {
  if (!numbered) return h.highlight(text, lang);
  const parts = splitNumbered(text);
  const codeAt = parts.flatMap((p, i) => (p.gutter ? [i] : []));
  const lines = highlightLines(h, codeAt.map((i) => parts[i]!.code), lang);
  if (lines == null) return null;
  const html = parts.map((p) => escapeHtml(p.code));
  codeAt.forEach((at, k) => (html[at] = `<span class="gutter">${parts[at]!.gutter}</span>${lines[k]}`));
  return html.join('\n');
}

export interface Highlighter {
  /** HTML for code in lang, or null when the language is not loaded. */
  highlight(code: string, lang: string): string | null;
}

/** The highlighter, imported on first use (its own chunk, with its CSS). */
export function loadHighlighter(): Promise<Highlighter> {
  return import('./hljs');
}
