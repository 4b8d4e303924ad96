// Undo end to end, in a real browser engine against the real Go bindings:
// the scripted model asks to edit README.md, the user approves the edit
// from its card (which shows the diff), the timeline shows the diff of the
// change, and "Undo this turn" puts the file back byte for byte, with a
// restore card saying so. Build the frontend first (npm run build in
// frontend/); run with: cd e2e && node --test --test-reporter=spec undo.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withApp, startDevApp, newPage, waitForOllama, createSession, sendPrompt, tempDir, tempDb, artifacts } from './lib.mjs';

// Not only ASCII, and no newline at the end: what comes back must be these bytes exactly.
const original = Buffer.from('# undo e2e\r\n\nOld line, café.\n\ttabbed — end', 'utf8');
const edited = Buffer.from('# undo e2e\r\n\nNew line from Loupe.\n\ttabbed — end', 'utf8');

const script = {
  models: [{ name: 'scripted', context_length: 8192 }],
  replies: [
    { tool_calls: [{ id: 'call_1', name: 'edit_file', args: { path: 'README.md', old_string: 'Old line, café.', new_string: 'New line from Loupe.' } }] },
    { chunks: [{ content: 'I rewrote the line in README.md.' }] },
  ],
};

const env = withApp(script);

test('approve an edit from its card, see its diff, undo the turn and get the old bytes back', { timeout: 240000 }, async () => {
  const { display, ollama: fake, chrome } = env;
  const workspace = tempDir('loupe-e2e-undo-');
  const readme = join(workspace, 'README.md');
  writeFileSync(readme, original);
  const db = tempDb('loupe-e2e-undo-db-');

  const app = await startDevApp({ display: display.display, db, ollama: fake.url, name: 'app-undo' });
  const { page, errors } = await newPage(chrome);
  try {
    await page.goto(app.url);
    await waitForOllama(page);

    await createSession(page, { workspace, model: 'scripted' });
    await sendPrompt(page, 'Rewrite the old line of the README');

    // The approval card shows exactly what will happen: the diff of the edit, and why Loupe asks.
    const approval = page.getByTestId('approval-card');
    await approval.waitFor({ timeout: 30000 });
    const diff = await approval.getByTestId('diff').innerText();
    assert.match(diff, /-Old line, café\./);
    assert.match(diff, /\+New line from Loupe\./);
    assert.equal(await approval.getByTestId('approval-path').innerText(), 'README.md');
    assert.match(await approval.getByTestId('approval-reasons').innerText(), /README\.md/);
    assert.deepEqual(readFileSync(readme), original, 'nothing is written before the approval');
    await approval.getByTestId('approve-button').click();

    const end = page.getByTestId('card-end').getByTestId('stop-reason');
    await end.waitFor({ timeout: 30000 });
    assert.equal(await end.getAttribute('data-reason'), 'answered');
    assert.deepEqual(readFileSync(readme), edited, 'the approved edit was made');

    // The timeline shows the diff of the change on the observation, and who allowed it.
    const obs = page.getByTestId('card-observation').first();
    assert.match(await obs.getByTestId('diff').innerText(), /\+New line from Loupe\./);
    assert.match(await page.getByTestId('permission').first().innerText(), /allowed by you/i);
    assert.match(await page.getByTestId('call-changed-files').first().innerText(), /README\.md/);
    await obs.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(artifacts, 'undo-before.png') });

    // Undo this turn: the file is back byte for byte, and a restore card says which file.
    await page.getByTestId('undo-run-button').click();
    const restore = page.getByTestId('card-restore');
    await restore.waitFor({ timeout: 30000 });
    assert.deepEqual(readFileSync(readme), original, 'Undo this turn put the old bytes back');
    const file = restore.getByTestId('restore-file');
    assert.equal(await file.count(), 1);
    assert.equal(await file.getAttribute('data-path'), 'README.md');
    assert.equal(await file.getAttribute('data-overwritten'), 'false');
    assert.equal(await page.getByTestId('restore-confirm').count(), 0, 'nothing changed outside Loupe: no question');
    assert.equal(await page.getByTestId('undo-run-button').isDisabled(), true, 'the turn shows as undone');
    await restore.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(artifacts, 'undo-after.png') });

    // The restore is in the log: it is there after reopening the session.
    await page.reload();
    await page.getByTestId('session-item').first().click();
    await page.getByTestId('card-restore').waitFor({ timeout: 30000 });
    assert.deepEqual(errors, [], 'no uncaught errors in the page');
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'undo-failure.png'), fullPage: true }).catch(() => {});
    throw e;
  } finally {
    await page.close();
    await app.stop();
  }
});
