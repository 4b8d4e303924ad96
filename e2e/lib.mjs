// Shared pieces of the end-to-end tests: a virtual display, the fake
// Ollama server, the app itself (a dev build that serves its UI and real Go
// bindings over HTTP, or the production binary in its real window), and
// Debian's Chromium driven by playwright-core.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const artifacts = join(root, 'e2e', 'artifacts');
mkdirSync(artifacts, { recursive: true });

const children = new Set();
process.on('exit', () => {
  for (const c of children) {
    try { process.kill(-c.pid, 'SIGKILL'); } catch { /* already gone */ }
  }
});

/** A free TCP port on loopback. */
export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/** Starts a process in its own group; its output goes to artifacts/NAME.log. */
export function start(name, cmd, args, opts = {}) {
  const log = join(artifacts, `${name}.log`);
  const out = [];
  const child = spawn(cmd, args, { ...opts, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  writeFileSync(log, '');
  // Appended, not rewritten: a chatty process must not wait on its own log.
  const onData = (d) => { out.push(d.toString()); appendFileSync(log, d); };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  child.exited = new Promise((r) => child.on('exit', (code, sig) => { children.delete(child); r({ code, sig }); }));
  child.output = () => out.join('');
  child.stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try { process.kill(-child.pid, 'SIGTERM'); } catch { return; }
    const t = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, 5000);
    await child.exited;
    clearTimeout(t);
  };
  return child;
}

/** Polls fn until it returns a truthy value or the time is up. */
export async function until(what, fn, ms = 30000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) { last = e; }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

/** Starts Xvfb on a free display number. */
export async function startDisplay() {
  // Xvfb picks a free display number itself (-displayfd) and writes it
  // once it listens: two test processes never race for the same one.
  const child = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1440x900x24', '-nolisten', 'tcp'],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  children.add(child);
  const log = join(artifacts, 'xvfb.log');
  child.stderr.on('data', (d) => appendFileSync(log, d));
  child.exited = new Promise((r) => child.on('exit', (code, sig) => { children.delete(child); r({ code, sig }); }));
  child.stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try { process.kill(-child.pid, 'SIGTERM'); } catch { return; }
    const t = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, 5000);
    await child.exited;
    clearTimeout(t);
  };
  const n = await new Promise((res, rej) => {
    let got = '';
    const t = setTimeout(() => rej(new Error('timed out waiting for Xvfb to say its display')), 30000);
    child.stdio[3].on('data', (d) => {
      got += d.toString();
      if (got.includes('\n')) { clearTimeout(t); res(Number(got.trim())); }
    });
    child.on('exit', (code) => { clearTimeout(t); rej(new Error(`Xvfb exited (${code}); see ${log}`)); });
  });
  child.display = `:${n}`;
  return child;
}

/** Builds a Go binary once per test process. */
const built = new Map();
export function goBuild(out, args) {
  if (!built.has(out)) {
    execFileSync('go', ['build', ...args, '-o', out, '.'], { cwd: root, stdio: 'inherit', env: { ...process.env, CGO_ENABLED: '1' } });
    built.set(out, true);
  }
  return out;
}

export const bin = join(root, 'build', 'e2e');
/** How the production binary (the real window, and `loupe run`) is built. */
export const windowBuild = ['-tags', 'desktop,production', '-ldflags', '-w -s'];

/** The fake Ollama server, serving a script file. */
export async function startFakeOllama(script) {
  const exe = join(bin, 'fakeollama');
  if (!built.has(exe)) {
    execFileSync('go', ['build', '-o', exe, './backend/ollama/ollamatest/cmd/fakeollama'], { cwd: root, stdio: 'inherit' });
    built.set(exe, true);
  }
  const dir = mkdtempSync(join(tmpdir(), 'loupe-fake-'));
  const file = join(dir, 'script.json');
  writeFileSync(file, JSON.stringify(script));
  const port = await freePort();
  const p = start('fakeollama', exe, ['-script', file, '-addr', `127.0.0.1:${port}`]);
  p.url = `http://127.0.0.1:${port}`;
  await until('fake Ollama', async () => (await fetch(`${p.url}/api/version`)).ok);
  return p;
}

/**
 * A database holding one session of a single run of `rounds` rounds,
 * recorded by the real loop (`loupe run`) against `fakeollama -rounds`:
 * each round asks for `calls` list_dir calls at once, and with envEvery
 * every so many rounds' last call writes .env, which Loupe refuses.
 * Returns { db, workspace, events, session } (events: how many the log
 * holds; session: its id).
 */
