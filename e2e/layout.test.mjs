// The timeline's layout while rows change height, in a real browser engine
// against the real Go bindings: the demo is stepped to its first question
// (the approval panel grows its call's card), the question is denied (the
// panel goes, the card shrinks), and the timeline is scrolled up and down
// with the wheel in between. At every look no two drawn rows overlap and
// the viewport always shows cards.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startDisplay, browser, startDevApp, newPage, tempDb, freePort, artifacts, until, startFakeOllama, longSessionDb } from './lib.mjs';

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
 * What the page draws now: every drawn row's box (in the scroller's content
 * coordinates) with the cards in it, and how much of the scroller's viewport
 * holds something drawn.
 */
function layout(page) {
  return page.evaluate(() => {
    const sc = document.querySelector('[data-testid="timeline"]');
    const top = sc.getBoundingClientRect().top;
    const rows = [...sc.querySelectorAll('.vrow')].map((el) => {
      const r = el.getBoundingClientRect();
      const cards = [...el.querySelectorAll('[data-card-id]')].map((c) => c.getAttribute('data-card-id'));
      return { index: Number(el.getAttribute('data-index')), top: r.top - top + sc.scrollTop, bottom: r.bottom - top + sc.scrollTop, cards, size: el.getAttribute('data-size') };
    });
    const view = { top: sc.scrollTop, bottom: sc.scrollTop + sc.clientHeight };
    const inView = rows.filter((r) => r.bottom > view.top + 1 && r.top < view.bottom - 1 && r.bottom - r.top > 0);
    // Where the list starts and ends: above and below it the scroller holds other content.
    const list = sc.querySelector('[data-testid="timeline-rows"]').getBoundingClientRect();
    return { rows, view, inView: inView.length, listTop: list.top - top + sc.scrollTop, listBottom: list.bottom - top + sc.scrollTop };
  });
}

/** What is wrong with a layout: two rows overlapping, out of order, or none in view where the list is; '' if nothing. */
function fault(l) {
  const rows = [...l.rows].sort((a, b) => a.top - b.top);
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1], rows[i]];
    if (b.top < a.bottom - 1) {
      return `row ${b.index} (${b.cards.join(',')}) starts at ${b.top.toFixed(0)} px, inside row ${a.index} (${a.cards.join(',')}, ${(a.bottom - a.top).toFixed(0)} px high, sized ${a.size} px) which ends at ${a.bottom.toFixed(0)} px`;
    }
    if (b.index < a.index) return `row ${b.index} is drawn above row ${a.index}`;
  }
  const listInView = l.listBottom > l.view.top && l.listTop < l.view.bottom;
  if (listInView && l.inView === 0) {
    return `the viewport ${l.view.top.toFixed(0)}–${l.view.bottom.toFixed(0)} px shows no card (rows drawn: ${rows.map((r) => `${r.index}@${r.top.toFixed(0)}`).join(' ')})`;
  }
  return '';
}

/** Two animation frames: what a user would see painted. */
const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

/**
 * Fails when two drawn rows overlap or the viewport shows no row where the
 * list is, on screen: a look between a change and the frame that lays it
 * out can see a row grown and the next not yet moved, so a fault counts
 * when it is still there two frames later.
 */
async function assertLaidOut(page, when) {
  const f = fault(await layout(page));
  if (!f) return;
  await frames(page);
  const again = fault(await layout(page));
  assert.equal(again, '', `${when}: ${again} (first seen as: ${f})`);
}

