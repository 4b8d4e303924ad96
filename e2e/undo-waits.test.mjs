// Undo that has to wait, end to end in a real browser engine against the
// real Go bindings: a session edits README.md and ends; then `loupe run`, a
// separate Loupe process as started from a terminal, runs a command in the
// same folder. "Undo this turn" in the window waits for it and says so at
// the bottom left; Stop waiting ends the wait with an error saying nothing
// was changed; once the command has ended, Undo puts the old bytes back.
// The dev server answers one page's calls one after another (the desktop
// window does not): while that page's Undo waits, its Stop waiting would
// only be heard once the wait is over. So Stop waiting is clicked in a
// second page on the same app, which hears of the wait as well.
// Build the frontend first (npm run build in frontend/); run with:
// cd e2e && node --test --test-reporter=spec undo-waits.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { withApp, startDevApp, newPage, waitForOllama, createSession, sendPrompt, start, until, goBuild, bin, windowBuild,
  tempDir, tempDb, artifacts } from './lib.mjs';

const original = Buffer.from('# undo waits\r\n\nOld line, café.\n\ttabbed — end', 'utf8');
const edited = Buffer.from('# undo waits\r\n\nNew line from Loupe.\n\ttabbed — end', 'utf8');

// The command ends when the test creates `release` (at most a minute), not
// after a guessed sleep: each step gets all the time it needs.
const command = 'touch started.txt; i=0; while [ ! -e release ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; touch ended.txt';

// One server for both processes: the window's session takes the first two
// replies, the `loupe run` started after it has ended the last two.
const script = {
  models: [{ name: 'scripted', context_length: 8192 }],
  replies: [
    { tool_calls: [{ id: 'call_1', name: 'edit_file', args: { path: 'README.md', old_string: 'Old line, café.', new_string: 'New line from Loupe.' } }] },
    { chunks: [{ content: 'I rewrote the line in README.md.' }] },
    { tool_calls: [{ id: 'call_2', name: 'run_command', args: { command } }] },
    { chunks: [{ content: 'The command has ended.' }] },
  ],
};

const env = withApp(script);

