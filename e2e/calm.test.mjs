// Nothing moves while nothing changes, in a real browser engine against the
// real Go bindings: the demo is stepped to its end, and at its first pause
// (with the guided tour open, then closed), at its first question, at a
// pause after a step and at the end the page is left alone for a few
// seconds, counting what runs: no CSS animation or transition is running,
// no animation frame is asked for, and no timer fires more often than once a
// second (the status and network polls fire every few seconds). With the
// system asking for reduced motion, nothing animates at all, even while the
// tour's ring moves from stop to stop.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startDisplay, browser, startDevApp, newPage, tempDb, freePort, artifacts, until } from './lib.mjs';

const env = { display: null, chrome: null };
before(async () => {
  env.display = await startDisplay();
  env.chrome = await browser();
});
after(async () => {
  await env.chrome?.close();
  await env.display?.stop();
});

/**
 * Counts, from the page's first script on, every animation frame callback
 * and every timer callback that runs, by the delay it was set with.
 */
function countWork() {
  const c = { raf: 0, timers: {} };
  window.__work = c;
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (cb) => raf((t) => { c.raf++; cb(t); });
  const wrap = (orig, tag) => (cb, ms = 0, ...args) => orig(() => {
    const k = `${tag}${Math.round(Number(ms) || 0)}`;
    c.timers[k] = (c.timers[k] ?? 0) + 1;
    if (typeof cb === 'function') cb(...args);
  }, ms);
  window.setTimeout = wrap(window.setTimeout.bind(window), 'timeout ');
  window.setInterval = wrap(window.setInterval.bind(window), 'interval ');
}

/**
 * What runs in the page over `ms` of nobody touching it, counted from
 * `settle` ms after the change that led there (a new pause scrolls to its
 * card, which takes a few frames).
 */
async function idleWork(page, ms = 3000, settle = 1500) {
  await new Promise((r) => setTimeout(r, settle));
  await page.evaluate(() => { window.__work.raf = 0; window.__work.timers = {}; });
  await new Promise((r) => setTimeout(r, ms));
  return page.evaluate(() => ({
    raf: window.__work.raf,
    timers: { ...window.__work.timers },
    animations: document.getAnimations().filter((a) => a.playState === 'running').map((a) => {
      const el = a.effect?.target;
      const where = el?.closest?.('[data-testid]')?.getAttribute('data-testid') ?? el?.tagName ?? '?';
      return `${a.constructor.name} ${a.animationName ?? a.transitionProperty ?? ''} on ${el?.className?.baseVal ?? el?.className ?? ''} in ${where}`;
    }),
  }));
}

/**
 * What animates or ticks faster than once a second while idle, as lines
 * saying where: collected over the whole walk, so one run names every
 * fault.
 */
const faults = [];
async function assertCalm(page, when) {
  const w = await idleWork(page);
  for (const a of w.animations) faults.push(`${when}: ${a}`);
  if (w.raf) faults.push(`${when}: ${w.raf} animation frames`);
  const fast = Object.entries(w.timers).filter(([k, n]) => Number(k.split(' ')[1]) < 1000 || n > 3);
  if (fast.length) faults.push(`${when}: timers ${JSON.stringify(Object.fromEntries(fast))}`);
}

