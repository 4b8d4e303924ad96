// Learning mode never contradicts itself, in a real browser engine on the
// real Go bindings: the scripted demo is stepped to its end with s, the
// first question denied (d) and the others approved (a). At every pause
// and every question, the header, the sidebar, the composer and the loop
// diagram say the same thing, and nothing says the agent is working.
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

test('the demo stepped to its end with a denial: header, sidebar, composer and diagram agree at each pause', { timeout: 400000 }, async () => {
  const { display, chrome } = env;
  const noOllama = `http://127.0.0.1:${await freePort()}`;
  const db = tempDb('loupe-e2e-agree-db-');
  const app = await startDevApp({ display: display.display, db, ollama: noOllama, name: 'app-agree' });
  const { page, errors } = await newPage(chrome);
  const key = (k) => page.keyboard.press(k);
  const tid = (id) => page.getByTestId(id);
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
  let workspace = '';

  /** What each part of the window says of the run, read as a person reads it. */
  const parts = () => page.evaluate(() => {
    const text = (el) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
    const head = document.querySelector('[data-testid="session-running-indicator"]');
    const item = document.querySelector('[data-testid="session-item"][aria-current], [data-testid="session-item"] [aria-current="true"]')?.closest('[data-testid="session-item"]')
      ?? document.querySelector('[data-testid="session-item"]');
    const input = document.querySelector('[data-testid="composer-input"]');
    const spinners = [...document.querySelectorAll('[role="status"][aria-label]')].filter((s) => text(s) === '').map((s) => s.getAttribute('aria-label'));
    return {
      header: text(head),
      sidebar: text(item?.querySelector('.state') ?? item),
      composer: input?.getAttribute('placeholder') ?? '',
      caption: text(document.querySelector('[data-testid="loop-caption"]')),
      spinners,
    };
  });

  /** Every part names the same standing; nothing says the agent works. */
  async function agree(state) {
    const p = await parts();
    const where = `${state}: ${JSON.stringify(p)}`;
    if (state.startsWith('pause')) {
      assert.match(p.header, /^Paused/, `the header says paused at ${where}`);
      assert.match(p.sidebar, /Paused/, `the sidebar says paused at ${where}`);
      assert.match(p.caption, /^Paused/, `the diagram says paused at ${where}`);
      assert.match(p.composer, /paused/i, `the composer says paused at ${where}`);
    } else {
      assert.match(p.header, /Waiting for you/, `the header says it waits for you at ${where}`);
      assert.match(p.sidebar, /Needs approval/, `the sidebar says it needs approval at ${where}`);
      assert.match(p.composer, /waits for your answer/i, `the composer says it waits for you at ${where}`);
      assert.doesNotMatch(p.caption, /^Paused/, `the diagram does not say paused at ${where}`);
    }
    for (const s of [p.header, p.sidebar, p.composer]) assert.doesNotMatch(s, /Running|working/, `nothing says the agent works at ${where}`);
    assert.deepEqual(p.spinners.filter((s) => /Running|Checking permission|Validating|Streaming/.test(s)), [], `no spinner at ${where}`);
  }

  try {
    await page.goto(app.url);
    await tid('demo-welcome').waitFor({ timeout: 30000 });
    await until('the offer to have the keyboard', async () => page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'demo-offer'), 10000);
    await key('Enter');
    const editor = tid('pause-editor');
    await until('the first pause', async () => (await editor.count()) === 1 && (await editor.getAttribute('data-point')) === 'before_request', 60000);
    workspace = (await tid('session-workspace').getAttribute('title')) ?? '';
    // The tour is not what this test is about: Esc skips it and stops nothing.
    if ((await tid('tour').count()) > 0) {
      await key('Escape');
      await until('the tour gone', async () => (await tid('tour').count()) === 0, 5000);
    }

    const end = tid('card-end');
    const seen = [];
    let denied = false;
    for (let n = 0; n < 100 && (await end.count()) === 0; n++) {
      const state = await until('a pause, a question or the end', async () => {
        if ((await end.count()) > 0) return 'end';
        if ((await tid('approval-card').count()) > 0) return 'ask';
        if ((await editor.count()) === 1 && (await tid('step-button').isEnabled())) return `pause ${await editor.getAttribute('data-point')}`;
        return null;
      }, 60000);
      if (state === 'end') break;
      // The window settles on what the log says: give the parts a moment to be drawn.
      await until(`the parts to agree at ${state}`, async () => { await agree(state); return true; }, 5000).catch(() => agree(state));
      seen.push(state);
      const [p0, a0] = [pauses(), asks()];
      if (state === 'ask') {
        await until('the question to have the keyboard', async () =>
          page.evaluate(() => document.activeElement?.closest('[data-testid="card-call"]')?.querySelector('[data-testid="approval-card"]') != null), 10000);
        await key(denied ? 'a' : 'd');
        denied = true;
        await until('the answer taken', async () => (await tid('approval-card').count()) === 0, 15000);
        continue;
      }
      await key('s');
      await until(`a step from ${state}`, () => pauses() > p0 || asks() > a0 || ended(), 60000);
    }
    await end.waitFor({ timeout: 60000 });
    assert.ok(denied, `a question was denied (${seen.join(', ')})`);
    assert.ok(seen.includes('pause after_result'), 'it paused after a result');
    // The denied call's badge says it was denied, never that it ran.
    const badges = await tid('call-status').allInnerTexts();
    assert.ok(badges.some((b) => /^Denied/.test(b.trim())), `a badge says denied: ${badges.join(' | ')}`);
    assert.ok(!badges.some((b) => /Ran; paused/.test(b)), `no badge says it ran and waits once the run ended: ${badges.join(' | ')}`);
    // Ended: nothing says paused or running.
    const p = await parts();
    assert.equal(p.header, '', `the header says nothing of a run once it ended: ${JSON.stringify(p)}`);
    assert.doesNotMatch(p.composer, /working|paused|waits/i);
    await page.screenshot({ path: join(artifacts, 'agree-end.png') });
    assert.deepEqual(errors, [], 'no uncaught errors in the page');
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'agree-failure.png'), fullPage: true }).catch(() => {});
    writeFileSync(join(artifacts, 'agree-failure.txt'), `${e?.stack ?? e}\n\n${pushed.map((d) => `${d.seq} ${d.kind} ${d.payload?.point ?? ''} ${d.payload?.state ?? d.payload?.decision ?? ''}`).join('\n')}\n`);
    throw e;
  } finally {
    await page.close();
    await app.stop();
    if (workspace.includes('loupe-demo-')) rmSync(workspace, { recursive: true, force: true });
  }
});
