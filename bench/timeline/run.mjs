// The timeline benchmark of docs/BENCHMARKS.md: a stored session of about
// 100 events and one of about 10,000 (each a single run recorded by the
// real loop against fakeollama -rounds), opened in turn in Chromium against
// the app's dev build, side by side. It prints a table:
//   - first card: from the click on the session to the first card painted
//     (two animation frames after a card is in the DOM);
//   - p50 / p95 frame time while the timeline scrolls 40 px a frame;
//   - JS heap (Chromium's JSHeapUsedSize after a GC), DOM nodes, and the
//     renderer processes' memory (PSS) after opening and scrolling;
//   - in the real window (the production build, WebKitGTK): from the click
//     on the session to the screen showing it (no longer "Loading"), and
//     the WebKit web process's memory (RSS) then.
//
//   bash bench/timeline/run.sh [--samples 3]
import { parseArgs } from 'node:util';
import { readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import {
  startDisplay, startFakeOllama, startDevApp, browser, newPage, waitForOllama, longSessionDb,
  start, goBuild, bin, windowBuild, x11, appWindow, until, tempDir,
} from '../../e2e/lib.mjs';

const { values: opts } = parseArgs({ options: { samples: { type: 'string', default: '3' } } });
const samples = Math.max(1, Number(opts.samples));

/** The kB of proportional set size of the Chromium renderer processes. */
function rendererPss(browserPid) {
  let kb = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const argv = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (!argv.includes('--type=renderer')) continue;
      const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${d}/status`, 'utf8'))?.[1]);
      // Renderers descend from the browser, a child of this process.
      if (!isDescendant(ppid, browserPid)) continue;
      kb += Number(/Pss:\s+(\d+)/.exec(readFileSync(`/proc/${d}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch { /* the process went away */ }
  }
  return kb;
}
function isDescendant(pid, ancestor) {
  for (let p = pid, n = 0; p > 1 && n < 10; n++) {
    if (p === ancestor) return true;
    try {
      p = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1]);
    } catch { return false; }
  }
  return false;
}

/** Clicks the session and waits for its first card to be painted, in the page's own clock. */
async function firstCard(page) {
  await page.evaluate(() => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    window.__first = null;
    window.__t0 = performance.now();
    void (async () => {
      while (!document.querySelector('[data-card-id]')) await frame();
      // The frame after the one that drew it: painted.
      await frame();
      await frame();
      window.__first = performance.now() - window.__t0;
    })();
  });
  await page.getByTestId('session-item').first().click();
  await page.waitForFunction(() => window.__first != null, null, { timeout: 180000, polling: 100 });
  return page.evaluate(() => window.__first);
}

/** Scrolls the timeline up from the end, 40 px a frame, and returns the frame times. */
async function scrollFrames(page, frames = 240) {
  return page.evaluate(async (n) => {
    const el = document.querySelector('[data-testid="timeline"]');
    const times = [];
    let last = performance.now();
    for (let i = 0; i < n; i++) {
      el.scrollTop = Math.max(0, el.scrollTop - 40);
      await new Promise((r) => requestAnimationFrame(() => r()));
      const now = performance.now();
      times.push(now - last);
      last = now;
    }
    return times;
  }, frames);
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const median = (xs) => pct(xs, 50);

async function measure(chrome, display, fake, long) {
  const app = await startDevApp({ display, db: long.db, ollama: fake.url, name: `bench-app-${long.events}` });
  const out = { first: [], p50: [], p95: [], heap: [], nodes: [], pss: [] };
  try {
    for (let i = 0; i < samples; i++) {
      const { page } = await newPage(chrome);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Performance.enable');
      await page.goto(app.url);
      await waitForOllama(page);
      console.error(`   ${long.events} events, sample ${i + 1}`);
      out.first.push(await firstCard(page));
      await page.getByTestId('card-end').waitFor({ timeout: 120000 });
      const frames = await scrollFrames(page);
      out.p50.push(median(frames));
      out.p95.push(pct(frames, 95));
      await cdp.send('HeapProfiler.collectGarbage');
      const { metrics } = await cdp.send('Performance.getMetrics');
      const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]));
      out.heap.push(m.JSHeapUsedSize / 1048576);
      out.nodes.push(m.Nodes);
      out.pss.push(rendererPss(process.pid) / 1024);
      await page.close();
    }
  } finally {
    await app.stop();
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, median(v)]));
}