export async function longSessionDb({ rounds, calls = 1, envEvery = 0, prefix = 'loupe-long-' }) {
  const exe = join(bin, 'fakeollama');
  if (!built.has(exe)) {
    execFileSync('go', ['build', '-o', exe, './backend/ollama/ollamatest/cmd/fakeollama'], { cwd: root, stdio: 'inherit' });
    built.set(exe, true);
  }
  const loupe = goBuild(join(bin, 'loupe'), windowBuild);
  const port = await freePort();
  const fake = start(`fakeollama-rounds-${rounds}`, exe,
    ['-addr', `127.0.0.1:${port}`, '-rounds', String(rounds), '-calls', String(calls), '-env-every', String(envEvery)]);
  try {
    const url = `http://127.0.0.1:${port}`;
    await until('fake Ollama', async () => (await fetch(`${url}/api/version`)).ok);
    const workspace = tempDir(`${prefix}ws-`);
    writeFileSync(join(workspace, 'README.md'), '# A folder listed many times\n');
    const db = tempDb(`${prefix}db-`);
    const out = execFileSync(loupe, ['run', '--workspace', workspace, '--model', 'tiny', '--host', url, '--db', db,
      '--auto', '--max-rounds', String(Math.min(1000, rounds)), '--compact', 'off', '--json', `List the folder ${rounds} times`],
    { encoding: 'utf8', maxBuffer: 1 << 30 });
    const lines = out.trim().split('\n');
    const end = JSON.parse(lines.at(-1));
    if (end.kind !== 'run_end' || end.payload.reason !== 'answered') throw new Error(`the long run did not answer: ${lines.at(-1).slice(0, 300)}`);
    return { db, workspace, events: end.seq, session: end.session_id };
  } finally {
    await fake.stop();
  }
}

/**
 * Starts a -tags dev build of the app: it opens its GTK window on the
 * virtual display and serves the UI with the real Go bindings at an HTTP
 * address, which Chromium then drives.
 */
export async function startDevApp({ display, db, ollama, name = 'app' }) {
  const exe = goBuild(join(bin, 'loupe-dev'), ['-tags', 'dev']);
  const port = await freePort();
  // The dev build parses flags of its own; give it everything by env.
  const app = start(name, exe, [], {
    cwd: root,
    // Info, not the dev build's Trace: Trace logs every call's whole result
    // (megabytes for a long session), which the window never pays for.
    env: { ...process.env, DISPLAY: display, OLLAMA_HOST: ollama, LOUPE_DB: db, loglevel: process.env.LOUPE_DEV_LOGLEVEL || 'Info',
      assetdir: join(root, 'frontend', 'dist'), devserver: `127.0.0.1:${port}` },
  });
  app.url = `http://127.0.0.1:${port}`;
  await until('the app to serve its UI', async () => (await fetch(app.url)).ok, 60000);
  return app;
}

/** Debian's Chromium through playwright-core. */
export async function browser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

