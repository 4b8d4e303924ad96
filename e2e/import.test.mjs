// Import end to end, in a real browser engine against the real Go bindings:
// a session recorded by the real loop (loupe run) and written out by
// loupe export --format json is imported in the window of another
// database from the Import dialog, and opens with the same cards as the
// original. Importing it again asks: Skip leaves the list as it is, Keep
// both adds the file's session under a new id, with the same cards. A bad
// file (cut short, another program's JSON), typed or dropped on the page,
// says what is wrong and where, and the list is unchanged.
// Build the frontend first (npm run build in frontend/); run with:
// cd e2e && node --test --test-reporter=spec import.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withApp, startDevApp, newPage, waitForOllama, longSessionDb, tempDir, tempDb, bin, artifacts, until } from './lib.mjs';

const env = withApp({ models: [{ name: 'tiny', context_length: 8192 }], replies: [] });

/** Every card the timeline draws (a short session: all of them), by kind and text. */
const cards = (page) =>
  page.locator('[data-card-id]').evaluateAll((els) => els.map((el) => ({ kind: el.getAttribute('data-testid'), text: el.innerText })));

/** The ids of the sessions in the list, in its order. */
const listed = (page) => page.getByTestId('session-item').evaluateAll((els) => els.map((el) => el.getAttribute('data-session-id')));

/** The session's timeline once its run's end is drawn. */
async function openedCards(page) {
  await page.getByTestId('card-end').getByTestId('stop-reason').waitFor({ timeout: 30000 });
  return cards(page);
}

/** Opens the Import dialog, names the file and imports it. */
async function importPath(page, file) {
  await page.getByTestId('import-session').click();
  const dialog = page.getByTestId('import-dialog');
  await dialog.waitFor();
  await dialog.getByTestId('import-path').fill(file);
  await dialog.getByTestId('import-submit').click();
  return dialog;
}

/** Drops a file holding text on the page, as a browser gives it (the page reads it). */
async function dropOnPage(page, name, text) {
  const data = await page.evaluateHandle(([n, t]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t], n, { type: 'application/json' }));
    return dt;
  }, [name, text]);
  await page.dispatchEvent('body', 'dragover', { dataTransfer: data });
  await page.dispatchEvent('body', 'drop', { dataTransfer: data });
}

