// Named Ollama hosts, AGENTS.md and the network list, in a real browser
// engine against the real Go bindings and two fake Ollama servers: a host
// added and tested in Settings, a session started on it that talks only to
// it, its request card naming it, AGENTS.md in what the model saw, and the
// sidebar listing exactly the two addresses dialled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withApp, startDevApp, startFakeOllama, newPage, waitForOllama, sendPrompt, tempDir, tempDb, until, artifacts } from './lib.mjs';

const env = withApp({ models: [{ name: 'scripted', context_length: 8192 }], replies: [] });

test('a session on a named host, AGENTS.md in what the model saw, and every connection listed', { timeout: 240000 }, async () => {
  const { display, ollama: local, chrome } = env;
  const gpu = await startFakeOllama({ models: [{ name: 'big', context_length: 8192 }], replies: [{ chunks: [{ content: 'Hello from the GPU box.' }] }] });
  const workspace = tempDir('loupe-e2e-ws-');
  writeFileSync(join(workspace, 'AGENTS.md'), '# Notes\nNever edit files under vendor/.\n');
  const app = await startDevApp({ display: display.display, db: tempDb('loupe-e2e-db-'), ollama: local.url });
  const { page, errors } = await newPage(chrome);
  try {
    await page.goto(app.url);
    await waitForOllama(page);

    // Settings: add gpu-box, test it, save.
    await page.getByTestId('open-settings').click();
    await page.getByTestId('host-add').click();
    const row = page.getByTestId('host-row').first();
    await row.getByTestId('host-name').fill('gpu-box');
    await row.getByTestId('host-url').fill(gpu.url);
    await row.getByTestId('host-test').click();
    await until('the host test', async () => ((await row.getByTestId('host-result').textContent()) ?? '').includes('answers at'));
    await page.getByTestId('settings-save').click();
    await page.getByTestId('settings-form').waitFor({ state: 'detached' });

    // A new session on gpu-box, with gpu-box's model.
    await page.getByTestId('new-session').click();
    await page.getByTestId('workspace-path').fill(workspace);
    await page.locator('[data-testid="host-option"][data-host="gpu-box"]').getByRole('radio').check();
    const big = page.locator('[data-testid="model-option"][data-model="big:latest"]');
    await big.waitFor({ timeout: 30000 });
    await big.getByRole('radio').check();
    await page.screenshot({ path: join(artifacts, 'hosts-new-session.png') });
    await page.getByTestId('create-session').click();
    await sendPrompt(page, 'Say hello');
    await page.getByTestId('card-end').waitFor({ timeout: 30000 });
    // The session's model is the host's, not "not installed" here.
    assert.equal((await page.getByTestId('session-model').locator('option:checked').textContent())?.trim(), 'big:latest');
    assert.match((await page.getByTestId('session-host').textContent()) ?? '', /on gpu-box/);
    const host = page.getByTestId('card-request').getByTestId('request-host');
    assert.match((await host.textContent()) ?? '', /on gpu-box/);

    // What the model saw holds AGENTS.md as its own part.
    await page.getByTestId('card-request').getByTestId('model-saw-toggle').click();
    const part = page.getByTestId('model-saw-system').getByTestId('system-part-instructions');
    await part.waitFor({ timeout: 15000 });
    assert.match((await part.textContent()) ?? '', /Never edit files under vendor\//);

    // The network list: the two fakes, each on its own line, both on this machine.
    await page.getByTestId('network-toggle').click();
    const want = [local.url, gpu.url].map((u) => u.replace('http://', '')).sort();
    await until('both hosts listed', async () => {
      const got = await page.getByTestId('network-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-address')));
      return JSON.stringify(got.sort()) === JSON.stringify(want);
    });
    assert.match((await page.getByTestId('network-toggle').textContent()) ?? '', /this machine only · 2 addresses/);
    await page.screenshot({ path: join(artifacts, 'hosts-session.png') });
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    await app.stop();
    await gpu.stop();
  }
});