/** The memory (kB RSS) of the WebKit web processes that descend from pid. */
function webkitRss(pid) {
  let kb = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (!readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('WebKitWebProcess')) continue;
      const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${d}/status`, 'utf8'))?.[1]);
      if (!isDescendant(ppid, pid)) continue;
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${d}/status`, 'utf8'))?.[1] ?? 0);
    } catch { /* gone */ }
  }
  return kb;
}

/**
 * Opens the session in the real window: clicks it in the sidebar and
 * takes screenshots until the screen differs from the "Loading the
 * timeline" one by more than a card's worth of pixels, twice in a row.
 */
async function realWindow(display, fake, long) {
  const exe = goBuild(join(bin, 'loupe'), windowBuild);
  const dir = tempDir('loupe-bench-window-');
  const app = start(`bench-window-${long.events}`, exe, [],
    { env: { ...process.env, DISPLAY: display, LOUPE_DB: long.db, OLLAMA_HOST: fake.url } });
  try {
    const id = await appWindow(display, app.pid);
    const shot = (name) => {
      const f = join(dir, `${name}.png`);
      x11(display, 'import', ['-window', id, f]);
      return f;
    };
    const differ = (a, b) => {
      try {
        return Number(x11(display, 'compare', ['-metric', 'AE', a, b, 'null:']).split(' ')[0]);
      } catch (e) { return Number(String(e.stderr ?? '').split(' ')[0]) || 0; }
    };
    await new Promise((r) => setTimeout(r, 4000)); // the page loads and asks for the status
    const home = shot('home');
    const t0 = Date.now();
    x11(display, 'xdotool', ['mousemove', '--window', id, '140', '75', 'click', '1']);
    // First the view changes to the session, saying it loads.
    const loading = await until('the session view', () => { const f = shot('loading'); return differ(home, f) > 20000 ? f : ''; }, 60000);
    let prev = loading;
    await until('the cards painted', () => {
      const f = shot(`t${Date.now()}`);
      const done = differ(loading, f) > 60000 && differ(prev, f) < 2000;
      prev = f;
      return done;
    }, 120000);
    const ms = Date.now() - t0;
    await new Promise((r) => setTimeout(r, 3000));
    return { ms, rss: webkitRss(app.pid) / 1024 };
  } finally {
    await app.stop();
  }
}

const display = await startDisplay();
const fake = await startFakeOllama({ models: [{ name: 'tiny', context_length: 8192 }], replies: [] });
// Chromium is a child of this process: its renderers are found in /proc by that.
const chrome = await browser();
try {
  const small = await longSessionDb({ rounds: 10, calls: 3, envEvery: 4, prefix: 'loupe-bench-small-' });
  const large = await longSessionDb({ rounds: 910, calls: 3, envEvery: 50, prefix: 'loupe-bench-large-' });
  const rev = (() => {
    try { return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim(); } catch { return '?'; }
  })();
  console.error(`==> ${samples} samples each, Chromium ${chrome.version()}, ${rev}`);
  const a = await measure(chrome, display.display, fake, small);
  const b = await measure(chrome, display.display, fake, large);
  const row = (name, f, k, digits = 0) =>
    `| ${name} | ${f(a[k]).toFixed(digits)} | ${f(b[k]).toFixed(digits)} | ${(b[k] / a[k]).toFixed(2)}× |`;
  const id = (x) => x;
  console.log(`| (median of ${samples}) | ${small.events} events | ${large.events} events | large / small |`);
  console.log('|---|---:|---:|---:|');
  console.log(row('first card painted, ms', id, 'first'));
  console.log(row('frame time scrolling, p50 ms', id, 'p50', 1));
  console.log(row('frame time scrolling, p95 ms', id, 'p95', 1));
  console.log(row('JS heap after GC, MB', id, 'heap', 1));
  console.log(row('DOM nodes', id, 'nodes'));
  console.log(row('renderer memory (PSS), MB', id, 'pss'));
  const wa = await realWindow(display.display, fake, small);
  const wb = await realWindow(display.display, fake, large);
  console.log(`| real window: the session shown, ms (one try, screenshots every ~0.2 s) | ${wa.ms} | ${wb.ms} | ${(wb.ms / wa.ms).toFixed(2)}× |`);
  console.log(`| real window: WebKit web process (RSS), MB | ${wa.rss.toFixed(0)} | ${wb.rss.toFixed(0)} | ${(wb.rss / wa.rss).toFixed(2)}× |`);
} finally {
  await chrome.close();
  await fake.stop();
  await display.stop();
}
