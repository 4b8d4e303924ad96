// The README's screenshots, taken from the real app: `cd e2e && node screenshots.mjs`
// (build the UI first: `cd frontend && npm run build`). It writes, at 1360x900:
//   docs/overview.png  a session of several rounds of parallel calls, with
//                      the overview lane and the context chart open
//   docs/pause.png     a run paused in Step mode before a tool call, its
//                      arguments being edited in the pause card
// It uses the e2e helpers: a virtual display, the fake Ollama, the dev build
// of the app serving its UI with the real Go bindings, and Chromium.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  root, startDisplay, startFakeOllama, startDevApp, browser, newPage, waitForOllama,
  createSession, tempDir, tempDb, until,
} from './lib.mjs';

const docs = join(root, 'docs');

// The model of the pause screenshot: one tool call, then an answer.
const script = {
  models: [{ name: 'qwen3', context_length: 8192 }, { name: 'tiny', context_length: 8192 }],
  replies: [
    { tool_calls: [{ id: 'call_1', name: 'read_file', args: { path: 'NOTES.md' } }] },
    { chunks: [{ content: 'The README says the build needs Go 1.26.' }], delay_ms: 30 },
  ],
};

// The model of the overview screenshot: six rounds, most with calls at once.
// The metrics are what Ollama would report (in nanoseconds), so the lane
// has model times to draw; the delays make the stream take about as long.
const ms = 1e6;
const say = (text, delay, tokens, prompt = 150, load = 0) => {
  const chunks = text.split(/(?<= )/).map((content) => ({ content }));
  const gen = chunks.length * delay;
  return {
    chunks, delay_ms: delay, load_ms: load + prompt,
    metrics: {
      total_duration: (load + prompt + gen + 20) * ms, load_duration: load * ms,
      prompt_eval_count: tokens, prompt_eval_duration: prompt * ms, eval_count: chunks.length * 3, eval_duration: gen * ms,
    },
  };
};
const overviewScript = {
  models: [{ name: 'qwen3', context_length: 2560 }],
  replies: [
    { ...say('Let me look at the project first. ', 60, 1700, 400, 900),
      tool_calls: [{ name: 'list_dir', args: { path: '.' } }, { name: 'read_file', args: { path: 'README.md' } }, { name: 'glob', args: { pattern: '**/*.go' } }] },
    { ...say('I will read main.go and find parse. ', 40, 1790),
      tool_calls: [{ name: 'read_file', args: { path: 'main.go' } }, { name: 'grep', args: { pattern: 'func parse' } }] },
    { ...say('Now the test file. ', 90, 1880),
      tool_calls: [{ name: 'write_file', args: { path: 'main_test.go', content: 'package main\n\nimport "testing"\n\nfunc TestParse(t *testing.T) {\n\tif parse("ab") != 2 {\n\t\tt.Fatal("parse")\n\t}\n}\n' } }] },
    { ...say('The test needs a setting, and the notes. ', 50, 1990),
      tool_calls: [{ name: 'write_file', args: { path: '.env', content: 'TOKEN=1\n' } }, { name: 'read_file', args: { path: 'NOTES.md' } }] },
    { ...say('Run the test. ', 70, 2110),
      tool_calls: [{ name: 'run_command', args: { command: 'sleep 1 && echo ok main_test.go' } }] },
    say('I added main_test.go with a test for parse(), and it passes. I did not write .env: that was refused. ', 35, 2190),
  ],
};