/** Turns the wheel `notches` times over the timeline (negative: up), looking at the layout every 50 ms for `ms` after. */
async function wheel(page, notches, when, ms = 3000) {
  const box = await page.getByTestId('timeline').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let n = 0; n < Math.abs(notches); n++) {
    await page.mouse.wheel(0, Math.sign(notches) * 100);
    await assertLaidOut(page, `${when}, notch ${n + 1}`);
  }
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await assertLaidOut(page, `${when}, ${ms - (end - Date.now())} ms after the wheel`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('rows that grow or shrink after they are drawn never overlap, and scrolling never shows an empty timeline', { timeout: 900000 }, async () => {
  const { display, chrome } = env;
  const noOllama = `http://127.0.0.1:${await freePort()}`;
  const db = tempDb('loupe-e2e-layout-db-');
  const app = await startDevApp({ display: display.display, db, ollama: noOllama, name: 'app-layout' });
  // The window's size the demo was first tried in: the timeline holds a few cards.
  const { page, errors } = await newPage(chrome);
  await page.setViewportSize({ width: 1280, height: 800 });
  const tid = (id) => page.getByTestId(id);
  let workspace = '';
  try {
    await page.goto(app.url);
    await tid('demo-offer').waitFor({ timeout: 30000 });
    await tid('demo-offer').click();
    const editor = tid('pause-editor');
    await until('the first pause', async () => (await editor.count()) === 1, 60000);
    workspace = (await tid('session-workspace').getAttribute('title')) ?? '';
    // Where the header's controls are before any request has a meter.
    const headBox = () => page.evaluate(() => [...document.querySelectorAll('header.head button, header.head select, header.head summary')]
      .map((el) => { const r = el.getBoundingClientRect(); return `${el.textContent.trim().slice(0, 20)}@${Math.round(r.left)},${Math.round(r.top)}`; }));
    const head0 = await headBox();
    const meter0 = await tid('session-meter').count();
    if (await tid('tour').count()) await page.keyboard.press('Escape');
    await until('the tour gone', async () => (await tid('tour').count()) === 0, 5000);
    // Where the header's controls are at each phase of the run, noted in the
    // page the moment the run indicator changes (working lasts a moment).
    await page.evaluate(() => {
      const seen = (window.__heads = {});
      const head = document.querySelector('header.head');
      const note = () => {
        const indicator = head.querySelector('[data-testid="session-running-indicator"]');
        const phase = indicator?.getAttribute('data-phase') ?? 'none';
        if (seen[phase]) return;
        // The indicator's place in the row of controls (the controls after it may have wrapped to the next line).
        const place = indicator?.closest('.controls > *')?.getBoundingClientRect();
        seen[phase] = [`the indicator's place@${Math.round(place?.left ?? 0)}+${Math.round(place?.width ?? 0)}`, ...[...head.querySelectorAll('button, select, summary')]
          .filter((el) => !el.closest('[data-testid="session-meter-slot"]'))
          .map((el) => { const r = el.getBoundingClientRect(); return `${el.textContent.trim().slice(0, 20)}@${Math.round(r.left)},${Math.round(r.top)}`; })];
      };
      new MutationObserver(note).observe(head, { subtree: true, childList: true, attributes: true, characterData: true });
      note();
    });

    // Step to the first question, looking at every pause.
    let n = 0;
    for (; n < 40 && (await tid('approval-card').count()) === 0; n++) {
      await until('a pause or a question', async () =>
        (await tid('approval-card').count()) > 0 || ((await editor.count()) === 1 && (await tid('step-button').isEnabled())), 60000);
      if ((await tid('approval-card').count()) > 0) break;
      await assertLaidOut(page, `pause ${n}`);
      await page.keyboard.press('s');
      await new Promise((r) => setTimeout(r, 300));
    }
    const ask = tid('approval-card');
    await ask.waitFor({ timeout: 60000 });
    // The meter came with the first request: the header's controls did not move for it.
    assert.equal(meter0, 0, 'no meter before the first request');
    assert.ok((await tid('session-meter').count()) > 0, 'the meter is shown once a request was sent');
    assert.deepEqual((await headBox()).filter((b) => !/^Context/.test(b)), head0.filter((b) => !/^Context/.test(b)), 'the header\'s controls stay where they were when the meter appears');
    // Running, Paused and Waiting for you take the same room: nothing after the indicator moves between them.
    const heads = await page.evaluate(() => window.__heads);
    assert.deepEqual(Object.keys(heads).sort(), ['asking', 'paused', 'working'], 'the header was seen running, paused and waiting for an answer');
    assert.deepEqual(heads.working, heads.paused, 'the header\'s controls stay where they are between Running and Paused');
    assert.deepEqual(heads.asking, heads.paused, 'the header\'s controls stay where they are between Paused and Waiting for you');
    // The panel is drawn and takes its place: wait for layout to settle a little, then look.
    for (let i = 0; i < 10; i++) {
      await assertLaidOut(page, `at the first question, look ${i}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // The panel's first line is not under another row: what is drawn at its top-left is the panel.
    const hit = await page.evaluate(() => {
      const a = document.querySelector('[data-testid="approval-card"]');
      a.scrollIntoView({ block: 'center' });
      const r = a.getBoundingClientRect();
      const el = document.elementFromPoint(r.left + 12, r.top + 8);
      return a.contains(el);
    });
    assert.ok(hit, 'the approval panel\'s first line is not covered by another card');
    await page.screenshot({ path: join(artifacts, 'layout-question.png') });

    await wheel(page, -2, 'scrolling up at the question');
    await wheel(page, 4, 'scrolling down at the question');
    await wheel(page, -6, 'scrolling far up at the question');

    // Deny: the panel goes, the call's card shrinks, the rows below move up.
    await page.evaluate(() => document.querySelector('[data-testid="approval-card"]').scrollIntoView({ block: 'center' }));
    await tid('deny-button').click();
    await until('the answer taken', async () => (await tid('approval-card').count()) === 0, 15000);
    for (let i = 0; i < 10; i++) {
      await assertLaidOut(page, `after the denial, look ${i}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await page.screenshot({ path: join(artifacts, 'layout-denied.png') });
    await wheel(page, -2, 'scrolling up after the denial');
    await wheel(page, 3, 'scrolling down after the denial');

    // The run goes on to its next pause: every row still in its place.
    await until('the next pause', async () => (await editor.count()) === 1 && (await tid('step-button').isEnabled()), 60000);
    await assertLaidOut(page, 'at the pause after the denial');
    await wheel(page, -3, 'scrolling up at the pause after the denial');

    // Go to round: the round's request card ends up in view (not just off
    // screen after the rows on the way were measured), from either end.
    await goToRounds(page, [[1, 'the end'], [3, 'the top'], [2, 'the end']]);
    assert.deepEqual(errors, [], 'no uncaught errors in the page');
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'layout-failure.png') }).catch(() => {});
    writeFileSync(join(artifacts, 'layout-failure.txt'), `${e?.stack ?? e}\n`);
    throw e;
  } finally {
    await page.close();
    await app.stop();
    if (workspace.includes('loupe-demo-')) rmSync(workspace, { recursive: true, force: true });
  }
});