test('import an exported session; again: skip or keep both; a bad file changes nothing', { timeout: 300000 }, async () => {
  // The original: a list_dir call, its result and an answer, recorded by loupe run.
  const rec = await longSessionDb({ rounds: 2, prefix: 'loupe-import-src-' });
  const loupe = join(bin, 'loupe');
  const dir = tempDir('loupe-import-files-');
  const file = join(dir, 'session.json');

  // Its cards, as the window draws them from the database it was recorded in.
  const source = await startDevApp({ display: env.display.display, db: rec.db, ollama: env.ollama.url, name: 'app-import-source' });
  let id;
  let want;
  try {
    const { page, errors } = await newPage(env.chrome);
    await page.goto(source.url);
    await waitForOllama(page);
    const row = page.getByTestId('session-item').first();
    await row.waitFor({ timeout: 20000 });
    id = await row.getAttribute('data-session-id');
    await row.locator('.open').click();
    want = await openedCards(page);
    const kinds = want.map((c) => c.kind);
    assert.ok(kinds.includes('card-user') && kinds.includes('card-call') && kinds.includes('card-observation'), `the original has its prompt, calls and results: ${JSON.stringify(kinds)}`);
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await source.stop();
  }
  execFileSync(loupe, ['export', id, '--format', 'json', '--out', file, '--db', rec.db]);
  const exported = readFileSync(file, 'utf8');
  assert.equal(JSON.parse(exported).session.id, id);

  // Another database, empty: Import from the dialog, the session opens.
  const db = tempDb('loupe-import-db-');
  const app = await startDevApp({ display: env.display.display, db, ollama: env.ollama.url, name: 'app-import' });
  const { page, errors } = await newPage(env.chrome);
  try {
    await page.goto(app.url);
    await waitForOllama(page);
    await page.getByTestId('no-sessions').waitFor({ timeout: 20000 });
    const dialog = await importPath(page, file);
    await dialog.waitFor({ state: 'detached', timeout: 30000 });
    await page.getByTestId('toast').filter({ hasText: 'Imported' }).waitFor({ timeout: 10000 });
    assert.deepEqual(await openedCards(page), want, 'the imported session has the same cards');
    assert.deepEqual(await listed(page), [id], 'the list holds it, with its id');
    await page.screenshot({ path: join(artifacts, 'import-opened.png') });

    // Again: it is here already, so the dialog asks. Skip leaves the list as it is.
    await importPath(page, file);
    const clash = dialog.getByTestId('import-clash');
    await clash.waitFor({ timeout: 30000 });
    assert.match(await clash.innerText(), /List the folder 2 times/);
    assert.match(await clash.innerText(), new RegExp(id));
    assert.equal(await dialog.getByTestId('import-submit').count(), 0, 'the question replaces Import');
    await page.screenshot({ path: join(artifacts, 'import-clash.png') });
    await dialog.getByTestId('import-skip').click();
    await dialog.waitFor({ state: 'detached', timeout: 30000 });
    await page.getByTestId('toast').filter({ hasText: 'Skipped' }).waitFor({ timeout: 10000 });
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(await listed(page), [id], 'skip imported nothing');

    // And again: Keep both adds the file's session under a new id, and opens it.
    await importPath(page, file);
    await clash.waitFor({ timeout: 30000 });
    await dialog.getByTestId('import-as-new').click();
    await dialog.waitFor({ state: 'detached', timeout: 30000 });
    await until('two sessions listed', async () => (await listed(page)).length === 2, 10000);
    const both = await listed(page);
    const copy = both.find((s) => s !== id);
    assert.ok(both.includes(id) && copy, `the first one and a new one: ${both}`);
    await until('the new one open', async () =>
      (await page.locator(`[data-testid="session-item"][data-session-id="${copy}"]`).getAttribute('class')).includes('current'), 10000);
    assert.deepEqual(await openedCards(page), want, 'the copy has the same cards');
    await page.reload();
    await until('both kept by the backend', async () => (await listed(page).catch(() => [])).length === 2, 20000);
    const before = await listed(page);

    // A file cut short: what is wrong and where, and nothing imported.
    const cut = join(dir, 'cut.json');
    writeFileSync(cut, exported.slice(0, Math.floor(exported.length / 2)));
    await importPath(page, cut);
    const error = dialog.getByTestId('import-error');
    await error.waitFor({ timeout: 30000 });
    const said = await error.innerText();
    assert.match(said, /cut short/);
    assert.match(said, /at byte \d+/);
    assert.match(said, /nothing was written/);
    await page.screenshot({ path: join(artifacts, 'import-bad.png') });
    await dialog.getByTestId('import-cancel').click();
    await dialog.waitFor({ state: 'detached' });

    // Another program's JSON, dropped on the page (which reads it and gives Go its text).
    await dropOnPage(page, 'package.json', JSON.stringify({ name: 'not-a-session', version: '1.0.0' }));
    await dialog.waitFor({ timeout: 10000 });
    await error.waitFor({ timeout: 30000 });
    assert.match(await error.innerText(), /not a Loupe session export/);
    assert.equal(await dialog.getByTestId('import-path').inputValue(), 'package.json', 'the dialog names the file dropped');
    await dialog.getByTestId('import-cancel').click();
    await dialog.waitFor({ state: 'detached' });

    await page.reload();
    await page.getByTestId('session-item').first().waitFor({ timeout: 20000 });
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(await listed(page), before, 'the refused files left the list as it was');
    assert.deepEqual(errors, []);
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'import-failure.png'), fullPage: true }).catch(() => {});
    throw e;
  } finally {
    await page.close();
    await app.stop();
  }
});
