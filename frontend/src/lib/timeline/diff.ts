// Splits a unified diff into lines the UI can colour.

export type DiffLineKind = 'add' | 'del' | 'hunk' | 'meta' | 'ctx';

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

export function parseDiff(diff: string): DiffLine[] {
  const lines = diff.replace(/\r\n/g, '\n').split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  // Headers come before a file's first hunk; inside a hunk, "---" is a
  // removed line that began with "--" (a SQL or Lua comment).
  let inHunk = false;
  return lines.map((text): DiffLine => {
    if (text.startsWith('diff ')) inHunk = false;
    if (!inHunk && (text.startsWith('+++') || text.startsWith('---') || text.startsWith('diff ') || text.startsWith('index ')))
      return { kind: 'meta', text };
    if (text.startsWith('@@')) {
      inHunk = true;
      return { kind: 'hunk', text };
    }
    if (text.startsWith('+')) return { kind: 'add', text };
    if (text.startsWith('-')) return { kind: 'del', text };
    return { kind: 'ctx', text };
  });
}

export function diffStats(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.kind === 'add') added++;
    else if (l.kind === 'del') removed++;
  }
  return { added, removed };
}
