// The first run of a newcomer, in a real browser engine against the real Go
// bindings, with no Ollama anywhere (the app is pointed at a closed port) and
// an empty database: the home page offers the scripted demo, the demo starts
// in Step mode, the guided tour is walked with the keyboard, and the run is
// stepped through to its end with s and a only. The demo's project is fixed
// on the disk. Prints how long it took from opening the window to the end.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
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

const DEMO_LABEL = 'Demo (scripted, no AI)';

test('first run with no Ollama: the demo is offered, toured and stepped through by keyboard to its end', { timeout: 300000 }, async () => {
  const { display, chrome } = env;
  // A port nothing listens on: Ollama is not running.
  const noOllama = `http://127.0.0.1:${await freePort()}`;
  const db = tempDb('loupe-e2e-demo-db-');
  const app = await startDevApp({ display: display.display, db, ollama: noOllama, name: 'app-demo' });
  const { page, errors } = await newPage(chrome);
  await page.emulateMedia({ colorScheme: 'dark' });
  const key = (k) => page.keyboard.press(k);
  const tid = (id) => page.getByTestId(id);
  const activeTestId = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName);
  let workspace = '';
  // What the app pushed to the page, in arrival order: the timeline is drawn
  // only near the viewport, so progress is read from the events, not from
  // the cards in the page.
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
    const opened = Date.now();
    await page.goto(app.url);

    // ---- The offer: first on the page, since Ollama is away and there is no session. ----
    const welcome = tid('demo-welcome');
    await welcome.waitFor({ timeout: 30000 });
    assert.match(await welcome.innerText(), /Try the demo — no Ollama needed/);
    await until('Ollama shown as not reachable', async () => (await tid('ollama-status').getAttribute('data-reachable')) === 'false', 30000);

    // ---- From here on: the keyboard only. ----
    // The offer has the keyboard: Enter starts the demo.
    await until('the offer to have the keyboard', async () => (await activeTestId()) === 'demo-offer', 10000);
    await key('Enter');

    // The demo's session: paused before its first request, in Step mode.
    const editor = tid('pause-editor');
    await until('the first pause', async () => (await editor.count()) === 1 && (await editor.getAttribute('data-point')) === 'before_request', 60000);
    assert.ok(await tid('step-toggle').isChecked(), 'the demo starts in Step mode');
    assert.equal(await tid('session-model-name').innerText(), DEMO_LABEL, 'the sidebar names the demo as scripted');
    workspace = (await tid('session-workspace').getAttribute('title')) ?? '';
    assert.match(workspace, /loupe-demo-/, 'the demo works in a fresh copy of its project');

    // ---- The tour: five stops, Enter and → go on; each points at its part of the window. ----
    const tour = tid('tour');
    await tour.waitFor({ timeout: 10000 });
    const stops = [];
    for (const [stop, target] of [['loop', 'loop-diagram'], ['step', 'step-controls'], ['saw', 'model-saw-button'], ['raw', 'raw-toggle'], ['playback', 'playback-toggle']]) {
      await until(`the tour at ${stop}`, async () => (await tour.getAttribute('data-stop')) === stop, 5000);
      // The ring is drawn around the element the stop names (once it has
      // moved there: it glides from the last stop).
      await until(`the ring of ${stop} around ${target}`, async () => {
        const [ring, el] = await Promise.all([tid('tour-ring').boundingBox(), tid(target).last().boundingBox()]);
        return ring && el && ring.x <= el.x && ring.y <= el.y && ring.x + ring.width >= el.x + el.width && ring.y + ring.height >= el.y + el.height;
      }, 5000);
      stops.push(stop);
      if (stop === 'loop') await page.screenshot({ path: join(artifacts, 'demo-tour-dark.png') });
      if (stop === 'step') {
        await page.emulateMedia({ colorScheme: 'light' });
        await page.screenshot({ path: join(artifacts, 'demo-tour-light.png') });
        await page.emulateMedia({ colorScheme: 'dark' });
      }
      await key(stop === 'step' ? 'ArrowRight' : 'Enter');
    }
    await until('the tour gone', async () => (await tour.count()) === 0, 5000);
    assert.deepEqual(stops, ['loop', 'step', 'saw', 'raw', 'playback']);
    assert.equal(await editor.getAttribute('data-point'), 'before_request', 'the tour moved nothing');

    // ---- Step through to the end: s at each pause, a for each question. ----
    const end = tid('card-end');
    const seen = [];
    let approved = 0;
    for (let n = 0; n < 80 && (await end.count()) === 0; n++) {
      const state = await until('a pause, a question or the end', async () => {
        if ((await end.count()) > 0) return 'end';
        if ((await tid('approval-card').count()) > 0) return 'ask';
        if ((await editor.count()) === 1 && (await tid('step-button').isEnabled())) return `pause ${await editor.getAttribute('data-point')}`;
        return null;
      }, 60000);
      if (state === 'end') break;
      const [p0, a0] = [pauses(), asks()];
      if (state === 'ask') {
        const ask = tid('approval-card');
        const what = await ask.innerText();
        await until('the question to have the keyboard', async () =>
          page.evaluate(() => document.activeElement?.closest('[data-testid="card-call"]')?.querySelector('[data-testid="approval-card"]') != null), 10000);
        seen.push(`ask ${/sh test\.sh/.test(what) ? 'sh test.sh' : /slug\.sh/.test(what) ? 'edit slug.sh' : what.slice(0, 40)}`);
        await key('a');
        approved++;
        await until('the answer taken', async () => (await tid('approval-card').count()) === 0, 15000);
        continue;
      }
      seen.push(state);
      assert.ok(!(await page.evaluate(() => document.activeElement instanceof HTMLTextAreaElement || document.activeElement instanceof HTMLInputElement)),
        `the keyboard is not in a text field at ${state} (${await activeTestId()})`);
      await key('s');
      // The step is taken: a new pause, a question or the end comes.
      await until(`a step from ${state}`, () => pauses() > p0 || asks() > a0 || ended(), 60000);
    }
    await end.waitFor({ timeout: 60000 });
    const seconds = (Date.now() - opened) / 1000;
    console.log(`first-run demo: ${seconds.toFixed(1)} s from open to end`);
    await page.screenshot({ path: join(artifacts, 'demo-end.png') });

    assert.equal(await end.getByTestId('stop-reason').getAttribute('data-reason'), 'answered');
    assert.equal(approved, 3, `three questions: the test run, the edit, the second test run (${seen.join(', ')})`);
    assert.deepEqual(seen.filter((s) => s.startsWith('ask')), ['ask sh test.sh', 'ask edit slug.sh', 'ask sh test.sh']);
    assert.ok(seen.filter((s) => s === 'pause before_request').length >= 6, `paused before each of the six requests: ${seen.join(', ')}`);
    // What the demo met on the way: the failing run, then the passing one.
    const observations = await tid('card-observation').allInnerTexts();
    assert.ok(observations.some((o) => /2 of 4 cases failed/.test(o)), 'the first test run failed');
    assert.ok(observations.some((o) => /all 4 cases passed/.test(o)), 'the second test run passed');
    assert.match((await tid('card-response').last().innerText()), /The tests pass/);
    assert.equal(await tid('request-model').first().innerText(), DEMO_LABEL, 'request cards name the demo as scripted');
    // The fix is on the disk, in the demo's copy of its project.
    assert.match(readFileSync(join(workspace, 'slug.sh'), 'utf8'), /-e 's\/-\$\/\/'/);
    assert.ok(seconds < 300, `the first run took ${seconds.toFixed(1)} s, more than five minutes`);
    assert.deepEqual(errors, [], 'no uncaught errors in the page');
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'demo-failure.png'), fullPage: true }).catch(() => {});
    writeFileSync(join(artifacts, 'demo-failure.txt'), `${e?.stack ?? e}\n\n${pushed.map((d) => `${d.seq} ${d.kind} ${d.payload?.point ?? ''} ${d.payload?.state ?? d.payload?.decision ?? ''}`).join('\n')}\n`);
    throw e;
  } finally {
    await page.close();
    await app.stop();
    if (workspace.includes('loupe-demo-')) rmSync(workspace, { recursive: true, force: true });
  }
});
