// Closing the real window while a run works: the window manager's close (a
// WM_DELETE_WINDOW message, GTK's delete-event) brings up GTK's "Close
// Loupe?" question. No keeps the window and the run; Yes closes Loupe, the
// run is recorded as interrupted because Loupe was closed, and the command
// it was running is killed. The app is the dev build in its GTK window on
// Xvfb; Chromium drives its UI over the dev server; the log is read back
// with `loupe export`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  withApp, startDevApp, newPage, waitForOllama, createSession, sendPrompt, tempDir, tempDb, artifacts, until,
  appWindow, wmClose, closeDialog, answerDialog, alive, screenshotWindow, processesWithArgv, processGroup, exportSession, findWindows,
} from './lib.mjs';

// A command that runs far longer than the test, with an argument no other
// process on the machine has, so that it can be found (and found gone).
const seconds = String(3000 + (process.pid % 997));
const command = ['sleep', seconds];

const script = {
  models: [{ name: 'scripted', context_length: 8192 }],
  replies: [
    { tool_calls: [{ id: 'call_1', name: 'run_command', args: { command: command.join(' '), timeout_ms: 600000 } }] },
    { chunks: [{ content: 'Slept.' }] },
  ],
};

const env = withApp(script);

test('closing the window while a command runs asks first: No keeps the run going, Yes records it as interrupted and kills the command', { timeout: 300000 }, async () => {
  const { display, ollama: fake, chrome } = env;
  const dpy = display.display;
  const workspace = tempDir('loupe-e2e-close-running-ws-');
  const db = tempDb('loupe-e2e-close-running-db-');
  const tid = (id) => page.getByTestId(id);

  const app = await startDevApp({ display: dpy, db, ollama: fake.url, name: 'app-close-running' });
  let { page, errors } = await newPage(chrome);
  let reopened;
  try {
    await page.goto(app.url);
    await waitForOllama(page);
    await createSession(page, { workspace, model: 'scripted' });
    await sendPrompt(page, 'Sleep for a long while');

    const approval = tid('approval-card');
    await approval.waitFor({ timeout: 30000 });
    await approval.getByTestId('approve-button').click();
    await until('the command to run', () => processesWithArgv(command).length > 0, 30000);
    await until('the call shown running', async () => (await tid('call-status').first().getAttribute('data-status')) === 'running', 15000);
    const sessionId = await tid('session-item').first().getAttribute('data-session-id');
    assert.ok(sessionId, 'the session item names its session');
    const win = await appWindow(dpy, app.pid);

    // First close: asked; No keeps everything as it was.
    wmClose(dpy, win);
    let dialog = await until('the "Close Loupe?" dialog', () => closeDialog(dpy), 30000);
    screenshotWindow(dpy, dialog, 'close-running-dialog');
    await answerDialog(dpy, dialog, 'no');
    await until('the call shown running after No', async () => (await tid('call-status').first().getAttribute('data-status')) === 'running', 15000);
    assert.ok(alive(app.pid), 'Loupe still runs after No');
    assert.deepEqual(findWindows(dpy, ['--all', '--onlyvisible', '--pid', String(app.pid), '--name', '^Loupe$']), [win], 'the window is still open');
    assert.ok(processesWithArgv(command).length > 0, 'the command still runs after No');
    assert.equal(await tid('card-end').count(), 0, 'the run did not end');
    let kinds = exportSession(db, sessionId).events.map((e) => e.kind);
    assert.ok(!kinds.includes('run_end') && !kinds.includes('tool_result'), `nothing ended by the No: ${kinds.join(' ')}`);
    await page.screenshot({ path: join(artifacts, 'close-running-after-no.png') });

    // Second close: asked again; Yes closes Loupe.
    wmClose(dpy, win);
    dialog = await until('the "Close Loupe?" dialog again', () => closeDialog(dpy), 30000);
    await answerDialog(dpy, dialog, 'yes');
    let timer;
    const exited = await Promise.race([app.exited, new Promise((r) => { timer = setTimeout(() => r(null), 30000); })]);
    clearTimeout(timer);
    assert.ok(exited, 'Loupe exited within 30 s of Yes');
    assert.equal(exited.code, 0, `Loupe exited cleanly after Yes (code ${exited.code}, signal ${exited.sig})`);
    await until('the command gone with Loupe', () => processesWithArgv(command).length === 0, 10000);
    await until('nothing left of Loupe\'s process group', () => processGroup(app.pid).length === 0, 10000);

    // The log: the call's result and the run's end both say Loupe was closed.
    const events = exportSession(db, sessionId).events;
    kinds = events.map((e) => e.kind);
    const ends = events.filter((e) => e.kind === 'run_end');
    assert.equal(ends.length, 1, `one run_end: ${kinds.join(' ')}`);
    assert.equal(kinds.at(-1), 'run_end', 'nothing after the run_end');
    assert.equal(ends[0].payload.reason, 'interrupted', JSON.stringify(ends[0].payload));
    assert.equal(ends[0].payload.detail, 'Loupe was closed while this run was going');
    const results = events.filter((e) => e.kind === 'tool_result');
    assert.equal(results.length, 1, `one result for the one call: ${kinds.join(' ')}`);
    const result = results[0].payload;
    assert.equal(result.call_id, 'call_1');
    assert.equal(result.is_error, true, JSON.stringify(result));
    assert.equal(result.error_kind, 'interrupted', JSON.stringify(result));
    assert.match(result.content, /^interrupted: Loupe was closed/, JSON.stringify(result));
    assert.ok(events.indexOf(results[0]) < events.indexOf(ends[0]), 'the result comes before the run_end');
    assert.deepEqual(errors, [], 'no uncaught errors in the page');
    await page.close();

    // The next Loupe shows the run as interrupted, and adds nothing to it.
    reopened = await startDevApp({ display: dpy, db, ollama: fake.url, name: 'app-close-running-2' });
    ({ page, errors } = await newPage(chrome));
    await page.goto(reopened.url);
    await waitForOllama(page);
    await page.locator(`[data-testid="session-item"][data-session-id="${sessionId}"]`).click();
    const end = tid('card-end').getByTestId('stop-reason');
    await end.waitFor({ timeout: 30000 });
    assert.equal(await end.getAttribute('data-reason'), 'interrupted');
    assert.match(await tid('card-end').innerText(), /Loupe was closed while this run was going/);
    assert.equal(await tid('call-status').first().getAttribute('data-status'), 'cancelled');
    await page.screenshot({ path: join(artifacts, 'close-running-reopened.png') });
    assert.deepEqual(exportSession(db, sessionId).events, events, 'reopening wrote nothing');
    assert.deepEqual(errors, [], 'no uncaught errors in the page');
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'close-running-failure.png'), fullPage: true }).catch(() => {});
    const dialog = closeDialog(dpy);
    if (dialog) screenshotWindow(dpy, dialog, 'close-running-failure-dialog');
    throw e;
  } finally {
    await page.close().catch(() => {});
    await app.stop();
    await reopened?.stop();
  }
});
