// The set-up of the browser tests that start from a finished run (fork,
// run from here on): a folder holding README.md, the app on a database of
// its own, a page on it, a session on the model scripted and one prompt
// run to its end.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevApp, newPage, waitForOllama, createSession, sendPrompt, tempDir, tempDb, artifacts } from './lib.mjs';

/**
 * Runs body({ page, errors, db, workspace, parent }) after the run of
 * prompt, parent being its session's id, in the env withApp gives. A
 * failure leaves a screenshot NAME-failure.png in artifacts; the page and
 * the app are closed either way.
 */
export async function afterOneRun(env, name, prompt, body) {
  const { display, ollama, chrome } = env;
  const workspace = tempDir(`loupe-e2e-${name}-`);
  writeFileSync(join(workspace, 'README.md'), 'hello\n');
  const db = tempDb(`loupe-e2e-${name}-db-`);
  const app = await startDevApp({ display: display.display, db, ollama: ollama.url, name: `app-${name}` });
  const { page, errors } = await newPage(chrome);
  try {
    await page.goto(app.url);
    await waitForOllama(page);
    await createSession(page, { workspace, model: 'scripted' });
    await sendPrompt(page, prompt);
    await page.getByTestId('card-end').getByTestId('stop-reason').waitFor({ timeout: 60000 });
    const parent = await page.getByTestId('session-item').first().getAttribute('data-session-id');
    await body({ page, errors, db, workspace, parent });
  } catch (e) {
    await page.screenshot({ path: join(artifacts, `${name}-failure.png`), fullPage: true }).catch(() => {});
    throw e;
  } finally {
    await page.close();
    await app.stop();
  }
}
