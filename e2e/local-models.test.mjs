// Local models in a real browser engine against the real Go bindings and
// the fake Ollama: the new-session page offers two tools and checks the
// model (one round trip), the run offers only those tools, and What the
// model saw shows the request as the model read it, rendered by Ollama.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withApp, startDevApp, newPage, waitForOllama, sendPrompt, openModelRead, until, tempDir, tempDb, artifacts } from './lib.mjs';

const script = {
  models: [{ name: 'scripted', context_length: 8192 }],
  replies: [
    // The readiness check's round trip.
    { tool_calls: [{ name: 'list_dir', args: { path: '.' } }] },
    // The run.
    { tool_calls: [{ name: 'read_file', args: { path: 'README.md' } }] },
    { chunks: [{ content: 'It says e2e.' }] },
  ],
};

const env = withApp(script);

test('fewer tools, a readiness check, and a request as the model read it', { timeout: 240000 }, async () => {
  const { display, ollama: fake, chrome } = env;
  const workspace = tempDir('loupe-e2e-ws-');
  writeFileSync(join(workspace, 'README.md'), '# e2e\n');
  const app = await startDevApp({ display: display.display, db: tempDb('loupe-e2e-db-'), ollama: fake.url });
  const { page, errors } = await newPage(chrome);
  try {
    await page.goto(app.url);
    await waitForOllama(page);
    await page.getByTestId('new-session').click();
    await page.getByTestId('workspace-path').fill(workspace);
    // By name: the demo's option says "scripted" too.
    await page.locator('[data-testid="model-option"][data-model="scripted"], [data-testid="model-option"][data-model="scripted:latest"]').getByRole('radio').check();

    // Two tools, by keyboard-reachable checkboxes.
    for (const t of ['write_file', 'edit_file', 'glob', 'grep', 'run_command']) {
      await page.getByTestId('new-tools').locator(`[data-tool="${t}"] input`).uncheck();
    }
    assert.match(await page.getByTestId('new-tools-summary').innerText(), /2 of 7 tools offered/);
    const item = (c) => page.getByTestId('readiness').locator(`[data-check="${c}"]`);
    await until('the fit check of two tools', async () => /2 tool schemas/.test(await item('fit').innerText()));
    assert.equal(await item('tools').getAttribute('data-status'), 'ok');
    await page.getByTestId('readiness-round-trip').check();
    await until('the round trip', async () => (await item('round_trip').getAttribute('data-status')) === 'ok');
    assert.match(await item('round_trip').innerText(), /made a real tool call: list_dir/);
    await page.screenshot({ path: join(artifacts, 'readiness.png') });

    await page.getByTestId('create-session').click();
    await sendPrompt(page, 'What does README.md say?');
    await page.getByTestId('card-end').getByTestId('stop-reason').waitFor({ timeout: 30000 });

    // The request offered the two tools only.
    const request = page.getByTestId('card-request').last();
    await request.getByTestId('raw-toggle').click();
    await request.getByTestId('raw-exact').click();
    assert.deepEqual(JSON.parse(await request.getByTestId('raw-content').innerText()).tools.map((t) => t.function.name), ['read_file', 'list_dir']);

    const read = await openModelRead(page);
    assert.match(read.note, /Rendered now/);
    assert.match(read.note, /current template/);
    assert.match(read.text, /<\|im_start\|>system/);
    assert.match(read.text, /"name":"read_file"/);
    assert.doesNotMatch(read.text, /"name":"run_command"/);
    assert.match(read.text, /<tool_response>\n\s+1\t# e2e/);
    assert.ok((await read.saw.locator('[data-markup]').count()) > 5, 'the markup is marked');
    await page.screenshot({ path: join(artifacts, 'model-read.png') });
    assert.deepEqual(errors, [], 'no uncaught errors in the page');
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'failure-local-models.png'), fullPage: true }).catch(() => {});
    throw e;
  } finally {
    await page.close();
    await app.stop();
  }
});
