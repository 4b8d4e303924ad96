// Text Loupe did not write (the model's answer and thinking, tool arguments,
// a command's output, a file's content, a server's error), shown so that
// its control characters are seen instead of obeyed: the same rules as the
// Go package backend/visible, which the command line and the exports use,
// and checked against the same table (replay/visible.json, written by
// its Go test). In a page, ESC and the other controls are invisible, and a
// bidi override reorders what follows it: a command on the approval card
// could read as another.

/** Whether c (a code point), followed by the text after it, must be escaped. */
function escaped(c: number, next: number | undefined): boolean {
  if (c === 0x0a || c === 0x09) return false;
  if (c === 0x0d) return next !== 0x0a; // a CRLF line ending overwrites nothing
  if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  return (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c === 0x200e || c === 0x200f || c === 0x061c;
}

const named: Record<number, string> = { 0x0a: '\\n', 0x09: '\\t', 0x0d: '\\r', 0x08: '\\b', 0x0c: '\\f' };

function hex(c: number, digits: number): string {
  return c.toString(16).padStart(digits, '0');
}

/**
 * s with ESC and the other C0 controls but newline and tab written out
 * (\x1b, \r, \b), and DEL, the C1 controls and the bidi controls as \uXXXX.
 * A carriage return just before a newline is kept. Text without any comes
 * back as it is (the same string).
 */
export function visible(s: string): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!escaped(c, i + 1 < s.length ? s.charCodeAt(i + 1) : undefined)) continue;
    out += s.slice(start, i) + (named[c] ?? (c < 0x20 ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`));
    start = i + 1;
  }
  return start === 0 ? s : out + s.slice(start);
}