const display = await startDisplay();
const fake = await startFakeOllama(script);
const chrome = await browser();
const apps = [];
try {
  // (1) The overview: a session of six rounds through the window, with
  // parallel reads, a command and a write approved, a write to .env denied,
  // a read of a missing file, and model times that differ round to round.
  const wsO = tempDir('loupe-shot-ws-');
  writeFileSync(join(wsO, 'README.md'), '# Demo\nBuild with Go 1.26 and Node 20.\n');
  writeFileSync(join(wsO, 'main.go'), 'package main\n\nfunc main() {}\n\nfunc parse(s string) int { return len(s) }\n');
  const fakeO = await startFakeOllama(overviewScript);
  let app = await startDevApp({ display: display.display, db: tempDb('loupe-shot-db-'), ollama: fakeO.url, name: 'app-shot-overview' });
  apps.push(app);
  try {
    const { page } = await newPage(chrome);
    await page.goto(app.url);
    await waitForOllama(page);
    await createSession(page, { workspace: wsO, model: 'qwen3' });
    const input = page.getByTestId('composer-input');
    await input.fill('Add a test for parse() and run it');
    await input.press('Control+Enter');
    // Answer each approval as it comes: the .env write is denied, the rest approved.
    const end = page.getByTestId('card-end');
    const approval = page.getByTestId('approval-card');
    for (let answered = 0; (await end.count()) === 0;) {
      if (await approval.count()) {
        const text = await approval.first().innerText();
        await page.waitForTimeout(700); // a visible wait in the lane
        await page.getByTestId(/\.env/.test(text) ? 'deny-button' : 'approve-button').first().click();
        await until('the approval answered', async () =>
          (await approval.evaluateAll((cs) => cs.map((c) => c.innerText)))[0] !== text, 15000);
        answered++;
        if (answered > 10) throw new Error('too many approvals');
      }
      await page.waitForTimeout(150);
    }
    await end.waitFor({ timeout: 60000 });
    // The overview is open by default; the Overview button (or o) toggles it.
    const toggle = page.getByTestId('overview-toggle');
    if ((await toggle.getAttribute('aria-pressed')) !== 'true') await toggle.click();
    await page.getByTestId('overview').waitFor({ timeout: 30000 });
    // Go to round 4, where the .env write was denied, so the cards below show it.
    await page.keyboard.press('Escape');
    await page.keyboard.press('g');
    await page.keyboard.type('4');
    await page.keyboard.press('Enter');
    await until('round 4 drawn', async () => (await page.locator('[data-testid="round"][data-round="4"]').count()) === 1, 10000);
    await page.waitForTimeout(300);
    // The round's head in view above its request.
    await page.getByTestId('timeline').evaluate((el) => { el.scrollTop -= 48; });
    await page.waitForTimeout(300);
    await page.mouse.move(1350, 890); // no hover box
    await page.screenshot({ path: join(docs, 'overview.png') });
    await page.close();
  } finally {
    await app.stop();
    apps.length = 0;
    await fakeO.stop();
  }

  // (2) The pause: Step mode on, a prompt, Step to the tool call's pause.
  const workspace = tempDir('loupe-shot-ws-');
  writeFileSync(join(workspace, 'README.md'), '# Demo\nBuild with Go 1.26 and Node 20.\n');
  const db = tempDb('loupe-shot-db-');
  app = await startDevApp({ display: display.display, db, ollama: fake.url, name: 'app-shot-pause' });
  apps.push(app);
  {
    const { page } = await newPage(chrome);
    const tid = (id) => page.getByTestId(id);
    const editor = tid('pause-editor');
    const pausedAt = (point) => until(`a pause at ${point}`, async () =>
      (await editor.count()) === 1 && (await editor.getAttribute('data-point')) === point &&
      (await tid('step-button').isEnabled()), 60000);
    await page.goto(app.url);
    await waitForOllama(page);
    await createSession(page, { workspace, model: 'qwen3' });
    await tid('step-controls').waitFor({ timeout: 30000 });
    await tid('step-toggle').click();
    await until('Step mode on', () => tid('step-toggle').isChecked(), 15000);
    const input = tid('composer-input');
    await input.fill('What does the README say about the build?');
    await input.press('Control+Enter');
    await pausedAt('before_request');
    await tid('step-button').click();
    await pausedAt('after_response');
    await tid('step-button').click();
    await pausedAt('before_tool');
    // The model asked for a file that is not there: put README.md instead.
    const args = tid('pause-args');
    await args.fill('{"path":"README.md"}');
    // Room for the whole pause card: the overview closed, the card scrolled into view.
    await tid('overview-toggle').click();
    await until('the overview closed', async () => (await tid('overview').count()) === 0, 10000);
    await editor.evaluate((el) => el.scrollIntoView({ block: 'end' }));
    await page.mouse.move(1350, 890);
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(docs, 'pause.png') });
    await page.close();
  }
} finally {
  for (const a of apps) await a.stop();
  await chrome.close();
  await fake.stop();
  await display.stop();
}
console.log('wrote docs/overview.png and docs/pause.png');
