// The shared-replay benchmark of docs/BENCHMARKS.md. It prints a table:
//   - the viewer's own weight: the built page (backend/viewer/dist/
//     viewer.html, the window's components and styles inlined), as is and
//     gzipped;
//   - for a stored session of about 100 events and one of about 10,000
//     (each a single run recorded by the real loop against fakeollama
//     -rounds, as bench/timeline uses), the file `loupe export --format
//     html` writes (as is and gzipped), and how long the export took;
//   - the time to the first card in Chromium opening the file from disk
//     (file://, no server): from the start of the navigation (the page's
//     time origin) to the frame after the first card is in the DOM, and to
//     the last card (the run's end, where the replay opens).
//
//   bash bench/share/run.sh [--samples 5]
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root, startFakeOllama, browser, longSessionDb, exportReplay, goBuild, bin, windowBuild, tempDir } from '../../e2e/lib.mjs';

const { values: opts } = parseArgs({ options: { samples: { type: 'string', default: '5' } } });
const samples = Math.max(1, Number(opts.samples));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (n) => (n / 1024).toFixed(0);

/** Opens the file in a fresh page and returns the ms to its first and its last card painted. */
async function open(chrome, file) {
  const page = await chrome.newPage({ viewport: { width: 1360, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // Before the page's own script: watch every frame for the cards.
  await page.addInitScript(() => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    window.__first = null;
    window.__last = null;
    void (async () => {
      while (!document.querySelector('[data-card-id]')) await frame();
      await frame();
      window.__first = performance.now();
      while (!document.querySelector('[data-testid="card-end"]')) await frame();
      await frame();
      window.__last = performance.now();
    })();
  });
  try {
    await page.goto(pathToFileURL(file).href);
    await page.waitForFunction(() => window.__last != null, null, { timeout: 180000, polling: 50 });
    if (errors.length) throw new Error(`the page failed: ${errors.join('; ')}`);
    return await page.evaluate(() => ({ first: window.__first, last: window.__last }));
  } finally {
    await page.close();
  }
}

async function measure(chrome, long) {
  const file = join(tempDir('loupe-bench-share-'), 'replay.html');
  goBuild(join(bin, 'loupe'), windowBuild);
  const exports = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    exportReplay(long.db, long.session, file);
    exports.push(performance.now() - t0);
  }
  const bytes = readFileSync(file);
  const first = [], last = [];
  await open(chrome, file); // a first opening, not counted: the binary and Chromium warm
  for (let i = 0; i < samples; i++) {
    console.error(`   ${long.events} events, sample ${i + 1}`);
    const t = await open(chrome, file);
    first.push(t.first);
    last.push(t.last);
  }
  return { events: long.events, size: bytes.length, gzip: gzipSync(bytes).length, export: median(exports), first: median(first), last: median(last) };
}

const viewer = readFileSync(join(root, 'backend', 'viewer', 'dist', 'viewer.html'));
const fake = await startFakeOllama({ models: [{ name: 'tiny', context_length: 8192 }], replies: [] });
const chrome = await browser();
try {
  const small = await longSessionDb({ rounds: 10, calls: 3, envEvery: 4, prefix: 'loupe-bench-share-small-' });
  const large = await longSessionDb({ rounds: 910, calls: 3, envEvery: 50, prefix: 'loupe-bench-share-large-' });
  const rev = (() => {
    try { return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim(); } catch { return '?'; }
  })();
  console.error(`==> ${samples} samples each, Chromium ${chrome.version()}, ${rev}`);
  const a = await measure(chrome, small);
  const b = await measure(chrome, large);
  const ratio = (k) => `${(b[k] / a[k]).toFixed(2)}×`;
  console.log(`the viewer's own weight (viewer.html): ${kb(viewer.length)} KB, ${kb(gzipSync(viewer).length)} KB gzipped`);
  console.log();
  console.log(`| (median of ${samples}) | ${a.events} events | ${b.events} events | large / small |`);
  console.log('|---|---:|---:|---:|');
  console.log(`| file, KB | ${kb(a.size)} | ${kb(b.size)} | ${ratio('size')} |`);
  console.log(`| file gzipped, KB | ${kb(a.gzip)} | ${kb(b.gzip)} | ${ratio('gzip')} |`);
  console.log(`| the session in it (file − viewer), KB | ${kb(a.size - viewer.length)} | ${kb(b.size - viewer.length)} | ${((b.size - viewer.length) / (a.size - viewer.length)).toFixed(0)}× |`);
  console.log(`| loupe export --format html, ms | ${a.export.toFixed(0)} | ${b.export.toFixed(0)} | ${ratio('export')} |`);
  console.log(`| first card painted, ms from navigation | ${a.first.toFixed(0)} | ${b.first.toFixed(0)} | ${ratio('first')} |`);
  console.log(`| the run's end painted, ms from navigation | ${a.last.toFixed(0)} | ${b.last.toFixed(0)} | ${ratio('last')} |`);
} finally {
  await chrome.close();
  await fake.stop();
}
