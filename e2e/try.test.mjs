// "Try this request on…" in a real browser engine against the real Go
// bindings and the fake Ollama: a session's first request sent again to
// another model with another num_ctx, its answer streamed and then shown
// beside the recorded one (text, calls, meters), a body that is not JSON
// refused in words, and the session's log the same before and after. Then
// Adopt: the fork opens with the alternative answer, its log holds the
// request as the try sent it, and Continue runs the answer's call there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withApp, startDevApp, newPage, waitForOllama, createSession, sendPrompt, tempDir, tempDb, exportSession, artifacts, until } from './lib.mjs';

const env = withApp({
  models: [{ name: 'scripted', context_length: 8192 }, { name: 'other', context_length: 8192 }],
  replies: [
    { tool_calls: [{ id: 'call_1', name: 'list_dir', args: { path: '.' } }] },
    { chunks: [{ content: 'The folder holds README.md.' }] },
    // The try: another call, streamed slowly enough to be seen.
    { chunks: [{ content: 'Let me read ' }, { content: 'the README first.' }], tool_calls: [{ id: 'call_9', name: 'read_file', args: { path: 'README.md' } }], delay_ms: 300 },
    // The adopted fork's next answer, after its read_file ran.
    { chunks: [{ content: 'The README is a heading.' }] },
  ],
});

test('try a request on another model and see both answers compared', { timeout: 240000 }, async () => {
  const { display, ollama: fake, chrome } = env;
  const workspace = tempDir('loupe-e2e-ws-');
  writeFileSync(join(workspace, 'README.md'), '# e2e\n');
  const db = tempDb('loupe-e2e-db-');
  const app = await startDevApp({ display: display.display, db, ollama: fake.url });
  const { page, errors } = await newPage(chrome);
  try {
    await page.goto(app.url);
    await waitForOllama(page);
    await createSession(page, { workspace, model: 'scripted' });
    await sendPrompt(page, 'What is in this folder?');
    await page.getByTestId('card-end').waitFor({ timeout: 30000 });
    const id = await page.locator('[data-session-id]').first().getAttribute('data-session-id');
    const before = JSON.stringify(exportSession(db, id).events);

    await page.getByTestId('card-request').first().getByTestId('model-saw-toggle').click();
    await page.getByTestId('try-open').click();
    const panel = page.getByTestId('try-panel');
    await panel.waitFor();
    await panel.locator('[data-testid="try-model"] option[value="other:latest"]').waitFor({ state: 'attached', timeout: 15000 });

    // A body that is not JSON: refused in words, nothing sent.
    await panel.getByTestId('try-edit-body').click();
    const body = panel.getByTestId('try-body');
    await page.waitForFunction(() => (document.querySelector('[data-testid="try-body"]')?.value ?? '').startsWith('{'));
    assert.equal(JSON.parse(await body.inputValue()).model, 'scripted:latest', 'the body to edit is the recorded one');
    await body.fill('not a request');
    await panel.getByTestId('try-send').click();
    await panel.getByTestId('try-error').waitFor({ timeout: 15000 });
    assert.match(await panel.getByTestId('try-error').innerText(), /one JSON object/);
    await panel.getByTestId('try-edit-body').click();

    // The recorded body, to the other model with another num_ctx.
    await panel.getByTestId('try-model').selectOption('other:latest');
    await panel.getByTestId('try-num-ctx').fill('4096');
    await panel.getByTestId('try-send').click();
    await panel.getByTestId('try-streaming').waitFor({ timeout: 15000 });
    assert.match(await panel.getByTestId('try-streaming').innerText(), /Let me read/);
    await panel.getByTestId('try-result').waitFor({ timeout: 30000 });

    assert.match(await panel.getByTestId('try-exact').innerText(), /the model, num_ctx/);
    assert.match(await panel.getByTestId('try-alternative').innerText(), /other:latest[\s\S]*num_ctx 4096[\s\S]*Let me read the README first\./);
    assert.match(await panel.getByTestId('try-recorded').innerText(), /scripted:latest/);
    const verdicts = await panel.getByTestId('try-call').evaluateAll((els) => els.map((e) => e.getAttribute('data-verdict')));
    assert.deepEqual(verdicts, ['only_recorded', 'only_alternative'], 'list_dir only in the recorded answer, read_file only in the alternative');
    const written = panel.locator('[data-testid="try-figure"][data-key="output_tokens"] td');
    assert.equal(await written.count(), 2);
    assert.notEqual((await written.nth(1).innerText()).trim(), '-', 'the alternative has its meter');
    await page.screenshot({ path: join(artifacts, 'try.png') });

    assert.equal(JSON.stringify(exportSession(db, id).events), before, 'the session did not change');
    assert.equal(await page.getByTestId('card-request').count(), 2, 'no request was added to the timeline');

    // Adopt: a fork with the alternative as the answer opens.
    await panel.getByTestId('try-adopt').click();
    const row = page.locator(`[data-testid="session-item"][data-fork-of="${id}"]`);
    await row.waitFor({ timeout: 30000 });
    const child = await row.getAttribute('data-session-id');
    await until('the fork is the open session', async () => (await row.locator('.open').getAttribute('aria-current')) === 'true', 15000);
    const timeline = page.getByTestId('timeline');
    await timeline.getByText('Let me read the README first.').first().waitFor({ timeout: 30000 });
    const forked = exportSession(db, child).events;
    const request = forked.filter((e) => e.kind === 'model_request').at(-1);
    assert.equal(request.payload.model, 'other:latest', "the fork's request is the one the try sent");
    assert.equal(request.payload.options.num_ctx, 4096);
    await page.screenshot({ path: join(artifacts, 'try-adopted.png') });

    // It waits after the adopted answer; Continue runs its call there.
    await page.getByTestId('continue-button').waitFor({ timeout: 30000 });
    await until('Continue enabled', async () => !(await page.getByTestId('continue-button').isDisabled()));
    await page.getByTestId('continue-button').click();
    await timeline.getByText('The README is a heading.').first().waitFor({ timeout: 60000 });
    const after = exportSession(db, child).events;
    assert.ok(after.some((e) => e.kind === 'tool_result' && e.payload.call_id === 'call_9'), "the adopted answer's read_file ran in the fork");
    const next = after.filter((e) => e.kind === 'model_request').at(-1);
    assert.ok(next.seq > request.seq && next.payload.model === 'other:latest', "the fork went on with the try's model");
    assert.equal(JSON.stringify(exportSession(db, id).events), before, 'the tried session did not change');
    assert.deepEqual(errors, []);
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'try-failure.png'), fullPage: true }).catch(() => {});
    throw e;
  } finally {
    await page.close();
    await app.stop();
  }
});