test('Undo waits for a command that loupe run runs in the same folder; Stop waiting changes nothing; after it ended Undo works', { timeout: 300000 }, async () => {
  const { display, ollama: fake, chrome } = env;
  const loupe = goBuild(join(bin, 'loupe'), windowBuild);
  const workspace = tempDir('loupe-e2e-undo-waits-');
  const readme = join(workspace, 'README.md');
  writeFileSync(readme, original);
  const db = tempDb('loupe-e2e-undo-waits-db-');

  const app = await startDevApp({ display: display.display, db, ollama: fake.url, name: 'app-undo-waits' });
  const { page, errors } = await newPage(chrome);
  const { page: other, errors: otherErrors } = await newPage(chrome);
  let run;
  try {
    await page.goto(app.url);
    await waitForOllama(page);

    // 1. The session changes README.md (approved from its card) and ends.
    await createSession(page, { workspace, model: 'scripted' });
    await sendPrompt(page, 'Rewrite the old line of the README');
    const approval = page.getByTestId('approval-card');
    await approval.waitFor({ timeout: 30000 });
    await approval.getByTestId('approve-button').click();
    const end = page.getByTestId('card-end').getByTestId('stop-reason');
    await end.waitFor({ timeout: 30000 });
    assert.equal(await end.getAttribute('data-reason'), 'answered');
    assert.deepEqual(readFileSync(readme), edited, 'the approved edit was made');

    // 2. In a terminal, `loupe run` runs a command in the same folder.
    run = start('loupe-run-undo-waits', loupe, ['run', '--workspace', workspace, '--model', 'scripted', '--host', fake.url,
      '--db', db, '--auto', '--json', 'Run the long command']);
    await until('loupe run\'s command to start', () => existsSync(join(workspace, 'started.txt')) || run.exitCode !== null, 30000);
    assert.equal(run.exitCode, null, `loupe run ended before its command started:\n${run.output().slice(-2000)}`);

    // Open before the Undo: a page hears of a wait when it starts, not later.
    await other.goto(app.url);
    await waitForOllama(other);

    // 3. Undo this turn waits, and says for what and where, above the timeline.
    const undo = page.getByTestId('undo-run-button');
    await undo.click();
    const waiting = page.getByTestId('files-waiting');
    await waiting.waitFor({ timeout: 30000 });
    const line = await waiting.innerText();
    assert.ok(line.includes(`Waiting for 1 command to end in ${workspace} before changing files there`), `the line names the folder: ${line}`);
    assert.match(line, /loupe run in a terminal/);
    assert.equal(await waiting.getByTestId('files-waiting-stop').innerText(), 'Stop waiting');
    const box = await waiting.boundingBox();
    const view = page.viewportSize();
    assert.ok(box.y < view.height / 3 && box.x > 0 && box.x + box.width < view.width, `the line is at the top, clear of the sidebar: ${JSON.stringify(box)}`);
    assert.equal(await undo.isDisabled(), true, 'the button is busy while Undo waits');
    assert.equal(await undo.getAttribute('title'), 'A restore is on its way.');
    assert.deepEqual(readFileSync(readme), edited, 'nothing is put back while the command runs');
    assert.equal(existsSync(join(workspace, 'ended.txt')), false, 'the command still runs');
    await page.screenshot({ path: join(artifacts, 'undo-waits-waiting.png') });

    // 4. Stop waiting: the line goes, a note (not an error: it was the user's choice) says nothing was changed, and nothing was.
    const otherWaiting = other.getByTestId('files-waiting');
    await otherWaiting.waitFor({ timeout: 15000 });
    assert.equal(await otherWaiting.innerText(), line, 'the second page shows the same line');
    await otherWaiting.getByTestId('files-waiting-stop').click();
    await waiting.waitFor({ state: 'detached', timeout: 15000 });
    await otherWaiting.waitFor({ state: 'detached', timeout: 15000 });
    const note = page.getByTestId('toast').filter({ hasText: 'Stopped waiting' });
    await note.waitFor({ timeout: 15000 });
    assert.equal((await note.innerText()).trim(), 'Stopped waiting: no file was changed.');
    assert.doesNotMatch(await note.getAttribute('class'), /\berror\b/, 'not shown as an error');
    await page.screenshot({ path: join(artifacts, 'undo-waits-stopped.png') });
    assert.deepEqual(readFileSync(readme), edited, 'Stop waiting changed nothing');
    assert.equal(await page.getByTestId('card-restore').count(), 0, 'no restore in the timeline');
    assert.equal(await page.getByTestId('run-undone').count(), 0, 'the turn is not shown as undone');
    await until('the Undo button to be enabled again', async () => !(await undo.isDisabled()), 15000);
    assert.equal(existsSync(join(workspace, 'ended.txt')), false, 'the command still runs after Stop waiting');

    // 5. The command ends, loupe run with it; then Undo this turn works, with no wait.
    writeFileSync(join(workspace, 'release'), '');
    const { code } = await run.exited;
    assert.equal(code, 0, `loupe run answered:\n${run.output().slice(-2000)}`);
    const last = JSON.parse(run.output().trim().split('\n').filter((l) => l.startsWith('{')).at(-1));
    assert.equal(last.kind, 'run_end');
    assert.equal(last.payload.reason, 'answered');
    assert.ok(existsSync(join(workspace, 'ended.txt')), 'the command ran to its end');
    await undo.click();
    const restore = page.getByTestId('card-restore');
    await restore.waitFor({ timeout: 30000 });
    await page.getByTestId('toast').filter({ hasText: 'Put back 1 file: README.md' }).waitFor({ timeout: 15000 });
    assert.deepEqual(readFileSync(readme), original, 'Undo this turn put the old bytes back');
    const file = restore.getByTestId('restore-file');
    assert.equal(await file.count(), 1);
    assert.equal(await file.getAttribute('data-path'), 'README.md');
    assert.equal(await page.getByTestId('files-waiting').count(), 0, 'no waiting line once nothing runs');
    assert.equal(await page.getByTestId('restore-confirm').count(), 0, 'nothing changed outside Loupe: no question');
    assert.equal(await undo.isDisabled(), true, 'the turn shows as undone');
    await restore.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(artifacts, 'undo-waits-after.png') });
    assert.deepEqual(errors, [], 'no uncaught errors in the page');
    assert.deepEqual(otherErrors, [], 'no uncaught errors in the second page');
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'undo-waits-failure.png'), fullPage: true }).catch(() => {});
    throw e;
  } finally {
    await page.close();
    await other.close();
    await run?.stop();
    await app.stop();
  }
});
