// Scenario 1 of issue 3 in a real browser engine against a REAL Ollama server
// (the version go.mod pins, built by scripts/real-ollama/build.sh) serving a
// scripted model: the prompt goes out, Ollama's own parser turns the model's
// text into a list_dir call, the read runs without asking, the observation
// goes back, and the model answers.
//
// Needs the server binary: scripts/real-ollama/build.sh (minutes, once) or
// LOUPE_OLLAMA_BIN. Without it the test fails and says so; it never skips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withApp, startScriptedOllama, startDevApp, newPage, waitForOllama, createSession, sendPrompt, tempDir, tempDb, artifacts } from './lib.mjs';

const prompt = 'What is in this folder?';
const answer = 'The workspace holds a single file, README.md.';
const script = {
  models: [{
    name: 'scripted',
    steps: [
      { calls: [{ name: 'list_dir', args: { path: '.' } }] },
      { answer },
    ],
  }],
};

const env = withApp(script, { startOllama: startScriptedOllama });

test('scenario 1 against real Ollama: request → list_dir → observation → answer, Raw names the model and num_ctx', { timeout: 300000 }, async () => {
  const { display, ollama, chrome } = env;
  const workspace = tempDir('loupe-e2e-real-ws-');
  writeFileSync(join(workspace, 'README.md'), '# real Ollama e2e\n');
  const db = tempDb('loupe-e2e-real-db-');

  const app = await startDevApp({ display: display.display, db, ollama: ollama.url, name: 'app-real-ollama' });
  const { page, errors } = await newPage(chrome);
  try {
    await page.goto(app.url);
    await waitForOllama(page, 60000);

    // A new session on the workspace, with the scripted model the real server lists.
    await createSession(page, { workspace, model: 'scripted' });

    await sendPrompt(page, prompt);

    // Two model rounds: each loads or evaluates a prompt on the CPU, which
    // can take seconds on 2 shared cores.
    const end = page.getByTestId('card-end').getByTestId('stop-reason');
    await end.waitFor({ timeout: 180000 });
    assert.equal(await end.getAttribute('data-reason'), 'answered', await page.getByTestId('card-end').innerText());
    assert.equal((await page.getByTestId('card-end').getByTestId('markdown').innerText()).trim(), answer);
    assert.equal(await page.getByTestId('approval-card').count(), 0, 'a read never asks');

    // request → tool call → observation → answer, in that order.
    const order = await page.getByTestId('timeline').evaluate((tl) =>
      [...tl.querySelectorAll('[data-testid^="card-"]')].map((c) => c.getAttribute('data-testid')));
    const at = (kind, from = 0) => order.indexOf(kind, from);
    const req = at('card-request'), call = at('card-call', req), obs = at('card-observation', call), resp = order.lastIndexOf('card-response');
    assert.ok(req >= 0 && call > req && obs > call && resp > obs, `cards out of order: ${order.join(', ')}`);
    assert.equal(await page.getByTestId('card-call').count(), 1);
    const callCard = page.getByTestId('card-call').first();
    assert.equal(await callCard.getByTestId('tool-name').innerText(), 'list_dir');
    assert.deepEqual(JSON.parse(await callCard.getByTestId('tool-args').innerText()), { path: '.' });
    assert.match(await callCard.getByTestId('permission').innerText(), /allowed by rule/i);
    assert.match(await page.getByTestId('card-observation').first().innerText(), /README\.md/);
    assert.equal((await page.getByTestId('response-text').last().innerText()).trim(), answer);

    await page.getByTestId('card-observation').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(artifacts, 'real-ollama-timeline.png') });

    // Raw on the first request: the JSON body sent to the real server.
    const request = page.getByTestId('card-request').first();
    await request.getByTestId('raw-toggle').click();
    await request.getByTestId('raw-exact').click();
    const body = JSON.parse(await request.getByTestId('raw-content').innerText());
    assert.match(body.model, /^scripted(:latest)?$/);
    assert.ok(Number.isInteger(body.options?.num_ctx) && body.options.num_ctx > 0 && body.options.num_ctx <= 32768,
      `num_ctx ${body.options?.num_ctx}: want a positive integer within the model's 32768`);
    assert.ok(body.tools.some((t) => t.function.name === 'list_dir'), 'the request offers list_dir');
    assert.equal(body.messages.at(-1).content, prompt);
    assert.deepEqual(errors, [], 'no uncaught errors in the page');
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'real-ollama-failure.png'), fullPage: true }).catch(() => {});
    throw e;
  } finally {
    await page.close();
    await app.stop();
  }
});
