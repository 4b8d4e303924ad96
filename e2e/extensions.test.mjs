// The extensions in a real browser engine against the real Go bindings and
// the fake Ollama: paste a real MCP server from npm (server-everything, run
// with node, in the sandbox) into Settings, see its tools and what each
// schema costs, approve the model's call of one; a workspace hook's card on
// the timeline after that call; then Sub-agents switched on in Settings and,
// in Step mode, Step into the task call's sub-agent, which pauses at its own
// checkpoints before its answer comes back to the session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { withApp, startDevApp, newPage, waitForOllama, createSession, sendPrompt, tempDir, tempDb, artifacts, until, root } from './lib.mjs';

const servers = join(root, 'testkit', 'mcpservers');
const everything = join(servers, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

const script = {
  models: [{ name: 'scripted', context_length: 8192 }],
  replies: [
    // Run 1: the MCP tool, then an answer.
    { tool_calls: [{ id: 'call_1', name: 'everything.echo', args: { message: 'hello through MCP' } }] },
    { chunks: [{ content: 'The server echoed it.' }] },
    // Run 2, in Step mode: a task call, the sub-agent's answer, the session's.
    { tool_calls: [{ id: 'call_2', name: 'task', args: { prompt: 'Find the secret word in README.md' } }] },
    { chunks: [{ content: 'The secret word is periwinkle.' }] },
    { chunks: [{ content: 'The sub-agent says the secret word is periwinkle.' }] },
  ],
};

const env = withApp(script);

test('paste an MCP server, see its schema costs, approve its call, see a hook card, step into a sub-agent', { timeout: 300000 }, async () => {
  assert.ok(existsSync(everything), `server-everything is not installed at ${everything}: run scripts/deps.sh`);
  const { display, ollama: fake, chrome } = env;
  const workspace = tempDir('loupe-e2e-ext-ws-');
  writeFileSync(join(workspace, 'README.md'), '# Extensions\nThe secret word is periwinkle.\n');
  mkdirSync(join(workspace, '.loupe'));
  writeFileSync(join(workspace, '.loupe', 'settings.json'), JSON.stringify({
    hooks: [{ name: 'stamp', event: 'after_tool', matcher: 'everything.*', command: 'echo checked by the stamp hook' }],
  }));
  const db = tempDb('loupe-e2e-ext-db-');
  const app = await startDevApp({ display: display.display, db, ollama: fake.url, name: 'app-extensions' });
  const { page, errors } = await newPage(chrome);
  const tid = (id) => page.getByTestId(id);
  try {
    await page.goto(app.url);
    await waitForOllama(page);
    await createSession(page, { workspace });
    await tid('composer-input').waitFor();

    // Settings: paste the server as other apps write it, granted reading its own folder.
    await tid('open-settings').click();
    const config = { mcpServers: { everything: { command: 'node', args: [everything], loupe: { read: [servers] } } } };
    await tid('mcp-paste').fill(JSON.stringify(config, null, 2));
    await tid('mcp-add-pasted').click();
    const server = tid('mcp-server').filter({ hasText: 'everything' });
    await until('the server listed with its tools', async () => (await server.count()) === 1 && (await server.getByTestId('mcp-tool').count()) > 3, 60000);
    const echo = server.getByTestId('mcp-tool').filter({ hasText: 'echo' }).first();
    const cost = await echo.getByTestId('mcp-tool-tokens').innerText();
    assert.match(cost, /\d+ tokens/, `the echo tool's schema cost is shown: ${cost}`);
    assert.match(await server.getByTestId('mcp-server-tokens').innerText(), /\d+ tokens/);
    assert.match(await server.getByTestId('mcp-granted').innerText(), /writes nothing of the workspace.*no network/);

    // Trust the workspace's settings file, so its hook runs.
    const trust = tid('workspace-trust');
    await trust.click();
    await until('the workspace trusted', async () => (await tid('workspace-panel').getAttribute('data-trusted')) === 'true');
    await tid('settings-cancel').click();

    // Run 1: the model calls the MCP tool; it asks, as every MCP tool does.
    await sendPrompt(page, 'Echo something through the server');
    const approval = tid('approval-card');
    await approval.waitFor({ timeout: 60000 });
    assert.match(await approval.innerText(), /everything\.echo/);
    assert.match(await approval.innerText(), /hello through MCP/);
    await tid('approve-button').click();
    const end = tid('card-end').getByTestId('stop-reason');
    await end.waitFor({ timeout: 60000 });
    assert.equal(await end.getAttribute('data-reason'), 'answered');
    assert.match(await tid('card-observation').first().innerText(), /hello through MCP/);
    const hook = page.locator('[data-testid="card-hook"]').first();
    await hook.waitFor({ timeout: 10000 });
    assert.match(await hook.innerText(), /stamp/);
    assert.match(await hook.getByTestId('hook-stdout').innerText(), /checked by the stamp hook/);

    // Sub-agents on, then Step mode on for the next run.
    await tid('open-settings').click();
    await tid('settings-sub-agents').check();
    await tid('settings-save').click();
    await tid('settings-form').waitFor({ state: 'detached' });
    await tid('step-toggle').click();
    await until('Step mode on (confirmed by the backend)', () => tid('step-toggle').isChecked(), 15000);
    await sendPrompt(page, 'Ask a sub-agent for the secret word');

    // Step until the pause before the task call offers Step into; then step
    // through the sub-agent's own pauses to the end of the run.
    const editor = tid('pause-editor');
    let into = false;
    let insidePauses = 0;
    for (let i = 0; i < 40; i++) {
      await until(`a pause or the end (step ${i})`, async () =>
        (await editor.count()) === 1 && (await tid('pause-step').isEnabled()) || (await tid('card-end').count()) === 2, 60000);
      if ((await tid('card-end').count()) === 2) break;
      const seq = await editor.getAttribute('data-seq');
      if (!into && (await tid('pause-step-into').count()) === 1) {
        into = true;
        await tid('pause-step-into').click();
      } else {
        if (into && (await editor.getAttribute('data-agent'))) {
          // The sub-agent's own pause: in its lane, on the task call's card, saying whose it is.
          insidePauses++;
          assert.equal(await tid('sub-agent').getByTestId('pause-editor').count(), 1, 'the sub-agent\'s pause is shown in its lane');
          assert.match(await editor.getAttribute('aria-label'), /^The sub-agent paused /);
        }
        await tid('pause-step').click();
      }
      await until('the run to leave the pause', async () =>
        (await editor.count()) === 0 || (await editor.getAttribute('data-seq')) !== seq || (await tid('card-end').count()) === 2, 30000);
    }
    assert.ok(into, 'the pause before the task call offered Step into');
    assert.ok(insidePauses > 0, 'the sub-agent paused at its own checkpoints, inside its lane');
    const ends = tid('card-end').getByTestId('stop-reason');
    await until('the second run answered', async () => (await ends.count()) === 2 && (await ends.nth(1).getAttribute('data-reason')) === 'answered', 30000);
    const lane = tid('sub-agent').first();
    assert.match(await lane.getByTestId('sub-agent-goal').innerText(), /Find the secret word/);
    assert.match(await lane.getByTestId('sub-agent-answer').innerText(), /periwinkle/);
    assert.deepEqual(errors, [], 'no uncaught error in the page');
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'extensions-failure.png'), fullPage: true }).catch(() => {});
    throw e;
  } finally {
    await page.close();
    await app.stop();
  }
});
