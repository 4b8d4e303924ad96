// Fails when the production bundle holds the browser demo or the replay
// bridge: both are for development and tests only, and the window must not
// ship recorded sessions. Run after `vite build` (npm run build); give a
// folder to check another build than dist/.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Strings only replay and demo code hold: the replay bridge's name for
 * itself (REPLAY_MARK in src/lib/replay/player.ts), and the field every
 * recording has.
 */
export const MARKERS = ['loupe:replay', 'raw_requests'];

/**
 * Whether a built file is script: a .js file, or a page with its script
 * inlined (the shared replay's viewer.html is one file).
 */
function hasScript([name, text]) {
  return name.endsWith('.js') || (name.endsWith('.html') && /<script\b(?![^>]*\bsrc=)[^>]*type="module"[^>]*>\s*\S/.test(text));
}

/** What is wrong with a bundle given as [name, text] pairs: one line per marker found. */
export function bundleProblems(files) {
  const found = [];
  if (!files.some(hasScript)) found.push('no JavaScript in it: build first');
  for (const [name, text] of files) for (const m of MARKERS) if (text.includes(m)) found.push(`${name} holds "${m}"`);
  return found;
}

function read(dir, base = dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) read(p, base, out);
    else if (/\.(js|mjs|css|html|json)$/.test(name)) out.push([p.slice(base.length + 1), readFileSync(p, 'utf8')]);
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dist = process.argv[2] ?? fileURLToPath(new URL('../dist', import.meta.url));
  const files = read(dist.replace(/\/$/, ''));
  const problems = bundleProblems(files);
  if (problems.length) {
    console.error(`check-bundle: ${dist} is not a clean production bundle:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`check-bundle: ${files.length} files, no demo or replay code`);
}