export function tempDir(prefix) {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A database file in a new temporary directory. */
export function tempDb(prefix) {
  return join(tempDir(prefix), 'loupe.db');
}

/**
 * The setup every browser test shares: registers before/after hooks that
 * start a virtual display, an Ollama serving `script` (the fake one, or
 * startScriptedOllama for a real server) and Chromium, and stop them
 * again. Returns { display, ollama, chrome }, filled in once `before` ran.
 */
export function withApp(script, { startOllama = startFakeOllama } = {}) {
  const env = { display: null, ollama: null, chrome: null };
  before(async () => {
    env.display = await startDisplay();
    env.ollama = await startOllama(script);
    env.chrome = await browser();
  });
  after(async () => {
    await env.chrome?.close();
    await env.ollama?.stop();
    await env.display?.stop();
  });
  return env;
}

/** A new page of the usual size; `errors` collects its uncaught errors. */
export async function newPage(chrome) {
  const page = await chrome.newPage({ viewport: { width: 1360, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, errors };
}

/** Waits for the page to show Ollama as reachable. */
export async function waitForOllama(page, ms = 30000) {
  await page.getByTestId('ollama-status').waitFor();
  await until('Ollama shown as reachable', async () => (await page.getByTestId('ollama-status').getAttribute('data-reachable')) === 'true', ms);
}

/** Creates a session through the UI: New session, the workspace path, the model, Create. */
export async function createSession(page, { workspace, model = 'scripted' }) {
  await page.getByTestId('new-session').click();
  await page.getByTestId('workspace-path').fill(workspace);
  // The model list may still be loading (a real server lists its models late).
  // By its name as Ollama lists it (a name without a tag is listed with
  // :latest), not by the text shown: the built-in demo's option says
  // "scripted" too.
  const option = page.locator([model, `${model}:latest`].map((m) => `[data-testid="model-option"][data-model="${m}"]`).join(', '));
  await option.waitFor({ timeout: 30000 });
  await option.getByRole('radio').check();
  await page.getByTestId('create-session').click();
}

/**
 * Opens "What the model saw" of the latest request and its view "As the
 * model read it"; resolves with the rendered prompt's text once Ollama has
 * answered (or throws with the error the view shows).
 */
export async function openModelRead(page) {
  await page.getByTestId('model-saw-button').click();
  const saw = page.getByTestId('model-saw');
  await saw.getByTestId('model-saw-view-read').click();
  const text = saw.getByTestId('rendered-text');
  const error = saw.getByTestId('rendered-error');
  await Promise.race([text.waitFor({ timeout: 30000 }), error.waitFor({ timeout: 30000 })]);
  if (await error.count()) throw new Error(`the view says: ${await error.innerText()}`);
  return { saw, text: await text.innerText(), note: await saw.getByTestId('rendered-note').innerText() };
}

/** Types a prompt into the composer and sends it with Ctrl+Enter. */
export async function sendPrompt(page, text) {
  const input = page.getByTestId('composer-input');
  await input.fill(text);
  await input.press('Control+Enter');
}

/**
 * A REAL Ollama server serving scripted models: testkit/cmd/scripted-ollama,
 * given a script in its JSON shape, e.g.
 *   { models: [{ name: 'scripted', steps: [{ calls: [{ name: 'list_dir', args: { path: '.' } }] }, { answer: 'Done.' }] }] }
 * The server binary is $LOUPE_OLLAMA_BIN or the one scripts/real-ollama/build.sh
 * has cached; when there is none this throws saying so (it does not build it:
 * that takes minutes). The command holds a pipe on its stdin and stops the
 * server's whole process group when the pipe closes, so the server dies with
 * this process however it ends. Its output goes to artifacts/scripted-ollama.log
 * and the server's own log to artifacts/real-ollama-server.log.
 */
export async function startScriptedOllama(script) {
  let ollamaBin = process.env.LOUPE_OLLAMA_BIN;
  if (ollamaBin) {
    if (!existsSync(ollamaBin)) throw new Error(`no real Ollama server binary: LOUPE_OLLAMA_BIN=${ollamaBin} does not exist`);
  } else {
    try {
      const out = execFileSync('bash', [join(root, 'scripts', 'real-ollama', 'build.sh'), '--cached'],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      ollamaBin = out.trim().split('\n').at(-1);
    } catch (e) {
      throw new Error(`no real Ollama server binary: ${(e.stderr || '').toString().trim() || e.message}`);
    }
  }

  const exe = join(bin, 'scripted-ollama');
  if (!built.has(exe)) {
    execFileSync('go', ['build', '-o', exe, './testkit/cmd/scripted-ollama'], { cwd: root, stdio: 'inherit' });
    built.set(exe, true);
  }
  const file = join(mkdtempSync(join(tmpdir(), 'loupe-scripted-')), 'script.json');
  writeFileSync(file, JSON.stringify(script));

  const log = join(artifacts, 'scripted-ollama.log');
  const out = [];
  // Not in `children`: their SIGKILL on exit would leave the server, which
  // runs in a process group of its own, behind. On exit the stdin pipe
  // closes, and a SIGTERM makes sure.
  const p = spawn(exe, ['-script', file, '-server-log', join(artifacts, 'real-ollama-server.log')], {
    cwd: root, detached: true, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, LOUPE_OLLAMA_BIN: ollamaBin },
  });
  const onExit = () => { try { process.kill(p.pid, 'SIGTERM'); } catch { /* gone */ } };
  process.on('exit', onExit);
  let serverGroup = 0;
  let listening;
  const ready = new Promise((r) => { listening = r; });
  const onData = (d) => {
    out.push(d.toString());
    const all = out.join('');
    writeFileSync(log, all);
    serverGroup = Number(/ollama serve pid (\d+)/.exec(all)?.[1] ?? 0);
    const url = /scripted-ollama listening on (\S+)\n/.exec(all)?.[1];
    if (url) listening(url);
  };
  p.stdout.on('data', onData);
  p.stderr.on('data', onData);
  p.exited = new Promise((r) => p.on('exit', (code, sig) => { process.off('exit', onExit); r({ code, sig }); }));
  const closed = new Promise((r) => p.on('close', r)); // all output read
  p.output = () => out.join('');
  p.stop = async () => {
    if (p.exitCode === null && p.signalCode === null) {
      p.stdin.end();
      try { process.kill(p.pid, 'SIGTERM'); } catch { /* gone */ }
      const t = setTimeout(() => {
        // Last resort: the command did not stop in time; kill it and the server's group.
        for (const pid of [p.pid, serverGroup]) {
          try { if (pid) process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
        }
      }, 15000);
      await p.exited;
      clearTimeout(t);
    }
  };

  // Ready when the line is printed; failed when the command exits first or
  // takes too long (start-up and model creation take about a second).
  let timer;
  try {
    p.url = await Promise.race([
      ready,
      p.exited.then(async ({ code, sig }) => {
        await closed;
        throw new Error(`scripted-ollama exited (code ${code}, signal ${sig})`);
      }),
      new Promise((_, rej) => { timer = setTimeout(() => rej(new Error('no address printed within 60 s')), 60000); }),
    ]);
  } catch (e) {
    await p.stop();
    throw new Error(`the real Ollama server did not start: ${e.message}\n${p.output()}`);
  } finally {
    clearTimeout(timer);
  }
  return p;
}

// ---- The real window, as a window manager sees it ----
// Xvfb runs no window manager, so nothing would ever ask the window to
// close. These helpers do what one does: a WM_DELETE_WINDOW message
// (wmclose.py; `xdotool windowclose` would destroy the window instead, and
// GTK's delete-event, so the app's "close?" question, would never run).

/** Runs an X client on `display` and returns its trimmed output. */
export function x11(display, cmd, args) {
  return execFileSync(cmd, args, { env: { ...process.env, DISPLAY: display }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** The X windows that match xdotool search ARGS, or [] (xdotool exits 1 when none does). */
export function findWindows(display, args) {
  try {
    return x11(display, 'xdotool', ['search', ...args]).split('\n').filter(Boolean);
  } catch { return []; }
}

/** Waits for the app's main window: the visible window named "Loupe" of process `pid`. */
export function appWindow(display, pid, ms = 60000) {
  return until(`the Loupe window of process ${pid}`,
    () => findWindows(display, ['--all', '--onlyvisible', '--pid', String(pid), '--name', '^Loupe$'])[0], ms);
}

/** Asks window `id` to close as a window manager's close button does. */
export function wmClose(display, id) {
  x11(display, 'python3', [join(root, 'e2e', 'wmclose.py'), id]);
}

/** The visible "Close Loupe?" question dialog, or undefined. */
export function closeDialog(display) {
  return findWindows(display, ['--onlyvisible', '--name', '^Close Loupe\\?$'])[0];
}

/**
 * Answers GTK's Yes/No question dialog `id` from the keyboard and waits for
 * it to close: gives it the input focus (there is no window manager to do
 * that), then presses the button's mnemonic, Alt+Y for "_Yes" or Alt+N for
 * "_No", as real key presses (XTEST). Tried here: Return alone answers No
 * (GTK focuses the first button, No), and keys sent to the window with
 * XSendEvent (`xdotool key --window`) are ignored. A press that came too
 * early to count is pressed again, only while the dialog is still there.
 */
export async function answerDialog(display, id, answer, ms = 15000) {
  const end = Date.now() + ms;
  const open = () => findWindows(display, ['--onlyvisible', '--name', '^Close Loupe\\?$']).includes(id);
  for (;;) {
    try {
      x11(display, 'xdotool', ['windowfocus', '--sync', id]);
      x11(display, 'xdotool', ['key', '--clearmodifiers', answer === 'yes' ? 'alt+y' : 'alt+n']);
    } catch (e) {
      if (!open()) return; // it closed between the look and the press
      throw e;
    }
    const stop = Math.min(end, Date.now() + 3000);
    while (Date.now() < stop) {
      if (!open()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (Date.now() >= end) throw new Error(`the dialog ${id} did not close within ${ms} ms of answering ${answer}`);
  }
}

/** Saves a screenshot of X window `id` as artifacts/NAME.png. */
export function screenshotWindow(display, id, name) {
  const file = join(artifacts, `${name}.png`);
  x11(display, 'import', ['-window', id, file]);
  return file;
}

/** Whether process `pid` still runs (a zombie counts as gone). */
export function alive(pid) {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch { return false; }
}

/** The pids of the processes whose argv is exactly `argv`, on the whole machine. */
export function processesWithArgv(argv) {
  const want = argv.join('\0');
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const got = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0$/, '');
      if (got === want && alive(name)) out.push(Number(name));
    } catch { /* gone meanwhile */ }
  }
  return out;
}

/** The live processes of process group `pgid` (a process start()ed leads its own). */
export function processGroup(pgid) {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // pid (comm) state ppid pgrp ...: comm may hold spaces, so count from its ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') out.push(Number(name));
    } catch { /* gone meanwhile */ }
  }
  return out;
}

/** `loupe export SESSION --format json --db DB` with the dev build of the app, parsed. */
export function exportSession(db, session) {
  const exe = goBuild(join(bin, 'loupe-dev'), ['-tags', 'dev']);
  return JSON.parse(execFileSync(exe, ['export', session, '--format', 'json', '--db', db], { encoding: 'utf8' }));
}

/**
 * The shared replay of a stored session, written to FILE by the production
 * binary (`loupe export SESSION --format html --out FILE`), as a user would.
 */
export function exportReplay(db, session, file) {
  const exe = goBuild(join(bin, 'loupe'), windowBuild);
  execFileSync(exe, ['export', session, '--format', 'html', '--db', db, '--out', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  return file;
}
