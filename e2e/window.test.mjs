// A smoke test of the real window: the production binary, its WebKit view on
// a virtual display, with no Ollama running. It must open, draw, and say
// plainly what to do.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startDisplay, start, goBuild, bin, windowBuild, tempDir, artifacts, until, freePort } from './lib.mjs';

let display;
before(async () => { display = await startDisplay(); });
after(async () => { await display?.stop(); });

function sh(cmd, args, env = {}) {
  return execFileSync(cmd, args, { env: { ...process.env, DISPLAY: display.display, ...env }, encoding: 'utf8' }).trim();
}

test('the real window opens without Ollama and explains what to do', { timeout: 240000 }, async () => {
  const exe = goBuild(join(bin, 'loupe'), windowBuild);
  const closed = await freePort(); // nothing listens here
  const db = join(tempDir('loupe-window-'), 'loupe.db');
  const app = start('window-app', exe, [], {
    env: { ...process.env, DISPLAY: display.display, LOUPE_DB: db, OLLAMA_HOST: `http://127.0.0.1:${closed}` },
  });
  try {
    const id = await until('the Loupe window', () => {
      try {
        return sh('xdotool', ['search', '--onlyvisible', '--name', '^Loupe$']).split('\n')[0];
      } catch { return ''; }
    }, 60000);
    const shot = join(artifacts, 'window.png');
    // The page needs a moment to load and ask for the status.
    const text = await until('the window to show the Ollama message and the demo', () => {
      sh('import', ['-window', id, shot]);
      const crop = join(artifacts, 'window-ocr.png');
      sh('convert', [shot, '-resize', '200%', crop]);
      const t = sh('tesseract', [crop, '-', '--psm', '3'], { OMP_THREAD_LIMIT: '1' });
      return /not (running|installed)/i.test(t) && /Try the demo/i.test(t) ? t : '';
    }, 60000);
    assert.match(text, /Loupe/);
    // No Ollama on this machine: the window says how to get it (or start
    // it, where it is installed), and offers the demo, which needs none.
    assert.match(text, /install\.sh|ollama serve/i, 'the window says how to get or start Ollama');
    assert.match(text, /no Ollama needed/i);
    const size = sh('identify', ['-format', '%w %h', shot]).split(' ').map(Number);
    assert.ok(size[0] >= 880 && size[1] >= 560, `window is ${size.join('x')}`);
  } finally {
    await app.stop();
  }
});