test('a paused, questioning or ended demo runs no animation, frame loop or fast timer; reduced motion animates nothing', { timeout: 900000 }, async () => {
  const { display, chrome } = env;
  const noOllama = `http://127.0.0.1:${await freePort()}`;
  const db = tempDb('loupe-e2e-calm-db-');
  const app = await startDevApp({ display: display.display, db, ollama: noOllama, name: 'app-calm' });
  const { page, errors } = await newPage(chrome);
  await page.addInitScript(countWork);
  const tid = (id) => page.getByTestId(id);
  let workspace = '';
  // What the app pushed to the page: a step is taken when a new pause, a question or the end comes.
  const pushed = [];
  page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => {
    const t = String(payload);
    if (!t.startsWith('n')) return;
    try {
      const { name, data: [d] } = JSON.parse(t.slice(1));
      if (name === 'loupe:event') pushed.push(d);
    } catch { /* not an event */ }
  }));
  const pauses = () => pushed.filter((e) => e.kind === 'checkpoint' && e.payload.state === 'paused').length;
  const asks = () => pushed.filter((e) => e.kind === 'permission' && e.payload.decision === 'ask').length;
  const ended = () => pushed.some((e) => e.kind === 'run_end');
  try {
    await page.goto(app.url);
    await tid('demo-offer').waitFor({ timeout: 30000 });
    await assertCalm(page, 'the home page');
    await page.keyboard.press('Enter');
    const editor = tid('pause-editor');
    await until('the first pause', async () => (await editor.count()) === 1 && (await tid('step-button').isEnabled()), 60000);
    workspace = (await tid('session-workspace').getAttribute('title')) ?? '';
    await tid('tour').waitFor({ timeout: 10000 });
    await assertCalm(page, 'the first pause, with the tour');

    // Reduced motion: the ring moves to the next stop without a transition.
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.keyboard.press('Enter');
    const moving = await page.evaluate(() => document.getAnimations().map((a) => `${a.constructor.name} ${a.animationName ?? a.transitionProperty ?? ''}`));
    for (const m of moving) faults.push(`reduced motion, the tour moving on: ${m}`);
    // And no element is styled to animate or glide at all (a very short
    // duration is still an animation: an endless one asks for every frame).
    const styled = await page.evaluate(() => [...document.querySelectorAll('*')].flatMap((el) => {
      const cs = getComputedStyle(el);
      const out = [];
      const name = `${el.tagName.toLowerCase()}.${String(el.className?.baseVal ?? el.className ?? '').split(' ')[0]}`;
      if (cs.animationName !== 'none') out.push(`animation ${cs.animationName} on ${name}`);
      if (cs.transitionProperty !== 'none' && cs.transitionDuration.split(',').some((d) => parseFloat(d) > 0)) out.push(`transition ${cs.transitionProperty} ${cs.transitionDuration} on ${name}`);
      return out;
    }).slice(0, 10));
    for (const m of styled) faults.push(`reduced motion: ${m}`);
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    await page.keyboard.press('Escape');
    await until('the tour gone', async () => (await tid('tour').count()) === 0, 5000);
    await assertCalm(page, 'the first pause');

    // Step on: at the question, and at each pause after it, and at the end.
    let asked = false;
    let pausedAfter = false;
    for (let n = 0; n < 80 && (await tid('card-end').count()) === 0; n++) {
      const state = await until('a pause, a question or the end', async () => {
        if ((await tid('card-end').count()) > 0) return 'end';
        if ((await tid('approval-card').count()) > 0) return 'ask';
        if ((await editor.count()) === 1 && (await tid('step-button').isEnabled())) return 'pause';
        return null;
      }, 60000);
      if (state === 'end') break;
      if (state === 'ask') {
        if (!asked) await assertCalm(page, 'the first question');
        asked = true;
        await page.keyboard.press('a');
        await until('the answer taken', async () => (await tid('approval-card').count()) === 0, 15000);
        continue;
      }
      if (asked && !pausedAfter) {
        await assertCalm(page, 'a pause after the question');
        pausedAfter = true;
      }
      const [p0, a0] = [pauses(), asks()];
      await page.keyboard.press('s');
      await until('a step taken', () => pauses() > p0 || asks() > a0 || ended(), 60000);
    }
    await tid('card-end').waitFor({ timeout: 60000 });
    assert.ok(asked && pausedAfter, 'the demo asked a question and paused after it');
    await assertCalm(page, 'the end of the run');
    assert.deepEqual(faults, [], 'nothing animates or ticks while nothing changes');
    assert.deepEqual(errors, [], 'no uncaught errors in the page');
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'calm-failure.png') }).catch(() => {});
    writeFileSync(join(artifacts, 'calm-failure.txt'), `${e?.stack ?? e}\n`);
    throw e;
  } finally {
    await page.close();
    await app.stop();
    if (workspace.includes('loupe-demo-')) rmSync(workspace, { recursive: true, force: true });
  }
});
