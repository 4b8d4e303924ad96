// The session list against the real Go backend in Chromium: the search box
// finds text deep in a long session's log and Enter opens it at that card
// (far off screen: the timeline draws only the rows near the viewport);
// a session is renamed with F2, and a delete is taken back with Undo, both
// kept by the backend across a reload.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { withApp, startDevApp, newPage, waitForOllama, longSessionDb, artifacts, until } from './lib.mjs';

const env = withApp({ models: [{ name: 'tiny', context_length: 8192 }], replies: [] });

// 200 rounds of one call; round 120's call writes .env (TOKEN=1), which
// Loupe refuses: the only events that hold TOKEN=1, 80 rounds above the end.
const ROUNDS = 200;
let long;
let app;
before(async () => {
  long = await longSessionDb({ rounds: ROUNDS, calls: 1, envEvery: 120, prefix: 'loupe-sessions-' });
});
after(async () => {
  await app?.stop();
});

/** The app on the long session's database, started by the first test that needs it (the display and Ollama are up by then). */
async function theApp() {
  app ??= await startDevApp({ display: env.display.display, db: long.db, ollama: env.ollama.url });
  return app;
}

/** The card that has the keyboard focus, and the round head drawn above it. */
const focused = (page) =>
  page.evaluate(() => {
    const card = document.activeElement?.closest('[data-card-id]');
    if (!card) return null;
    const top = card.getBoundingClientRect().top;
    const heads = [...document.querySelectorAll('[data-testid="round"]')].filter((r) => r.getBoundingClientRect().top <= top);
    const view = document.querySelector('[data-testid="timeline"]').getBoundingClientRect();
    const box = card.getBoundingClientRect();
    return {
      kind: card.getAttribute('data-testid'),
      text: card.textContent,
      round: heads.at(-1)?.getAttribute('data-round') ?? null,
      inView: box.top >= view.top - 1 && box.top < view.bottom,
    };
  });

