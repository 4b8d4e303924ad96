// The shared replay in Chromium, opened from disk (file://) with no server
// behind it: a session recorded by the real loop (`loupe run` against the
// fake Ollama) whose prompt, file name, command output and answer are
// hostile markup, exported by `loupe export --format html`. Its cards
// appear, playback steps through it by keyboard, Raw shows a request's
// body, the find bar finds a word; and nothing of the session runs: no
// dialog, no global set, no policy violation, no request but the file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startFakeOllama, browser, newPage, goBuild, bin, windowBuild, exportReplay, tempDir, tempDb, artifacts, until } from './lib.mjs';

// Each sets window.__pwned (or opens a dialog) if any part of the page took it for markup.
const PROMPT = `Write the notes </title></script><script>window.__pwned='prompt';alert('prompt')</script>`;
const FILE = `notes-<img src=x onerror="window.__pwned='file'">.txt`;
const CONTENT = `</script><script>window.__pwned='content'</script><!-- <script>`;
const OUTPUT = `<script>window.__pwned="output"</script><img src=x onerror=alert("output")>`;
const ANSWER = `Done: the word is periwinkle. </script><script>window.__pwned='answer';alert('answer')</script> ` +
  `<img src=x onerror="window.__pwned='img'"> <svg onload="window.__pwned='svg'"></svg> ` +
  `<iframe src="javascript:window.__pwned='frame'"></iframe> [link](javascript:window.__pwned='link') \x1b[2Jcleared`;

const script = {
  models: [{ name: 'scripted', context_length: 8192 }],
  replies: [
    { tool_calls: [
      { id: 'call_1', name: 'write_file', args: { path: FILE, content: CONTENT } },
      { id: 'call_2', name: 'run_command', args: { command: `printf '%s\\n' '${OUTPUT}'` } },
    ] },
    { chunks: [{ content: ANSWER }] },
  ],
};

let fake, chrome, replay, events;
before(async () => {
  fake = await startFakeOllama(script);
  chrome = await browser();
  const workspace = tempDir('loupe-e2e-share-ws-');
  const db = tempDb('loupe-e2e-share-db-');
  const loupe = goBuild(join(bin, 'loupe'), windowBuild);
  const out = execFileSync(loupe, ['run', '--workspace', workspace, '--model', 'scripted', '--host', fake.url, '--db', db, '--auto', '--json', PROMPT],
    { encoding: 'utf8' });
  const end = JSON.parse(out.trim().split('\n').at(-1));
  assert.equal(end.payload.reason, 'answered', 'the hostile run answered');
  assert.ok(existsSync(join(workspace, FILE)), 'the hostile file name was written');
  events = end.seq;
  replay = exportReplay(db, end.session_id, join(tempDir('loupe-e2e-share-out-'), 'replay.html'));
});
after(async () => {
  await chrome?.close();
  await fake?.stop();
});