/** Goes to each [round, from] with the find bar's Go to round, scrolled first to `from` ('the top' or 'the end'); fails unless the round's card is in view and stays there. */
async function goToRounds(page, list) {
  const tid = (id) => page.getByTestId(id);
    for (const [round, from] of list) {
      await page.evaluate((top) => { const sc = document.querySelector('[data-testid="timeline"]'); sc.scrollTop = top ? 0 : sc.scrollHeight; }, from === 'the top');
      await new Promise((r) => setTimeout(r, 300));
      await tid('round-input').fill(String(round));
      await tid('round-go').click();
      const where = await until(`round ${round}'s request card in view`, async () => {
        const w = await page.evaluate(() => {
          const el = document.activeElement?.closest('[data-card-id]');
          const sc = document.querySelector('[data-testid="timeline"]').getBoundingClientRect();
          if (!el) return null;
          const r = el.getBoundingClientRect();
          return { id: el.getAttribute('data-card-id'), top: r.top - sc.top, bottom: r.bottom - sc.top, height: sc.height };
        });
        // Whole, or a card taller than the view from its top (16 px below it: the cards' scroll-margin).
        return w && w.top >= -1 && (w.bottom <= w.height + 1 || w.top <= 17) ? w : null;
      }, 5000).catch(async (e) => { throw new Error(`Go to round ${round} from ${from}: ${e.message}; the focused card is at ${JSON.stringify(await page.evaluate(() => document.activeElement?.getBoundingClientRect()))}`); });
      // Still there once the scrolling is over.
      await new Promise((r) => setTimeout(r, 1500));
      const still = await page.evaluate(() => {
        const el = document.activeElement?.closest('[data-card-id]');
        const sc = document.querySelector('[data-testid="timeline"]').getBoundingClientRect();
        const r = el.getBoundingClientRect();
        return { top: r.top - sc.top, bottom: r.bottom - sc.top, height: sc.height };
      });
      assert.ok(still.top >= -1 && (still.bottom <= still.height + 1 || still.top <= 17), `Go to round ${round} from ${from}: ${where.id} left at ${JSON.stringify(still)}`);
      await assertLaidOut(page, `after Go to round ${round}`);
    }
}

test('Go to round in a long session lands the round\'s card in view, wherever it was', { timeout: 900000 }, async () => {
  const { display, chrome } = env;
  // Most rows are not drawn yet: the way there is measured as it is drawn.
  const fake = await startFakeOllama({ models: [{ name: 'tiny', context_length: 8192 }], replies: [] });
  const long = await longSessionDb({ rounds: 150, calls: 2, envEvery: 7, prefix: 'loupe-e2e-layout-long-' });
  const app = await startDevApp({ display: display.display, db: long.db, ollama: fake.url, name: 'app-layout-long' });
  const { page, errors } = await newPage(chrome);
  await page.setViewportSize({ width: 1280, height: 800 });
  try {
    await page.goto(app.url);
    await page.getByTestId('session-item').first().click();
    await page.locator('[data-card-id]').first().waitFor({ timeout: 60000 });
    await goToRounds(page, [[75, 'the end'], [10, 'the end'], [140, 'the top'], [60, 'the top'], [120, 'the end']]);
    await wheel(page, -8, 'scrolling up in the long session', 1000);
    assert.deepEqual(errors, [], 'no uncaught errors in the page');
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'layout-long-failure.png') }).catch(() => {});
    throw e;
  } finally {
    await page.close();
    await app.stop();
    await fake.stop();
  }
});