test('search finds text deep in a log; Enter opens the session at its card', { timeout: 300000 }, async () => {
  const { url } = await theApp();
  const { page, errors } = await newPage(env.chrome);
  await page.goto(url);
  await waitForOllama(page);
  await page.getByTestId('session-item').first().waitFor();
  const row = page.getByTestId('session-item').first();
  assert.match(await row.innerText(), new RegExp(`${ROUNDS} rounds`), 'the row counts its rounds');
  assert.match(await row.innerText(), /Answered/, 'the row says how the last run ended');
  assert.equal(await page.locator('[data-testid="session-group"] h3').first().innerText(), 'TODAY', 'grouped by day');

  // Ctrl+Shift+F from anywhere: the box has the keyboard.
  await page.getByTestId('new-session').focus();
  await page.keyboard.press('Control+Shift+F');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'global-search');

  // What the backend says of one character, and of only quotes.
  await page.keyboard.type('T');
  await until('the one-character message', async () =>
    /type at least 3 characters/.test(await page.getByTestId('search-message').innerText()), 10000);
  await page.keyboard.press('Escape');
  await page.keyboard.type('""');
  await until('the quotes message', async () => /only quotes/.test(await page.getByTestId('search-message').innerText()), 10000);
  await page.keyboard.press('Escape');

  await page.keyboard.type('token=1');
  await until('hits for TOKEN=1', async () => (await page.getByTestId('search-hit').count()) > 0, 20000);
  const hits = await page.getByTestId('search-hit').evaluateAll((hs) => hs.map((h) => ({ kind: h.dataset.kind, text: h.textContent })));
  assert.equal(await page.getByTestId('search-session').count(), 1, 'grouped under the one session');
  assert.ok(hits.every((h) => /round 120/.test(h.text)), `every hit is of round 120: ${JSON.stringify(hits)}`);
  const marked = await page.locator('[data-testid="search-hit"] mark').first().innerText();
  assert.equal(marked, 'TOKEN=1', 'the match is marked, as it is in the log');
  const callHit = hits.findIndex((h) => h.kind === 'tool_call');
  assert.ok(callHit >= 0, `a hit on the call itself: ${JSON.stringify(hits)}`);

  // ↓ to the call's hit, Enter: the session opens there, not at its end.
  for (let i = 0; i <= callHit; i++) await page.keyboard.press('ArrowDown');
  assert.equal(await page.getByTestId('search-hit').nth(callHit).getAttribute('aria-selected'), 'true');
  await page.keyboard.press('Enter');
  await until('the call of round 120 focused and in view', async () => {
    const f = await focused(page);
    return f && f.kind === 'card-call' && f.round === '120' && f.inView && /write_file/.test(f.text);
  }, 30000);
  assert.equal(await page.getByTestId('card-end').count(), 0, 'the end of the run, 80 rounds below, is not drawn');
  // It stays there once the rows around it are drawn and measured.
  await new Promise((r) => setTimeout(r, 2000));
  const still = await focused(page);
  assert.ok(still && still.kind === 'card-call' && still.round === '120' && still.inView, `still on the call: ${JSON.stringify({ ...still, text: still?.text.slice(0, 80) })}`);
  // The text the search matched is marked in the card it opened.
  const marks = await page.evaluate(() => {
    const h = CSS.highlights?.get('loupe-search');
    return h ? [...h].map((r) => ({ text: r.toString(), inCard: !!r.startContainer.parentElement?.closest('[data-testid="card-call"]') })) : null;
  });
  assert.ok(marks && marks.length > 0 && marks.every((m) => m.text.toLowerCase() === 'token=1' && m.inCard), `marked in the card: ${JSON.stringify(marks)}`);
  await page.screenshot({ path: join(artifacts, 'sessions-search.png') });

  // Esc clears the box and the list is back.
  await page.getByTestId('global-search').focus();
  await page.keyboard.press('Escape');
  await page.getByTestId('session-item').first().waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test('rename with F2, delete with Undo: the backend keeps both', { timeout: 120000 }, async () => {
  const { url } = await theApp();
  const { page, errors } = await newPage(env.chrome);
  await page.goto(url);
  await waitForOllama(page);
  const open = page.locator('[data-testid="session-item"] .open').first();
  await open.waitFor();
  await open.focus();
  await page.keyboard.press('F2');
  const field = page.getByTestId('session-rename');
  await field.waitFor();
  assert.match(await field.inputValue(), /List the folder/, 'the field starts with the name it has');
  // Esc cancels.
  await field.fill('not this');
  await page.keyboard.press('Escape');
  await until('the name kept', async () => /List the folder/.test(await page.getByTestId('session-row-title').first().innerText()), 5000);
  // Enter saves.
  await open.focus();
  await page.keyboard.press('F2');
  await field.fill('Folder walk, 200 rounds');
  await page.keyboard.press('Enter');
  await until('the new name shown', async () => (await page.getByTestId('session-row-title').first().innerText()) === 'Folder walk, 200 rounds', 5000);
  await page.reload();
  await until('the new name kept by the backend', async () =>
    (await page.getByTestId('session-row-title').first().innerText().catch(() => '')) === 'Folder walk, 200 rounds', 20000);

  // Delete: gone at once, with Undo in a toast; Ctrl+Z takes it back.
  await page.locator('[data-testid="session-item"] .open').first().focus();
  await page.keyboard.press('Delete');
  await page.getByTestId('no-sessions').waitFor({ timeout: 5000 });
  const toast = page.getByTestId('toast').filter({ hasText: 'Deleted' });
  await toast.waitFor();
  assert.equal(await toast.getByTestId('toast-action').innerText(), 'Undo');
  await page.keyboard.press('Control+z');
  await until('the session back', async () => (await page.getByTestId('session-item').count()) === 1, 5000);
  await page.reload();
  await until('still there after a reload', async () => (await page.getByTestId('session-item').count()) === 1, 20000);

  // Undo by the toast's button works too; let the time run out the next time.
  await page.locator('[data-testid="session-item"] .open').first().focus();
  await page.keyboard.press('Delete');
  await page.getByTestId('toast').filter({ hasText: 'Deleted' }).getByTestId('toast-action').click();
  await until('back by the button', async () => (await page.getByTestId('session-item').count()) === 1, 5000);
  await page.locator('[data-testid="session-item"] .open').first().focus();
  await page.keyboard.press('Delete');
  await page.getByTestId('no-sessions').waitFor({ timeout: 5000 });
  // A reload within the time shows it gone (the backend leaves it out)…
  await page.reload();
  await page.getByTestId('no-sessions').waitFor({ timeout: 20000 });
  // …and once the time is up it is deleted: search finds nothing of it.
  await new Promise((r) => setTimeout(r, 7000));
  await page.getByTestId('global-search').fill('TOKEN=1');
  await until('nothing found', async () => /Nothing found/.test(await page.getByTestId('search-results').innerText()), 20000);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a delete waiting for Undo loses nothing when the app is killed', { timeout: 180000 }, async () => {
  const small = await longSessionDb({ rounds: 3, prefix: 'loupe-sessions-kill-' });
  let first = await startDevApp({ display: env.display.display, db: small.db, ollama: env.ollama.url, name: 'app-killed' });
  let second;
  try {
    const { page } = await newPage(env.chrome);
    await page.goto(first.url);
    await waitForOllama(page);
    await page.locator('[data-testid="session-item"] .open').first().focus();
    await page.keyboard.press('Delete');
    await page.getByTestId('no-sessions').waitFor({ timeout: 5000 });
    // Killed while the toast is up: no close, nothing of the app runs again.
    process.kill(-first.pid, 'SIGKILL');
    await first.exited;
    await page.close();
    second = await startDevApp({ display: env.display.display, db: small.db, ollama: env.ollama.url, name: 'app-after-kill' });
    const { page: again, errors } = await newPage(env.chrome);
    await again.goto(second.url);
    await waitForOllama(again);
    await again.getByTestId('session-item').first().waitFor({ timeout: 20000 });
    assert.match(await again.getByTestId('session-row-title').first().innerText(), /List the folder 3 times/);
    assert.match(await again.getByTestId('session-item').first().innerText(), /3 rounds/, 'its log whole');
    assert.deepEqual(errors, []);
    await again.close();
  } finally {
    await first?.stop();
    await second?.stop();
  }
});
