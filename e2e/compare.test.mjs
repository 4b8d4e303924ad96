// The compare view against the real Go backend in Chromium: the same task
// run by `loupe run` on two models (the fake Ollama answering each its own
// way) is picked in the session list with "Compare with…" and the keyboard,
// shown side by side with the totals on top and the round where they
// diverge marked, in the light and the dark theme; a round opens its
// session at that round.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withApp, startDevApp, newPage, waitForOllama, artifacts, until, goBuild, bin, windowBuild, tempDir, tempDb, createSession } from './lib.mjs';

const call = (name, args) => ({ tool_calls: [{ name, args }] });
const text = (t) => ({ chunks: [{ content: t }] });
// Both list the folder; then A reads the README and B globs for Markdown:
// they diverge at round 2.
const env = withApp({
  models: [{ name: 'tiny-a', context_length: 8192 }, { name: 'tiny-b', context_length: 8192 }],
  replies: [
    call('list_dir', { path: '.' }),
    call('read_file', { path: 'README.md' }),
    text('It says hello.'),
    call('list_dir', { path: '.' }),
    call('glob', { pattern: '*.md' }),
    text('There is one Markdown file.'),
  ],
});

let app;
after(async () => {
  await app?.stop();
});

/** Runs the task with loupe run on a model; returns the session id. */
function runOn(loupe, db, workspace, model) {
  const out = execFileSync(loupe, ['run', '--workspace', workspace, '--model', model, '--host', env.ollama.url, '--db', db, '--auto', '--json',
    'What does the README say?'], { encoding: 'utf8' });
  const lines = out.trim().split('\n');
  const end = JSON.parse(lines.at(-1));
  assert.equal(end.payload.reason, 'answered', `the run on ${model} answered`);
  return JSON.parse(lines[0]).session_id;
}

