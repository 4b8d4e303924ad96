// The whole product path in a real browser engine against the real Go
// bindings: pick a workspace, send a prompt, approve a command, watch
// request → tool call → observation → answer appear, open Raw, restart the
// app and find the session again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withApp, startDevApp, newPage, waitForOllama, createSession, sendPrompt, tempDir, tempDb, artifacts } from './lib.mjs';

const script = {
  models: [{ name: 'scripted', context_length: 8192 }],
  replies: [
    { tool_calls: [{ id: 'call_1', name: 'run_command', args: { command: 'echo hello from loupe > greeting.txt && cat greeting.txt' } }] },
    { chunks: [{ content: 'The command printed ' }, { content: '**hello from loupe** and saved it.' }], delay_ms: 50 },
  ],
};

const env = withApp(script);

test('pick a workspace, approve a command, see the loop, open Raw, find it after a restart', { timeout: 240000 }, async () => {
  const { display, ollama: fake, chrome } = env;
  const workspace = tempDir('loupe-e2e-ws-');
  writeFileSync(join(workspace, 'README.md'), '# e2e\n');
  const db = tempDb('loupe-e2e-db-');

  let app = await startDevApp({ display: display.display, db, ollama: fake.url });
  const { page, errors } = await newPage(chrome);
  try {
    await page.goto(app.url);
    await waitForOllama(page);

    // A new session on the workspace, with the scripted model.
    await createSession(page, { workspace, model: 'scripted' });

    // Send the prompt with the keyboard.
    await sendPrompt(page, 'Say hello with a command');

    // The command waits for approval, and the card shows it in full.
    const approval = page.getByTestId('approval-card');
    await approval.waitFor({ timeout: 30000 });
    assert.match(await approval.innerText(), /echo hello from loupe > greeting\.txt && cat greeting\.txt/);
    await page.getByTestId('approve-button').click();

    // The run ends with the model's answer and a stop reason.
    const end = page.getByTestId('card-end').getByTestId('stop-reason');
    await end.waitFor({ timeout: 30000 });
    assert.equal(await end.getAttribute('data-reason'), 'answered');
    assert.equal(readFileSync(join(workspace, 'greeting.txt'), 'utf8'), 'hello from loupe\n', 'the approved command really ran');

    // request → tool call → observation → answer, in that order.
    const order = await page.getByTestId('timeline').evaluate((tl) =>
      [...tl.querySelectorAll('[data-testid^="card-"]')].map((c) => c.getAttribute('data-testid')));
    const at = (kind, from = 0) => order.indexOf(kind, from);
    const req = at('card-request'), call = at('card-call', req), obs = at('card-observation', call), answer = order.lastIndexOf('card-response');
    assert.ok(req >= 0 && call > req && obs > call && answer > obs, `cards out of order: ${order.join(', ')}`);
    assert.match(await page.getByTestId('card-observation').first().innerText(), /hello from loupe/);
    assert.match(await page.getByTestId('permission').first().innerText(), /allowed by you/i);
    const bold = page.getByTestId('markdown').last().locator('strong');
    assert.equal(await bold.innerText(), 'hello from loupe', 'markdown in the answer is rendered');

    await page.getByTestId('card-observation').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(artifacts, 'overview.png') });

    // Raw on the first request: the exact JSON body sent to Ollama.
    const request = page.getByTestId('card-request').first();
    await request.getByTestId('raw-toggle').click();
    await request.getByTestId('raw-exact').click();
    const raw = await request.getByTestId('raw-content').innerText();
    const body = JSON.parse(raw);
    assert.equal(body.model, 'scripted:latest');
    assert.equal(body.options.num_ctx, 8192);
    assert.deepEqual(body.tools.map((t) => t.function.name), ['read_file', 'write_file', 'edit_file', 'list_dir', 'glob', 'grep', 'run_command']);
    assert.equal(body.messages.at(-1).content, 'Say hello with a command');
    await page.screenshot({ path: join(artifacts, 'timeline.png'), fullPage: false });

    // Restart the app on the same database: the session is still there.
    await app.stop();
    app = await startDevApp({ display: display.display, db, ollama: fake.url, name: 'app-restarted' });
    await page.goto(app.url);
    const item = page.getByTestId('session-item').first();
    await item.waitFor();
    assert.match(await item.innerText(), /Say hello with a command/);
    await item.click();
    await page.getByTestId('card-end').getByTestId('stop-reason').waitFor();
    assert.match(await page.getByTestId('card-observation').first().innerText(), /hello from loupe/);
    assert.equal(await page.getByTestId('card-call').count(), 1);
    assert.deepEqual(errors, [], 'no uncaught errors in the page');
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'failure.png'), fullPage: true }).catch(() => {});
    throw e;
  } finally {
    await page.close();
    await app.stop();
  }
});
