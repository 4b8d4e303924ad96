// Closing the real window while a run is paused in step mode: the window
// manager's close (a WM_DELETE_WINDOW message, GTK's delete-event) ends Loupe
// at once, with no question and nothing written; the next Loupe on the same
// database opens the session paused at the same checkpoint, and Step takes
// the run on to its end. The app is the dev build in its GTK window on Xvfb;
// Chromium drives its UI over the dev server, as in step.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  withApp, startDevApp, newPage, waitForOllama, createSession, sendPrompt, tempDir, tempDb, artifacts, until,
  appWindow, wmClose, closeDialog, alive, screenshotWindow, exportSession, processGroup,
} from './lib.mjs';

const script = {
  models: [{ name: 'scripted', context_length: 8192 }],
  replies: [
    { tool_calls: [{ id: 'call_1', name: 'read_file', args: { path: 'README.md' } }] },
    { chunks: [{ content: 'The README says ' }, { content: 'the word is heliotrope.' }] },
  ],
};

const env = withApp(script);

/** Waits for `app` to exit, failing at once if a "Close Loupe?" dialog shows meanwhile. */
async function exitsWithoutDialog(dpy, app, ms) {
  const end = Date.now() + ms;
  while (alive(app.pid)) {
    const dialog = closeDialog(dpy);
    if (dialog) {
      screenshotWindow(dpy, dialog, 'close-paused-unexpected-dialog');
      assert.fail('a "Close Loupe?" dialog appeared for a run paused at a checkpoint');
    }
    if (Date.now() > end) assert.fail(`Loupe did not exit within ${ms} ms of the close`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('closing the window at a step-mode pause asks nothing and writes nothing; Loupe reopens paused there and Step ends the run', { timeout: 300000 }, async () => {
  const { display, ollama: fake, chrome } = env;
  const dpy = display.display;
  const workspace = tempDir('loupe-e2e-close-paused-ws-');
  writeFileSync(join(workspace, 'README.md'), '# Close e2e\nThe word is heliotrope.\n');
  const db = tempDb('loupe-e2e-close-paused-db-');
  const tid = (page, id) => page.getByTestId(id);

  /** Waits until the page shows the run paused at `point` after `n` checkpoints. */
  async function pausedAt(page, point, n) {
    await until(`a pause at ${point} after ${n} checkpoints`, async () =>
      (await tid(page, 'pause-editor').count()) === 1 &&
      (await tid(page, 'pause-editor').getAttribute('data-point')) === point &&
      (await tid(page, 'card-checkpoint').count()) === n &&
      (await tid(page, 'step-button').isEnabled()), 60000);
  }
  const checkpoints = (page) => tid(page, 'card-checkpoint').evaluateAll((cards) =>
    cards.map((c) => [c.querySelector('[data-testid="checkpoint-point"]')?.textContent.trim(),
      c.querySelector('[data-testid="checkpoint-state"]')?.getAttribute('data-state')]));

  // ---- The first Loupe: step to the pause before the tool runs, then close its window. ----
  const first = await startDevApp({ display: dpy, db, ollama: fake.url, name: 'app-close-paused-1' });
  let second;
  let { page, errors } = await newPage(chrome);
  try {
    await page.goto(first.url);
    await waitForOllama(page);
    await createSession(page, { workspace, model: 'scripted' });
    await tid(page, 'step-controls').waitFor({ timeout: 30000 });
    await tid(page, 'step-toggle').click();
    await until('Step mode on (confirmed by the backend)', () => tid(page, 'step-toggle').isChecked(), 15000);
    await sendPrompt(page, 'What is the word in the README?');

    await pausedAt(page, 'before_request', 1);
    await tid(page, 'step-button').click();
    await pausedAt(page, 'after_response', 2);
    await tid(page, 'step-button').click();
    await pausedAt(page, 'before_tool', 3);
    assert.equal(await tid(page, 'card-observation').count(), 0, 'the tool has not run');
    const pausedCheckpoints = await checkpoints(page);
    assert.deepEqual(pausedCheckpoints, [['before_request', 'resumed'], ['after_response', 'resumed'], ['before_tool', 'paused']]);
    assert.deepEqual(errors, [], 'no uncaught errors in the page');

    const sessionId = await tid(page, 'session-item').first().getAttribute('data-session-id');
    assert.ok(sessionId, 'the session item names its session');
    const before = exportSession(db, sessionId).events;

    const win = await appWindow(dpy, first.pid);
    screenshotWindow(dpy, win, 'close-paused-window');
    wmClose(dpy, win);
    // Loupe ends on its own; no question is asked on the way.
    await exitsWithoutDialog(dpy, first, 30000);
    const { code, sig } = await first.exited;
    assert.equal(code, 0, `the first Loupe exited cleanly (code ${code}, signal ${sig})`);
    // WebKit's own processes end a moment after the window's: wait for them.
    await until('nothing of the first Loupe left running', () => processGroup(first.pid).length === 0, 10000);
    assert.deepEqual(exportSession(db, sessionId).events, before, 'closing at the pause wrote nothing');
    await page.close();

    // ---- The second Loupe on the same database: paused at the same checkpoint. ----
    second = await startDevApp({ display: dpy, db, ollama: fake.url, name: 'app-close-paused-2' });
    ({ page, errors } = await newPage(chrome));
    await page.goto(second.url);
    await waitForOllama(page);
    await page.locator(`[data-testid="session-item"][data-session-id="${sessionId}"]`).click();
    await pausedAt(page, 'before_tool', 3);
    assert.deepEqual(await checkpoints(page), pausedCheckpoints, 'the same checkpoints, the last one still paused');
    assert.equal(JSON.parse(await tid(page, 'pause-args').inputValue()).path, 'README.md', 'the call waits with its arguments');
    assert.equal(await tid(page, 'card-observation').count(), 0, 'the tool still has not run');
    assert.equal(await tid(page, 'card-end').count(), 0, 'the run did not end');
    assert.equal(await tid(page, 'session-paused').count(), 1, 'the sidebar shows the session paused');
    await page.screenshot({ path: join(artifacts, 'close-paused-reopened.png') });

    // Step to the end: after the result, the second request, its answer.
    for (const [point, n] of [['after_result', 4], ['before_request', 5], ['after_response', 6]]) {
      await tid(page, 'step-button').click();
      await pausedAt(page, point, n);
    }
    await tid(page, 'step-button').click();
    const end = tid(page, 'card-end').getByTestId('stop-reason');
    await end.waitFor({ timeout: 60000 });
    assert.equal(await end.getAttribute('data-reason'), 'answered');
    assert.match(await tid(page, 'card-response').last().innerText(), /the word is heliotrope/);
    assert.equal(await tid(page, 'card-observation').count(), 1, 'the call ran once, after the reopen');
    assert.match(await tid(page, 'card-observation').getByTestId('observation-content').textContent(), /heliotrope/);
    assert.deepEqual(errors, [], 'no uncaught errors in the page');

    // The log: one run, one result for the one call, one run_end.
    const events = exportSession(db, sessionId).events;
    const kinds = events.map((e) => e.kind);
    assert.equal(kinds.filter((k) => k === 'run_end').length, 1, `one run_end: ${kinds.join(' ')}`);
    assert.equal(kinds.at(-1), 'run_end');
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'close-paused-failure.png'), fullPage: true }).catch(() => {});
    throw e;
  } finally {
    await page.close().catch(() => {});
    await first.stop();
    await second?.stop();
  }
});
