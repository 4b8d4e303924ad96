// Fork end to end, in a real browser engine against the real Go bindings:
// a run lists the folder and answers; the user forks at the tool result
// from its card (the dialog shows what Go says of the point), the fork
// opens paused after that result, Continue runs it on to its own answer,
// the sidebar draws it under its parent, and the marks open one from the
// other. Build the frontend first (npm run build in frontend/); run with:
// cd e2e && node --test --test-reporter=spec fork.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { withApp, artifacts, until } from './lib.mjs';
import { afterOneRun } from './afterrun.mjs';

const script = {
  models: [{ name: 'scripted', context_length: 8192 }],
  replies: [
    { tool_calls: [{ id: 'call_1', name: 'list_dir', args: { path: '.' } }] },
    { chunks: [{ content: 'The parent says: one file.' }] },
    { chunks: [{ content: 'The fork says: README.md.' }] },
  ],
};

const env = withApp(script);

test('fork at a tool result, continue the fork, see the tree and the marks', { timeout: 300000 }, async () => {
  await afterOneRun(env, 'fork', 'What is in this folder?', async ({ page, errors, parent }) => {
    // The card of the tool result: focused, it offers Fork.
    const obs = page.getByTestId('card-observation').first();
    await obs.click();
    await page.getByTestId('card-fork').first().click();
    const dialog = page.getByTestId('fork-dialog');
    await dialog.waitFor();
    await dialog.getByTestId('fork-here').waitFor({ timeout: 30000 });
    assert.equal(await dialog.getByTestId('fork-problem').count(), 0, 'a tool result is a point a fork can be made at');
    await dialog.getByTestId('fork-submit').click();

    // The fork opens, paused after that result; Continue runs it on.
    await page.getByTestId('continue-button').waitFor({ timeout: 30000 });
    await until('Continue to be enabled', async () => !(await page.getByTestId('continue-button').isDisabled()));
    await page.getByTestId('continue-button').click();
    await page.getByText('The fork says: README.md.').first().waitFor({ timeout: 60000 });

    // The list draws the fork under its parent.
    const child = page.locator(`[data-testid="session-item"][data-fork-of="${parent}"]`);
    await child.waitFor({ timeout: 10000 });
    assert.equal(await child.getAttribute('data-depth'), '1');
    const ids = await page.getByTestId('session-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-session-id')));
    assert.equal(ids.indexOf(await child.getAttribute('data-session-id')), ids.indexOf(parent) + 1, 'the fork is right under its parent');
    await page.screenshot({ path: join(artifacts, 'fork-child.png') });

    // One click to the parent, and its card carries the fork's mark, one click back.
    await page.getByTestId('fork-parent-mark').first().click();
    const mark = page.getByTestId('fork-mark').first();
    await mark.waitFor({ timeout: 30000 });
    assert.match(await page.getByTestId('card-end').first().innerText(), /The parent says: one file\./);
    await mark.click();
    await page.getByText('The fork says: README.md.').first().waitFor({ timeout: 30000 });
    assert.deepEqual(errors, []);
  });
});
