// The idle-CPU benchmark of docs/BENCHMARKS.md. The production binary opens
// its real window (WebKitGTK) on a virtual display with no Ollama anywhere;
// the window is driven with real key presses (xdotool) and left alone in
// each of these states:
//   - home: the first page, as a newcomer sees it;
//   - paused (tour): the demo, paused before its first request, with the
//     guided tour it opens with;
//   - paused: the same pause once the tour is closed (Esc);
//   - ended: the demo stepped to its end (s at each pause, a at each
//     question), its session left open.
// In each, once the window's picture has stopped changing (the window may
// still be drawing the last steps when the log has reached the state: a
// slow machine draws them seconds after the run moved on) and a few
// seconds more, it reads the CPU time (utime +
// stime of /proc/PID/stat) of the app's process and every process it
// started (WebKitWebProcess, WebKitNetworkProcess) before and after the
// idle span, and prints the share of one core each used. CPU time, not
// wall-clock load: the machine may be busy with other work, which does not
// count here. Where the run is is read from the session's log in the
// database (sqlite3), not from the screen.
//
//   bash bench/idle/run.sh [--seconds 30]
import { parseArgs } from 'node:util';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { startDisplay, start, goBuild, bin, windowBuild, x11, appWindow, until, tempDb, freePort } from '../../e2e/lib.mjs';

const { values: opts } = parseArgs({ options: { seconds: { type: 'string', default: '30' }, settle: { type: 'string', default: '5' } } });
const seconds = Math.max(1, Number(opts.seconds));
const settle = Math.max(0, Number(opts.settle));
const TICK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** pid → { comm, ticks } for `root` and all its descendants. */
function tree(root) {
  const all = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = readFileSync(`/proc/${d}/stat`, 'utf8');
      const comm = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
      // After "pid (comm) ": state ppid ... utime is field 14, stime 15 (1-based, whole line).
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      all.set(Number(d), { comm, ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch { /* gone meanwhile */ }
  }
  const out = new Map();
  const walk = (pid) => {
    const p = all.get(pid);
    if (!p || out.has(pid)) return;
    out.set(pid, p);
    for (const [c, q] of all) if (q.ppid === pid) walk(c);
  };
  walk(root);
  return out;
}

/**
 * Waits until the window's picture is the same in three looks a second
 * apart (up to a minute), and returns how long that took in seconds. The
 * picture is read from the X server, not from the app.
 */
async function still(display, id) {
  const t0 = Date.now();
  const look = () => createHash('sha1').update(execFileSync('import', ['-window', id, 'rgb:-'], { env: { ...process.env, DISPLAY: display }, maxBuffer: 1 << 26 })).digest('hex');
  let last = look();
  for (let same = 0; same < 2 && Date.now() - t0 < 60000;) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = look();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return (Date.now() - t0) / 1000;
}

/** The share of a core (in %) each kind of process used over `seconds` of nothing happening, once the window is still. */
async function idle(pid, display, id) {
  const drawn = await still(display, id);
  await new Promise((r) => setTimeout(r, settle * 1000));
  const a = tree(pid);
  const t0 = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const b = tree(pid);
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const by = {};
  for (const [p, q] of b) {
    const used = q.ticks - (a.get(p)?.ticks ?? 0);
    const name = p === pid ? 'loupe' : q.comm;
    by[name] = (by[name] ?? 0) + used;
  }
  const pct = {};
  for (const [k, v] of Object.entries(by)) pct[k] = (100 * v) / TICK / wall;
  return { pct, drawn };
}

function sql(db, q) {
  return execFileSync('sqlite3', ['-readonly', db, q], { encoding: 'utf8' }).trim();
}
/** The newest event of the newest session: "seq|kind|state-or-decision". */
function last(db) {
  return sql(db, `SELECT seq, kind, coalesce(json_extract(payload, '$.state'), json_extract(payload, '$.decision'), '')
    FROM events WHERE session_id = (SELECT id FROM sessions ORDER BY created_at DESC LIMIT 1) ORDER BY seq DESC LIMIT 1`);
}

const display = await startDisplay();
const exe = goBuild(join(bin, 'loupe'), windowBuild);
const db = tempDb('loupe-bench-idle-');
const closed = await freePort(); // nothing listens here: no Ollama
const app = start('bench-idle', exe, [], { env: { ...process.env, DISPLAY: display.display, LOUPE_DB: db, OLLAMA_HOST: `http://127.0.0.1:${closed}` } });
const rows = [];
let workspace = '';
try {
  const id = await appWindow(display.display, app.pid);
  const key = (k) => {
    x11(display.display, 'xdotool', ['windowfocus', '--sync', id]);
    x11(display.display, 'xdotool', ['key', '--clearmodifiers', k]);
  };
  await new Promise((r) => setTimeout(r, 4000)); // the page loads and asks for Ollama's status
  rows.push(['home', await idle(app.pid, display.display, id)]);

  // The demo offer has the keyboard on a first run with no Ollama.
  await until('the demo to pause before its first request', () => {
    const l = last(db).split('|');
    if (l[1] === 'checkpoint' && l[2] === 'paused') return true;
    if (!l[0]) key('Return');
    return false;
  }, 60000);
  workspace = sql(db, 'SELECT workspace FROM sessions ORDER BY created_at DESC LIMIT 1');
  rows.push(['paused (tour)', await idle(app.pid, display.display, id)]);
  key('Escape');
  rows.push(['paused', await idle(app.pid, display.display, id)]);

  // Step to the end: s at a pause, a at a question.
  await until('the demo to end', async () => {
    const [seq, kind, state] = last(db).split('|');
    if (kind === 'run_end') return true;
    if ((kind === 'checkpoint' && state === 'paused') || (kind === 'permission' && state === 'ask')) {
      key(kind === 'permission' ? 'a' : 's');
      await until(`a step from event ${seq}`, () => last(db).split('|')[0] !== seq, 15000).catch(() => {});
    }
    return false;
  }, 240000);
  rows.push(['ended', await idle(app.pid, display.display, id)]);
} finally {
  await app.stop();
  await display.stop();
  if (workspace.includes('loupe-demo-')) rmSync(workspace, { recursive: true, force: true });
}

const rev = (() => {
  try { return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim(); } catch { return '?'; }
})();
const kinds = ['loupe', 'WebKitWebProces', 'WebKitNetworkPr'];
const others = [...new Set(rows.flatMap(([, r]) => Object.keys(r.pct)))].filter((k) => !kinds.includes(k));
const cols = [...kinds, ...others];
const name = (k) => ({ WebKitWebProces: 'WebKitWebProcess', WebKitNetworkPr: 'WebKitNetworkProcess' })[k] ?? k;
console.log(`CPU over ${seconds} s idle, % of one core (utime+stime from /proc), ${rev}`);
console.log(`| state | still after | ${cols.map(name).join(' | ')} | all |`);
console.log(`|---|---:|${cols.map(() => '---:').join('|')}|---:|`);
for (const [state, { pct, drawn }] of rows) {
  const total = Object.values(pct).reduce((a, b) => a + b, 0);
  console.log(`| ${state} | ${drawn.toFixed(0)} s | ${cols.map((k) => (pct[k] ?? 0).toFixed(1)).join(' | ')} | ${total.toFixed(1)} |`);
}