test('a shared replay opened from disk: the cards, playback by keyboard, Raw, the find bar; the hostile session runs nothing', { timeout: 180000 }, async () => {
  const { page, errors } = await newPage(chrome);
  const dialogs = [];
  const consoleErrors = [];
  const requests = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss(); });
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(m.text()); });
  page.on('request', (r) => requests.push(r.url()));
  // Every policy violation, from the first byte of the page on.
  await page.addInitScript(() => {
    window.__violations = [];
    // Where: "document" when no element of the page holds what was
    // refused (see below), else the element's tag.
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__violations.push(`${e.effectiveDirective} ${e.blockedURI} at ${e.target === document ? 'document' : e.target?.nodeName}`));
  });
  const tid = (id) => page.getByTestId(id);
  const key = (k) => page.keyboard.press(k);
  const url = pathToFileURL(replay).href;
  try {
    await page.goto(url);

    // The cards of the whole session, the answer last, and nothing to send or change.
    await tid('card-end').waitFor({ timeout: 30000 });
    await tid('shared-banner').waitFor();
    for (const kind of ['card-user', 'card-request', 'card-call', 'card-observation', 'card-response']) {
      assert.ok((await tid(kind).count()) > 0, `a ${kind}`);
    }
    assert.equal(await tid('composer-input').count(), 0, 'no composer');
    assert.equal(await tid('session-item').count(), 0, 'no session list');
    // The session's title is its prompt, cut: in the tab as text.
    const title = await page.title();
    assert.ok(title.startsWith(PROMPT.slice(0, 50)) && title.endsWith(' - Loupe replay'), `the title is the prompt, as text: ${title}`);

    // The hostile text is on the cards as text: the prompt, the file name,
    // the command's output; the answer's control character shown, not obeyed.
    assert.ok((await tid('card-user').innerText()).includes(PROMPT), 'the prompt shown as written');
    const calls = (await tid('card-call').allInnerTexts()).join('\n');
    assert.ok(calls.includes(FILE), `the file name shown as written:\n${calls}`);
    const outputs = (await tid('card-observation').allInnerTexts()).join('\n');
    assert.ok(outputs.includes(OUTPUT), `the command's output shown as written:\n${outputs}`);
    const answer = await tid('card-response').last().innerText();
    assert.match(answer, /the word is periwinkle/);
    assert.ok(answer.includes('\\x1b[2Jcleared'), `ESC shown escaped, as the window shows it: ${answer}`);

    // Playback by keyboard: p starts at event 1 of N, → and ← step, End and Home go to the ends.
    const pos = tid('playback-position');
    const at = async () => [Number(await pos.getAttribute('data-position')), Number(await pos.getAttribute('data-total'))];
    await page.locator('body').focus();
    await key('p');
    await pos.waitFor({ timeout: 10000 });
    assert.deepEqual(await at(), [1, events], 'playback starts at 1 / N');
    assert.equal((await pos.innerText()).trim(), `1 / ${events}`);
    await key('ArrowRight');
    await key('ArrowRight');
    await until('playback at 3', async () => (await at())[0] === 3, 5000);
    assert.equal(await tid('card-end').count(), 0, 'the end is not shown before its event');
    await key('End');
    await until('playback at the last event', async () => (await at())[0] === events, 5000);
    await tid('card-end').waitFor({ timeout: 5000 });
    await key('ArrowLeft');
    await until('playback one back', async () => (await at())[0] === events - 1, 5000);
    await key('Home');
    await until('playback at 1 again', async () => (await at())[0] === 1, 5000);
    await key('p');
    await until('playback left', async () => (await pos.count()) === 0, 5000);
    await tid('card-end').waitFor({ timeout: 5000 });

    // Raw of the first request, by keyboard: the body sent to Ollama, from the file.
    const toggle = tid('card-request').first().getByTestId('raw-toggle');
    await toggle.focus();
    await key('Enter');
    const raw = tid('raw-content').first();
    await raw.waitFor({ timeout: 10000 });
    await until('the body shown', async () => (await raw.innerText()).includes('"messages"'), 10000);
    const body = await raw.innerText();
    assert.ok(body.includes('"model"') && body.includes('scripted'), `the request's model in Raw:\n${body.slice(0, 400)}`);
    assert.ok(body.includes("window.__pwned='prompt'"), 'the prompt in the body, as text');
    await key('Escape');

    // The find bar: Ctrl+F, a word of the answer, Enter goes to the match.
    await page.locator('body').focus();
    await key('Control+f');
    await until('the cursor in the find bar', () => page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'search-input'), 5000);
    await page.keyboard.type('periwinkle');
    const count = async () => (await tid('search-count').count()) ? (await tid('search-count').innerText()).trim() : '(none)';
    await until('the match counted', async () => / of \d+$/.test(await count()), 10000).catch(async (e) => { throw new Error(`${e.message}: ${await count()}`); });
    const matches = Number((await count()).split(' of ')[1]);
    assert.ok(matches >= 1, 'the answer matches');
    await key('Enter');
    await until('the match focused', async () => (await count()) === `1 of ${matches}`, 10000);
    await until('the card marked', () => page.evaluate(() => document.querySelector('.match [data-card-id]')?.getAttribute('data-testid')), 10000);

    await page.screenshot({ path: join(artifacts, 'share.png') });

    // Nothing of the session ran, nothing was refused (nothing even tried),
    // and the page asked for nothing but itself.
    assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no script of the session ran');
    assert.deepEqual(dialogs, [], 'no dialog opened');
    // Chromium reports an inline event handler refused whenever HTML that
    // holds one is parsed under the policy, even in the inert document the
    // sanitizer of the answer's Markdown (DOMPurify) parses it in, before it
    // drops the attribute: those reports, with no element of the page
    // behind them, are the only ones allowed. A handler that reached the
    // page would be reported at its element (the probe below shows it), an
    // image, frame or script at its own directive.
    const violations = await page.evaluate(() => window.__violations);
    assert.deepEqual(violations.filter((v) => v !== 'script-src-attr inline at document'), [], 'no policy violation in the page');
    assert.deepEqual(consoleErrors.filter((m) => !/^Executing inline event handler violates/.test(m) && !/^Refused to execute inline event handler/.test(m)), [],
      'no console error or warning but those reports');
    assert.equal(consoleErrors.length, violations.length, 'one console line a report');
    assert.deepEqual(errors, [], 'no page error');
    assert.deepEqual(requests.filter((u) => u !== url && !u.startsWith('data:')), [], 'no request but the file');

    // The policy is in force, and those checks see it at work: a script put
    // into the page does not run, a fetch is refused, each reported.
    const probe = await page.evaluate(async () => {
      const s = document.createElement('script');
      s.textContent = 'window.__probe = 1';
      document.body.append(s);
      document.body.insertAdjacentHTML('beforeend', '<b id="probe" onclick="window.__probe = 2">x</b>');
      document.getElementById('probe').click();
      let fetched = 'yes';
      try { await fetch('http://127.0.0.1:9/'); } catch { fetched = 'refused'; }
      await new Promise((r) => setTimeout(r, 100));
      return { ran: window.__probe ?? null, fetched, violations: window.__violations };
    });
    assert.equal(probe.ran, null, 'an injected script does not run');
    assert.equal(probe.fetched, 'refused');
    const added = probe.violations.slice(violations.length);
    for (const want of ['script-src-elem inline at SCRIPT', 'script-src-attr inline at B', 'connect-src http://127.0.0.1:9/ at document']) {
      assert.ok(added.includes(want), `${want} reported: ${added.join('; ')}`);
    }
    assert.ok(consoleErrors.some((m) => /Content Security Policy/.test(m)), 'and the console says so');
  } finally {
    await page.close();
  }
});

test('the replay file holds the session only as data', () => {
  const html = readFileSync(replay, 'utf8');
  for (const m of ["<script>window.__pwned", '<img src=x', '<svg onload', '<iframe']) {
    assert.ok(!html.includes(m), `the file holds ${m} as markup`);
  }
});
