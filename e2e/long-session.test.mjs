// A session of 10,000 events in one run, recorded by the real loop, opened
// in Chromium: the timeline draws only the cards near the viewport, and
// scrolling, going to a round, j / k across cards that are not drawn,
// narrowing to denied calls and searching all work on the whole log.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { withApp, startDevApp, newPage, waitForOllama, longSessionDb, artifacts, until } from './lib.mjs';

const env = withApp({ models: [{ name: 'tiny', context_length: 8192 }], replies: [] });

// 910 rounds of three parallel calls: 2 + 3 × 3 events a round. Every
// 50th round's last call writes .env, which Loupe refuses: 18 denials.
const ROUNDS = 910;
let long;
before(async () => {
  long = await longSessionDb({ rounds: ROUNDS, calls: 3, envEvery: 50 });
});

/** The card that has the keyboard focus: its id, kind and round. */
const focused = (page) =>
  page.evaluate(() => {
    const card = document.activeElement?.closest('[data-card-id]');
    return card ? { id: card.getAttribute('data-card-id'), kind: card.getAttribute('data-testid') } : null;
  });
const drawnCards = (page) => page.locator('[data-card-id]').count();

test('a 10,000-event run: scroll, go to a round, j / k, filter denied calls, search', { timeout: 300000 }, async () => {
  assert.ok(long.events >= 10000, `the session holds ${long.events} events`);
  const app = await startDevApp({ display: env.display.display, db: long.db, ollama: env.ollama.url });
  const { page, errors } = await newPage(env.chrome);
  try {
    await page.goto(app.url);
    await waitForOllama(page);
    const opened = Date.now();
    await page.getByTestId('session-item').first().click();
    // It opens at the end, where the run's answer is.
    await page.getByTestId('card-end').waitFor({ timeout: 120000 });
    console.log(`# opened ${long.events} events: the last card painted after ${Date.now() - opened} ms`);
    const rows = Number(await page.getByTestId('timeline-rows').getAttribute('data-rows'));
    // The run's head, its message, each round's head, request and response,
    // three calls with their observations but in the last round, its end.
    assert.equal(rows, 1 + 1 + ROUNDS * 3 + (ROUNDS - 1) * 6 + 1, 'the list holds every card and head');
    const drawn = await drawnCards(page);
    assert.ok(drawn > 0 && drawn < 120, `only the cards near the viewport are drawn (${drawn})`);

    // The overview lane: 910 rounds drawn as a bounded number of rows
    // (buckets of rounds), one marked as where the run is; a click on a
    // row jumps to its card, far off screen or not.
    const lane = page.getByTestId('overview-lane');
    await lane.waitFor({ timeout: 10000 });
    const laneRows = lane.getByTestId('overview-row');
    const nRows = await laneRows.count();
    assert.ok(nRows > 5 && nRows < 100, `the lane aggregates 910 rounds into ${nRows} rows`);
    assert.equal(await lane.locator('[data-testid="overview-row"][data-current="true"]').count(), 1, 'the current position is marked');
    assert.ok((await page.getByTestId('context-bar').count()) > 0, 'the context chart has bars');
    const key = await laneRows.first().getAttribute('data-key');
    await laneRows.first().click();
    await until('the first bucket\'s card focused', async () => (await focused(page))?.id === key, 10000);
    await page.keyboard.press('o');
    await until('the overview hidden by o', async () => (await page.getByTestId('overview').count()) === 0, 5000);
    await page.keyboard.press('o');
    await page.getByTestId('overview').waitFor({ timeout: 5000 });

    // Scroll to the top: the user's message is drawn, and still only a few cards.
    const timeline = page.getByTestId('timeline');
    await timeline.evaluate((el) => { el.scrollTop = 0; });
    await page.getByTestId('card-user').waitFor({ timeout: 10000 });
    assert.match(await page.getByTestId('card-user').innerText(), new RegExp(`List the folder ${ROUNDS} times`));
    assert.ok((await drawnCards(page)) < 120, 'scrolled to the top, still only a window of cards');
    // A wheel scroll draws the next cards, in order.
    await timeline.hover();
    for (let i = 0; i < 10; i++) await page.mouse.wheel(0, 600);
    await until('the rounds after the first drawn, the top let go', async () =>
      (await page.getByTestId('card-user').count()) === 0 &&
      Math.min(...(await page.getByTestId('round').evaluateAll((rs) => rs.map((r) => Number(r.dataset.round))))) >= 3, 10000);

    // g, a round number, Enter: round 455's request has the keyboard.
    await page.keyboard.press('g');
    await page.keyboard.type('455');
    await page.keyboard.press('Enter');
    await until('round 455 focused', async () => (await focused(page))?.kind === 'card-request', 10000);
    const at455 = await focused(page);
    assert.equal(await page.locator('[data-testid="round"][data-round="455"]').count(), 1, 'round 455 is drawn');
    assert.equal(await page.locator('[data-testid="round"][data-round="3"]').count(), 0, 'the first rounds are not drawn any more');

    // Its Raw view, opened here, is still open when the card is drawn again.
    const rawOf = () => page.locator(`[data-card-id="${at455.id}"] [data-testid="raw-toggle"]`);
    await rawOf().click();
    assert.equal(await rawOf().getAttribute('aria-expanded'), 'true');

    // Scroll far away, so that the focused card is no longer drawn: j goes on from it.
    await timeline.evaluate((el) => { el.scrollTop = 0; });
    await until('round 455 gone from the DOM', async () =>
      (await page.locator(`[data-card-id="${at455.id}"]`).count()) === 0, 10000);
    await page.keyboard.press('j');
    await until('the card after round 455 request focused', async () => (await focused(page))?.kind === 'card-response', 10000);
    const resp = await focused(page);
    const head = await page.locator(`[data-card-id="${resp.id}"]`).evaluate((card) => {
      // The round head drawn last above this card.
      const rounds = [...document.querySelectorAll('[data-testid="round"]')].filter((r) =>
        r.getBoundingClientRect().top <= card.getBoundingClientRect().top);
      return rounds.at(-1)?.getAttribute('data-round');
    });
    assert.equal(head, '455', 'j went to the response of round 455');
    await page.keyboard.press('k');
    await until('k back on the request', async () => (await focused(page))?.id === at455.id, 10000);
    assert.equal(await rawOf().getAttribute('aria-expanded'), 'true', 'Raw stayed open while the card was not drawn');

    // Only the denied calls: 18, each a call Loupe refused.
    assert.equal(await page.getByTestId('filter-denied').locator('.n').innerText(), '18');
    await page.getByTestId('filter-denied').click();
    await until('the timeline narrowed', async () =>
      Number(await page.getByTestId('timeline-rows').getAttribute('data-rows')) < 100, 10000);
    // One run head, and each denied call under its round's head.
    assert.equal(Number(await page.getByTestId('timeline-rows').getAttribute('data-rows')), 1 + 18 * 2);
    const kinds = await page.locator('[data-card-id]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-testid')));
    assert.ok(kinds.length > 0 && kinds.every((k) => k === 'card-call'), `only call cards are drawn: ${kinds.join(', ')}`);
    for (const text of await page.getByTestId('card-call').allInnerTexts()) assert.match(text, /write_file/);
    // Going to a round the filter hides shows every card again, and says so.
    await page.keyboard.press('g');
    await page.keyboard.type('3');
    await page.keyboard.press('Enter');
    await until('the toast about the filter', async () =>
      /Showing every card again/.test(await page.getByTestId('toast').allInnerTexts().then((t) => t.join(' '))), 10000);
    await until('every row back', async () =>
      Number(await page.getByTestId('timeline-rows').getAttribute('data-rows')) === rows, 10000);

    // Search: Ctrl+F, a word of the refused writes, Enter goes from match to match.
    await page.keyboard.press('Control+f');
    await page.keyboard.type('TOKEN=1');
    await until('the matches counted', async () => /of 36/.test(await page.getByTestId('search-count').innerText()), 10000);
    await page.keyboard.press('Enter');
    await until('the first match drawn', async () =>
      (await page.getByTestId('search-count').innerText()).startsWith('1 of'), 10000);
    await until('the match drawn and marked', () =>
      page.evaluate(() => document.querySelector('.match [data-card-id]')?.getAttribute('data-card-id')), 10000);
    await page.keyboard.press('Enter');
    await until('the second match', async () => (await page.getByTestId('search-count').innerText()).startsWith('2 of'), 10000);

    await page.screenshot({ path: join(artifacts, 'long-session.png') });
    assert.deepEqual(errors, []);
  } finally {
    await app.stop();
  }
});
