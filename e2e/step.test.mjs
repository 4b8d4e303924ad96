// Learning mode with the keyboard only, in a real browser engine against the
// real Go bindings and the fake Ollama: turn Step mode on, send a prompt,
// step through every checkpoint of a two-round run, edit a tool call's
// arguments at its pause (an invalid value first, which is refused and keeps
// the run paused), and find the edited value on the timeline and in the Raw
// of the request that followed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withApp, startDevApp, newPage, waitForOllama, createSession, tempDir, tempDb, artifacts, until } from './lib.mjs';

const README = '# Step e2e\nThe secret word is periwinkle.\n';
// read_file numbers the lines it returns, so each line is looked for on its own.
const hasReadme = (text) => README.trim().split('\n').every((line) => text.includes(line));
const ANSWER = 'The README says the secret word is periwinkle.';

const script = {
  models: [{ name: 'scripted', context_length: 8192 }],
  replies: [
    { tool_calls: [{ id: 'call_1', name: 'read_file', args: { path: 'missing.txt' } }] },
    { chunks: [{ content: 'The README says ' }, { content: 'the secret word is periwinkle.' }], delay_ms: 30 },
  ],
};

const env = withApp(script);

test('step through a two-round run with the keyboard, edit a tool argument, see it on the timeline and in Raw', { timeout: 300000 }, async () => {
  const { display, ollama: fake, chrome } = env;
  const workspace = tempDir('loupe-e2e-step-ws-');
  writeFileSync(join(workspace, 'README.md'), README);
  const db = tempDb('loupe-e2e-step-db-');

  const app = await startDevApp({ display: display.display, db, ollama: fake.url, name: 'app-step' });
  const apps = [app];
  const { page, errors } = await newPage(chrome);
  // What the app pushed to the page, in arrival order: written out when the test fails.
  const pushed = [];
  page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => {
    const t = String(payload);
    if (!t.startsWith('n')) return;
    try {
      const { name, data: [d] } = JSON.parse(t.slice(1));
      if (name === 'loupe:event') pushed.push(`event ${d.seq} ${d.kind}${d.payload?.point ? ` ${d.payload.point} ${d.payload.state}` : ''}`);
    } catch { /* not an event */ }
  }));
  const key = (k) => page.keyboard.press(k);
  const tid = (id) => page.getByTestId(id);
  const editor = tid('pause-editor');
  const diagram = tid('loop-diagram');
  const activeTestId = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName);

  /** Waits for the run to pause at `point`, then checks what the loop diagram lights. */
  const lit = {};
  async function pausedAt(point, step, n = 1) {
    await until(`a pause at ${point} (#${n})`, async () =>
      (await editor.count()) === 1 &&
      (await editor.getAttribute('data-point')) === point &&
      (await tid('checkpoint-point').filter({ hasText: point }).count()) === n &&
      (await tid('step-button').isEnabled()), 60000);
    await until(`the loop diagram at ${step} (paused)`, async () =>
      (await diagram.getAttribute('data-step')) === step && (await diagram.getAttribute('data-paused')) === 'true', 10000);
    const on = diagram.locator('[data-testid="loop-step"][data-lit="true"]');
    assert.equal(await on.count(), 1, `one lit step at ${point}`);
    assert.equal(await on.getAttribute('data-step'), step);
    assert.equal(await on.getAttribute('aria-current'), 'step');
    assert.match(await tid('loop-caption').innerText(), /^Paused /);
    (lit[point] ??= []).push(step);
    // The letter keys must work now: the keyboard is not in a text field. (A new pause
    // gives the editor the focus, but when the dev server delivers the pause's summary
    // before its checkpoint event the editor moves and the focus falls back to the page.)
    assert.ok(!(await page.evaluate(() => {
      const el = document.activeElement;
      return el instanceof HTMLTextAreaElement || (el instanceof HTMLInputElement && !['checkbox', 'radio', 'button'].includes(el.type));
    })), `the keyboard is not in a text field at ${point}`);
  }

  try {
    await page.goto(app.url);
    await waitForOllama(page);

    // A new session on the workspace, with the scripted model (the mouse is allowed up to here).
    await createSession(page, { workspace, model: 'scripted' });
    await tid('step-controls').waitFor({ timeout: 30000 });

    // ---- From here on: the keyboard only. ----
    // A new session puts the cursor in the composer; Esc leaves it so that `t` is a shortcut.
    await until('the cursor in the composer', async () => (await activeTestId()) === 'composer-input', 10000);
    await key('Escape');
    assert.notEqual(await activeTestId(), 'composer-input');
    await key('t');
    await until('Step mode on (confirmed by the backend)', () => tid('step-toggle').isChecked(), 15000);

    await key('/');
    await until('the cursor back in the composer', async () => (await activeTestId()) === 'composer-input', 10000);
    await page.keyboard.type('What does the README say?');
    await key('Control+Enter');

    // Round 1: before the request, after the response (one call to read_file).
    await pausedAt('before_request', 'send', 1);
    assert.equal(await tid('card-request').count(), 0, 'nothing is sent before Step');
    await key('s');
    await pausedAt('after_response', 'respond', 1);
    assert.equal(await tid('card-call').count(), 1);
    await key('F10'); // F10 steps too

    // Before the tool runs: the call as the model asked for it.
    await pausedAt('before_tool', 'permission', 1);
    assert.equal(JSON.parse(await tid('pause-args').inputValue()).path, 'missing.txt');

    // `i` puts the cursor into the arguments; an argument that breaks the schema is refused.
    await key('i');
    await until('the cursor in the arguments', async () => (await activeTestId()) === 'pause-args', 10000);
    await key('Control+A');
    await page.keyboard.type('{"path":7}');
    await key('F10'); // F10 works inside a text field
    const argsError = tid('pause-args-error');
    await argsError.waitFor({ timeout: 30000 });
    assert.match(await argsError.innerText(), /"path" must be a string/, 'the schema check names the bad argument');
    await page.screenshot({ path: join(artifacts, 'step-args-error.png') });
    // Still paused at the same call, nothing run, the typed value kept.
    assert.equal(await editor.getAttribute('data-point'), 'before_tool');
    assert.equal(await diagram.getAttribute('data-paused'), 'true');
    assert.equal(await tid('card-observation').count(), 0, 'the tool did not run');
    assert.equal(await tid('card-edit').count(), 0, 'a refused edit is not recorded');
    assert.equal(await tid('pause-args').inputValue(), '{"path":7}');
    assert.equal(await tid('session-paused').count(), 1, 'the sidebar still shows the session paused');
    assert.equal(await tid('card-checkpoint').last().getByTestId('checkpoint-state').getAttribute('data-state'), 'paused');
    assert.equal(await activeTestId(), 'pause-args');

    // Esc inside the pause card leaves the field for the card, and never stops the run.
    const inPause = () => page.evaluate(() => document.querySelector('[data-testid="pause-editor"]')?.contains(document.activeElement) ?? false);
    await key('Escape');
    assert.ok(await inPause(), 'Esc in the arguments leaves the keyboard in the pause card');
    await key('Escape');
    await key('Escape');
    assert.ok(await inPause(), 'Esc on the pause card keeps the keyboard there');
    assert.equal(await tid('stop-confirm').count(), 0, 'Esc in the pause card asks nothing about stopping');
    assert.equal(await editor.getAttribute('data-point'), 'before_tool', 'still paused at the call');
    assert.equal(await tid('session-paused').count(), 1);
    assert.equal(await tid('pause-args').inputValue(), '{"path":7}', 'what was typed is kept');
    await key('i');
    await until('the cursor back in the arguments', async () => (await activeTestId()) === 'pause-args', 10000);

    // Now a good value, and Step.
    await key('Control+A');
    await page.keyboard.type('{"path":"README.md"}');
    assert.equal(await argsError.count(), 0, 'typing clears the error');
    await key('F10');

    // After the result: the README was read, not missing.txt.
    await pausedAt('after_result', 'append', 1);
    assert.match(await tid('pause-result').inputValue(), /secret word is periwinkle/);
    await key('s');

    // Round 2: the request carries the edited call and its result; then the answer.
    await pausedAt('before_request', 'send', 2);
    await key('s');
    await pausedAt('after_response', 'respond', 2);
    await key('s'); // no checkpoint left: on to the end

    const end = tid('card-end').getByTestId('stop-reason');
    await end.waitFor({ timeout: 60000 });
    assert.equal(await end.getAttribute('data-reason'), 'answered');
    await until('the pause editor gone', async () => (await editor.count()) === 0, 10000);
    assert.ok(await tid('step-toggle').isChecked(), 'Step mode stays on after the run');
    assert.match(await tid('card-response').last().innerText(), new RegExp(ANSWER.replace(/\./g, '\\.')));

    // The checkpoints in the order they were reached, each gone on from.
    const points = await tid('card-checkpoint').evaluateAll((cards) =>
      cards.map((c) => [c.querySelector('[data-testid="checkpoint-point"]')?.textContent.trim(),
        c.querySelector('[data-testid="checkpoint-state"]')?.getAttribute('data-state')]));
    assert.deepEqual(points, [
      ['before_request', 'resumed'], ['after_response', 'resumed'], ['before_tool', 'resumed'],
      ['after_result', 'resumed'], ['before_request', 'resumed'], ['after_response', 'resumed'],
    ]);
    assert.deepEqual(lit, {
      before_request: ['send', 'send'], after_response: ['respond', 'respond'], before_tool: ['permission'], after_result: ['append'],
    });

    // The edit card: args, before → after.
    const edit = tid('card-edit');
    assert.equal(await edit.count(), 1, 'one edit, the accepted one');
    assert.equal(await edit.getByTestId('edit-card').getAttribute('data-target'), 'args');
    assert.equal(await edit.getByTestId('step-tag').getAttribute('data-step'), 'validate');
    assert.deepEqual(JSON.parse(await edit.getByTestId('edit-after').textContent()), { path: 'README.md' });
    assert.deepEqual(JSON.parse(await edit.getByTestId('edit-before').textContent()), { path: 'missing.txt' });

    // The call card: ran with the edited arguments, the model's kept beside them.
    const call = tid('card-call');
    assert.equal(await call.count(), 1);
    assert.equal(await call.getByTestId('edited-args').count(), 1);
    assert.deepEqual(JSON.parse(await call.getByTestId('tool-args').textContent()), { path: 'README.md' });
    assert.deepEqual(JSON.parse(await call.getByTestId('tool-args-original').textContent()), { path: 'missing.txt' });
    assert.equal(await call.getByTestId('call-status').getAttribute('data-status'), 'done');

    // The observation: the README's content.
    const obs = tid('card-observation');
    assert.equal(await obs.count(), 1);
    const obsText = await obs.getByTestId('observation-content').textContent();
    assert.ok(hasReadme(obsText), `the observation holds the README: ${JSON.stringify(obsText)}`);
    assert.equal(await obs.getByTestId('observation-error').count(), 0);

    // Raw of round 2's request, opened with the keyboard: k from the end up to
    // that card, Tab to its Raw button, Enter; then Tab to "Exact" and Enter.
    const requests = tid('card-request');
    assert.equal(await requests.count(), 2);
    const secondId = await requests.nth(1).getAttribute('data-card-id');
    const focusedCardId = () => page.evaluate(() => document.activeElement?.closest('[data-card-id]')?.getAttribute('data-card-id') ?? null);
    for (let n = 0; n < 40 && (await focusedCardId()) !== secondId; n++) await key('k');
    assert.equal(await focusedCardId(), secondId, 'k reaches the second request card');
    const second = requests.nth(1);
    for (let n = 0; n < 10 && (await activeTestId()) !== 'raw-toggle'; n++) await key('Tab');
    assert.equal(await activeTestId(), 'raw-toggle');
    assert.equal(await focusedCardId(), secondId);
    await key('Enter');
    // The format buttons show once the body has loaded.
    await second.getByTestId('raw-exact').waitFor({ timeout: 15000 });
    for (let n = 0; n < 8 && (await activeTestId()) !== 'raw-exact'; n++) await key('Tab');
    assert.equal(await focusedCardId(), secondId, 'Tab stays in the second request card');
    assert.equal(await activeTestId(), 'raw-exact');
    await key('Enter');
    await until('the exact bytes shown', async () => (await second.getByTestId('raw-exact').getAttribute('aria-pressed')) === 'true', 10000);
    const content = second.getByTestId('raw-content');
    await until('the raw request loaded', async () => (await content.textContent()).length > 0, 15000);
    const raw = await content.textContent();
    await page.screenshot({ path: join(artifacts, 'step-raw.png') });

    assert.ok(!raw.includes('\n  '), 'exact bytes, not pretty-printed');
    assert.ok(raw.includes('README.md'), 'the edited argument is in the bytes sent');
    assert.ok(!raw.includes('missing.txt'), 'the model\'s original argument was not sent');
    const body = JSON.parse(raw);
    const assistant = body.messages.find((m) => m.role === 'assistant' && m.tool_calls?.length);
    assert.ok(assistant, `an assistant message with the tool call: ${raw}`);
    assert.equal(assistant.tool_calls[0].function.name, 'read_file');
    assert.deepEqual(assistant.tool_calls[0].function.arguments, { path: 'README.md' });
    const tool = body.messages.find((m) => m.role === 'tool');
    assert.ok(tool, 'a tool message');
    assert.ok(hasReadme(tool.content), `the tool message carries the README: ${tool.content}`);
    assert.ok(body.messages.indexOf(tool) > body.messages.indexOf(assistant));

    assert.deepEqual(errors, [], 'no uncaught errors in the page');

    // Close Loupe and open it again: the session still steps.
    await app.stop();
    const again = await startDevApp({ display: display.display, db, ollama: fake.url, name: 'app-step-again' });
    apps.push(again);
    await page.goto(again.url);
    await waitForOllama(page);
    await tid('session-item').first().click();
    await tid('card-end').waitFor({ timeout: 30000 });
    assert.ok(await tid('step-toggle').isChecked(), 'Step mode is remembered for the session after a restart');
  } catch (e) {
    writeFileSync(join(artifacts, 'step-pushed.log'), pushed.join('\n') + '\n');
    await page.screenshot({ path: join(artifacts, 'step-failure.png'), fullPage: true }).catch(() => {});
    throw e;
  } finally {
    await page.close();
    for (const a of apps) await a.stop();
  }
});
