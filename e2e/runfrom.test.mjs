// "Run from here on…" in a real browser engine against the real Go
// bindings and the fake Ollama: a run lists the folder and answers; from
// the tool result's card the user runs the rest of the task on another
// model. The dialog offers only a copy, on the model picked; the fork's run
// goes on at once, in its own folder, and opens beside its parent in the
// compare view. The parent's log and folder are left as they were.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { withApp, exportSession, artifacts, until } from './lib.mjs';
import { afterOneRun } from './afterrun.mjs';

const env = withApp({
  models: [{ name: 'scripted', context_length: 8192 }, { name: 'other', context_length: 8192 }],
  replies: [
    { tool_calls: [{ id: 'call_1', name: 'list_dir', args: { path: '.' } }] },
    { chunks: [{ content: 'The parent says: one file.' }] },
    // The rest of the task on the other model, run from the tool result.
    { chunks: [{ content: 'The other model says: README.md.' }] },
  ],
});

test('run the rest of a task from a card on another model, beside its parent', { timeout: 300000 }, async () => {
  await afterOneRun(env, 'runfrom', 'What is in this folder?', async ({ page, errors, db, workspace, parent }) => {
    const before = JSON.stringify(exportSession(db, parent).events);
    const result = exportSession(db, parent).events.find((e) => e.kind === 'tool_result');

    // The tool result's card offers "Run from here on…".
    await page.getByTestId('card-observation').first().click();
    await page.getByTestId('card-run-from').first().click();
    const dialog = page.getByTestId('fork-dialog');
    await dialog.waitFor();
    await dialog.getByTestId('fork-model').waitFor({ timeout: 30000 });
    assert.match(await dialog.innerText(), new RegExp(`Run from event ${result.seq} on`));
    assert.equal(await dialog.getByTestId('fork-problem').count(), 0, 'a tool result mid-run has the rest of the task to run');
    assert.equal(await dialog.getByTestId('fork-here').count(), 0, 'only a copy is offered: the parent folder is left alone');
    assert.equal(await dialog.getByTestId('fork-submit').count(), 0);
    await dialog.locator('[data-testid="fork-model"] option[value="other:latest"]').waitFor({ state: 'attached', timeout: 15000 });
    await dialog.getByTestId('fork-model').selectOption('other:latest');
    await dialog.getByTestId('fork-run').click();

    // The fork runs at once and opens beside its parent.
    const view = page.getByTestId('compare-view');
    await view.waitFor({ timeout: 30000 });
    const row = page.locator(`[data-testid="session-item"][data-fork-of="${parent}"]`);
    await row.waitFor({ timeout: 30000 });
    const child = await row.getAttribute('data-session-id');
    await until('the fork to answer', () => {
      const evs = exportSession(db, child).events;
      return evs.at(-1)?.kind === 'run_end' && evs;
    }, 60000);
    await page.getByTestId('compare-rounds').waitFor({ timeout: 30000 });
    await until('both sides shown', async () => {
      const models = await page.getByTestId('compare-side-model').allInnerTexts();
      return models.length === 2 && /scripted/.test(models[0]) && /other/.test(models[1]);
    }, 30000);
    await until("the fork's answer in the view", async () => /The other model says: README\.md\./.test(await view.innerText()), 30000);
    await page.screenshot({ path: join(artifacts, 'runfrom.png') });

    // The fork's log: the parent's through the result, then a request to
    // the other model and its answer, in a folder of its own.
    const forked = exportSession(db, child);
    const evs = forked.events;
    const req = evs.find((e) => e.seq > result.seq && e.kind === 'model_request');
    assert.ok(req, 'the fork sent a request after the fork point');
    assert.equal(req.payload.model, 'other:latest', 'the rest ran on the model picked');
    assert.ok(evs.some((e) => e.kind === 'model_response' && e.seq > req.seq && e.payload.content === 'The other model says: README.md.'));
    assert.notEqual(forked.session.workspace, workspace, 'the fork works in a copy');
    assert.deepEqual(readdirSync(forked.session.workspace), ['README.md'], 'the copy holds the workspace as it was');
    assert.equal(JSON.stringify(exportSession(db, parent).events), before, 'the parent did not change');
    assert.deepEqual(readdirSync(workspace), ['README.md'], "the parent's folder did not change");
    assert.deepEqual(errors, []);
  });
});