test('two runs side by side, the divergence marked, a round opens its session there', { timeout: 300000 }, async () => {
  const loupe = goBuild(join(bin, 'loupe'), windowBuild);
  const workspace = tempDir('loupe-compare-ws-');
  writeFileSync(join(workspace, 'README.md'), '# Hello\n');
  const db = tempDb('loupe-compare-db-');
  const a = runOn(loupe, db, workspace, 'tiny-a');
  const b = runOn(loupe, db, workspace, 'tiny-b');

  app = await startDevApp({ display: env.display.display, db, ollama: env.ollama.url });
  const { page, errors } = await newPage(env.chrome);
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(app.url);
  await waitForOllama(page);
  const rowOf = (id) => page.locator(`[data-testid="session-item"][data-session-id="${id}"]`);
  await rowOf(a).waitFor();
  await rowOf(b).waitFor();

  // Keyboard only: C on A's row, then ↑ / ↓ to B's and Enter.
  await rowOf(a).locator('.open').focus();
  await page.keyboard.press('c');
  await page.getByTestId('compare-picking').waitFor();
  assert.match(await page.getByTestId('compare-picking').innerText(), /Compare “What does the README say\?” with… pick another session/);
  // Esc gives the pick up; C again picks A.
  await page.keyboard.press('Escape');
  await until('the pick given up', async () => (await page.getByTestId('compare-picking').count()) === 0, 5000);
  await page.keyboard.press('c');
  await page.getByTestId('compare-picking').waitFor();
  const order = await page.getByTestId('session-item').evaluateAll((rs) => rs.map((r) => r.dataset.sessionId));
  await page.keyboard.press(order.indexOf(b) > order.indexOf(a) ? 'ArrowDown' : 'ArrowUp');
  await page.keyboard.press('Enter');

  const view = page.getByTestId('compare-view');
  await view.waitFor();
  await page.getByTestId('compare-rounds').waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId('compare-picking').count(), 0, 'the pick is over');
  // A is the session picked first.
  const models = await page.getByTestId('compare-side-model').allInnerTexts();
  assert.deepEqual(models, ['tiny-a', 'tiny-b']);

  // Totals on top, from Go: three rounds and two calls each.
  const total = async (name) => page.locator(`[data-testid="compare-total"][data-name="${name}"] td`).allInnerTexts();
  assert.deepEqual(await total('Rounds'), ['3', '3']);
  assert.deepEqual(await total('Tool calls'), ['2', '2']);
  assert.deepEqual(await total('Denials'), ['0', '0']);
  const tokens = await total('Prompt tokens');
  assert.ok(tokens.every((t) => /^[\d,]+$/.test(t) && t !== '0'), `Ollama's prompt counts: ${tokens}`);

  // The mark is on round 2, and only there; round 1 is the same.
  const rows = await page.getByTestId('compare-row').evaluateAll((rs) => rs.map((r) => ({ round: r.dataset.round, same: r.dataset.same, text: r.textContent })));
  assert.deepEqual(rows.map((r) => r.round), ['1.1', '1.2', '1.3']);
  assert.equal(rows[0].same, 'true');
  assert.equal(await page.getByTestId('compare-diverge-mark').count(), 1);
  const marked = page.locator('[data-testid="compare-row"]:has([data-testid="compare-diverge-mark"])');
  assert.equal(await marked.getAttribute('data-round'), '1.2');
  assert.match(await marked.innerText(), /read_file[\s\S]*README\.md[\s\S]*glob[\s\S]*\*\.md/, 'both calls of round 2, side by side');
  assert.match(await page.getByTestId('compare-verdict').innerText(), /They diverge at round 2: call 1 is read_file in A, glob in B\./);
  // The keyboard is on the marked round.
  assert.equal(await page.evaluate(() => document.activeElement?.closest('[data-testid="compare-row"]')?.getAttribute('data-round')), '1.2');
  await page.screenshot({ path: join(artifacts, 'compare-light.png') });

  // The dark theme follows the system: the mark stays readable on a dark page.
  const look = () => page.evaluate(() => {
    const bg = getComputedStyle(document.querySelector('[data-testid="compare-view"]').closest('main') ?? document.body).backgroundColor;
    const row = getComputedStyle(document.querySelector('tr.diverge')).backgroundColor;
    const mark = document.querySelector('[data-testid="compare-diverge-mark"]');
    return { bg, row, mark: getComputedStyle(mark).color, markBg: getComputedStyle(mark).backgroundColor };
  });
  const light = await look();
  await page.emulateMedia({ colorScheme: 'dark' });
  await until('the dark theme', async () => (await look()).row !== light.row, 5000);
  const dark = await look();
  assert.notEqual(dark.mark, dark.markBg, 'the mark has its own colours in the dark theme');
  await page.screenshot({ path: join(artifacts, 'compare-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });

  // Swap puts B first; Enter on B's round 2 opens B there.
  await page.getByTestId('compare-swap').click();
  await until('B first', async () => (await page.getByTestId('compare-side-model').allInnerTexts())[0] === 'tiny-b', 10000);
  const cell = page.locator('[data-testid="compare-row"][data-round="1.2"] [data-testid="compare-cell"][data-side="a"]');
  await cell.focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('timeline').waitFor({ timeout: 20000 });
  await until('B open at round 2', async () => {
    const at = await page.evaluate(() => {
      const card = document.activeElement?.closest('[data-card-id]');
      if (!card) return null;
      const top = card.getBoundingClientRect().top;
      const heads = [...document.querySelectorAll('[data-testid="round"]')].filter((r) => r.getBoundingClientRect().top <= top + 1);
      return heads.at(-1)?.getAttribute('data-round') ?? null;
    });
    return at === '2';
  }, 20000);
  assert.equal(await page.locator(`[data-testid="session-item"][data-session-id="${b}"] .open`).getAttribute('aria-current'), 'true', 'B is the open session');
  // And back to the comparison, as it was left (B first).
  await page.getByTestId('compare-back-button').click();
  await page.getByTestId('compare-rounds').waitFor({ timeout: 20000 });
  assert.equal((await page.getByTestId('compare-side-model').allInnerTexts())[0], 'tiny-b');
  await page.getByTestId('compare-close').click();
  await until('closed: no way back offered', async () => (await page.getByTestId('compare-back').count()) === 0 && (await page.getByTestId('timeline').count()) === 1, 10000);

  // The two logs are as they were: comparing changes nothing.
  const again = JSON.parse(execFileSync(loupe, ['compare', a, b, '--db', db, '--json'], { encoding: 'utf8' }));
  assert.equal(again.diverge, 1);
  assert.equal(again.rows.length, 3);

  // A new session with nothing sent yet, compared with A by the row's
  // button: the view says it has no rounds, and that only A has round 1.
  await createSession(page, { workspace, model: 'tiny-a' });
  await until('the new session listed', async () => (await page.getByTestId('session-item').count()) === 3, 20000);
  const ids = await page.getByTestId('session-item').evaluateAll((rs) => rs.map((r) => r.dataset.sessionId));
  const empty = ids.find((id) => id !== a && id !== b);
  await rowOf(empty).hover();
  await rowOf(empty).getByTestId('session-compare').click();
  await page.getByTestId('compare-picking').waitFor();
  await rowOf(a).locator('.open').click();
  await until('the empty session compared', async () =>
    /No rounds yet/.test(await page.locator('[data-testid="compare-side"][data-side="a"]').innerText().catch(() => '')), 20000);
  assert.match(await page.getByTestId('compare-verdict').innerText(), /They diverge at round 1: only B has this round\./);
  assert.deepEqual(await total('Rounds'), ['0', '3']);
  assert.equal(await page.getByTestId('compare-missing').count(), 3, 'the new session has none of the three rounds');
  // Esc closes the view.
  await page.keyboard.press('Escape');
  await until('the view closed', async () => (await page.getByTestId('compare-view').count()) === 0, 5000);
  assert.deepEqual(errors, []);
  await page.close();
});
