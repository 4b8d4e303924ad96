// @vitest-environment jsdom
// One derived state for the window (DESIGN.md): at every prefix of every
// recording the engine wrote (the replay recordings, the golden logs, the
// demo's run), the session view is drawn with the real components and no
// two parts of it may disagree with each other or with the log. The same
// walk again in playback, at every position.
//
// The checks read what a person reads: text, roles, aria. The log's own
// reading (oracle below) is a few lines of plain rules from
// docs/ARCHITECTURE.md "The window", kept apart from the code under test.
import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { BridgeError } from '../lib/bridge/types';
import { ReplayBridge } from '../lib/replay/bridge';
import { allRecordings } from '../lib/replay/recordings';
import type { Recording, Step } from '../lib/replay/recording';
import { ThemeState } from '../lib/state';
import { parseEvent, type LocalOllama, type StatusInfo, type TraceEvent } from '../lib/types';
import AppShell from './AppShell.svelte';

const goldenFiles = import.meta.glob<unknown>('../../../backend/session/testdata/golden/*.json', { eager: true, import: 'default' });

// --- the recordings ------------------------------------------------------------------

interface Source {
  name: string;
  events: TraceEvent[];
  model: string;
}

function sources(): Source[] {
  const out: Source[] = [];
  for (const [name, rec] of allRecordings()) {
    const events = rec.steps.flatMap((s) => (s.event !== undefined ? [parseEvent(s.event)!] : [])).filter((e) => e != null);
    if (events.length === 0) continue;
    const req = events.find((e) => e.kind === 'model_request');
    const model = req?.kind === 'model_request' ? req.payload.model : 'qwen3:0.6b';
    out.push({ name: `recording ${name}`, events, model });
  }
  for (const [path, json] of Object.entries(goldenFiles)) {
    const name = path.replace(/^.*\/(.*)\.json$/, '$1');
    const events = (json as Record<string, unknown>[]).map((e, i) =>
      parseEvent({ session_id: 'session-1', time: `2026-01-05T10:00:${String(i % 60).padStart(2, '0')}Z`, ...e }),
    );
    out.push({ name: `golden ${name}`, events: events.filter((e): e is TraceEvent => e != null), model: 'scripted' });
  }
  return out;
}

// --- Ollama's three states -------------------------------------------------------------

const local = (installed: boolean): LocalOllama => ({
  on_this_machine: true,
  installed,
  binary: installed ? '/usr/local/bin/ollama' : '',
  binary_version: installed ? '0.17.4' : '',
  started_by_loupe: false,
  log_path: '',
  install: installed ? '' : 'Ollama is not installed. Install it with `curl -fsSL https://ollama.com/install.sh | sh`.',
  install_url: installed ? '' : 'https://ollama.com/download',
  last_error: '',
});
/** What the backend says when nothing answers (ollama.UnreachableError), whatever the cause. */
const unreachable = 'Ollama is not running at http://127.0.0.1:11434 — start it with `ollama serve`';
const OLLAMA: Record<'running' | 'not_running' | 'not_installed', Partial<StatusInfo>> = {
  running: { reachable: true, local: { ...local(true), started_by_loupe: false } },
  not_running: { reachable: false, version: '', message: unreachable, local: local(true) },
  not_installed: { reachable: false, version: '', message: unreachable, local: local(false) },
};
type OllamaKind = keyof typeof OLLAMA;

// --- the log's own reading (the oracle) --------------------------------------------------

type Phase = 'none' | 'working' | 'paused' | 'asking' | 'ended';

interface Truth {
  phase: Phase;
  /** The paused checkpoint, when paused. */
  pause?: TraceEvent & { kind: 'checkpoint' };
  asks: Set<string>;
  results: Map<string, TraceEvent & { kind: 'tool_result' }>;
  decisions: Map<string, string>;
  editsByRun: Map<number, number>;
  edits: number;
  deniedCalls: Set<string>;
}

function truthOf(events: readonly TraceEvent[]): Truth {
  let open = false;
  let pause: Truth['pause'];
  const asks = new Set<string>();
  const results = new Map<string, TraceEvent & { kind: 'tool_result' }>();
  const decisions = new Map<string, string>();
  const editsByRun = new Map<number, number>();
  const deniedCalls = new Set<string>();
  let edits = 0;
  for (const e of events) {
    // A sub-agent's events (docs/ARCHITECTURE.md "Sub-agents"): its start
    // and end do not open or close the session's run, and its calls are
    // its own (their ids may repeat the parent's); a pause or a question
    // inside it is where the session's run stands.
    const sub = (e.agent ?? '') !== '';
    const own = (id: string) => (sub ? `${e.agent}/${id}` : id);
    if (sub && (e.kind === 'user_message' || e.kind === 'run_end')) continue;
    switch (e.kind) {
      case 'user_message':
        open = true;
        pause = undefined;
        asks.clear();
        break;
      case 'run_end':
        open = false;
        pause = undefined;
        asks.clear();
        break;
      case 'checkpoint':
        pause = e.payload.state === 'paused' ? e : undefined;
        break;
      case 'permission':
        if (e.payload.decision === 'ask') asks.add(own(e.payload.call_id));
        else {
          asks.delete(own(e.payload.call_id));
          decisions.set(own(e.payload.call_id), e.payload.decision);
          if (e.payload.decision === 'deny') deniedCalls.add(own(e.payload.call_id));
        }
        break;
      case 'tool_result':
        results.set(own(e.payload.call_id), e);
        asks.delete(own(e.payload.call_id));
        break;
      case 'edit':
        edits++;
        editsByRun.set(e.run, (editsByRun.get(e.run) ?? 0) + 1);
        break;
    }
  }
  const phase: Phase = events.length === 0 ? 'none' : !open ? 'ended' : pause ? 'paused' : asks.size ? 'asking' : 'working';
  return { phase, pause, asks, results, decisions, editsByRun, edits, deniedCalls };
}

// --- what the window says ----------------------------------------------------------------

const text = (el: Element | null | undefined) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
/** Spinners: a status announced by its label alone (Spinner.svelte). */
const spinnersIn = (root: Element) =>
  [...root.querySelectorAll('[role="status"][aria-label]')].filter((el) => text(el) === '').map((el) => el.getAttribute('aria-label')!);
const WORKING = /\b(running|working|checking permission|validating)\b/i;

/** The disagreements found by the checks since the walk last read them. */
let found: string[] = [];
function fail(where: string, what: string): void {
  found.push(`${where}: ${what}`);
}

/** The parts that say how the run stands, each read as a phase. */
function claims(): Record<string, Phase | 'idle' | 'busy'> {
  const out: Record<string, Phase | 'idle' | 'busy'> = {};
  const head = document.querySelector('.session > header');
  const headText = text(head);
  out['header'] = /Waiting for you/.test(headText) ? 'asking' : /Paused/.test(headText) ? 'paused' : /Running/.test(headText) ? 'working' : 'idle';
  const item = screen.getByTestId('session-item');
  const itemText = text(item);
  out['sidebar'] = /Needs approval|Waiting for you/.test(itemText) ? 'asking' : /Paused/.test(itemText) ? 'paused' : /Running/.test(itemText) ? 'working' : 'idle';
  const input = screen.getByTestId('composer-input') as HTMLTextAreaElement;
  // What it says of the run: its placeholder and a refused send's note
  // (its note about Ollama speaks of Ollama, not of the run).
  const composer = `${input.placeholder} ${text(screen.queryByTestId('composer-held'))}`;
  out['composer'] = WORKING.test(composer) ? 'working' : /paused|waits for your answer|approve/i.test(composer) ? 'busy' : 'idle';
  const caption = text(screen.getByTestId('loop-caption'));
  out['loop diagram'] = /^Paused/.test(caption) ? 'paused' : /^Now:/.test(caption) ? 'busy' : 'idle';
  return out;
}

interface Ctx {
  where: string;
  truth: Truth;
  events: readonly TraceEvent[];
  ollama: OllamaKind;
  playback: boolean;
  /** The whole log (events is the prefix). */
  all?: readonly TraceEvent[];
}

function checkStanding(c: Ctx) {
  const { phase } = c.truth;
  const said = claims();
  const where = `${c.where}: the log says ${phase}`;
  if (c.playback) return;
  // The header and the sidebar name the standing; the composer and the
  // diagram must not contradict it.
  const named = phase === 'ended' || phase === 'none' ? 'idle' : phase;
  if (said['header'] !== named) fail(where, `the header says ${said['header']} (${text(document.querySelector('.session > header')).slice(0, 200)})`);
  if (said['sidebar'] !== named) fail(where, `the sidebar says ${said['sidebar']} (${text(screen.getByTestId('session-item'))})`);
  if (phase !== 'working' && said['composer'] === 'working') fail(where, `the composer says the agent is working (${(screen.getByTestId('composer-input') as HTMLTextAreaElement).placeholder} ${text(screen.getByTestId('composer'))})`);
  if (phase === 'working' && said['composer'] === 'idle') fail(where, 'the composer offers to send while the run goes');
  if ((phase === 'paused') !== (said['loop diagram'] === 'paused')) fail(where, `the loop diagram says "${text(screen.getByTestId('loop-caption'))}"`);
  if (phase !== 'working') {
    const spinning = spinnersIn(document.body).filter((l) => WORKING.test(l) || /streaming/i.test(l));
    if (spinning.length) fail(where, `a spinner says ${spinning.join(', ')}`);
  }
  const step = screen.getByTestId('step-button') as HTMLButtonElement;
  if ((phase === 'paused') === step.disabled) fail(where, `Step is ${step.disabled ? 'disabled' : 'enabled'}`);
  const waiting = screen.queryAllByTestId('checkpoint-state').filter((p) => /^Waiting here/.test(text(p)));
  if (phase === 'paused' && c.truth.pause) {
    const cp = document.querySelector(`[data-card-id="e:${c.truth.pause.seq}"]`);
    if (cp && !/Waiting here/.test(text(cp))) fail(where, `the pause card says "${text(within(cp as HTMLElement).getByTestId('checkpoint-state'))}"`);
  }
  if (phase !== 'paused' && waiting.length) fail(where, 'a pause card says it waits');
}

function callIdOf(card: Element): string {
  const id = card.getAttribute('data-card-id') ?? '';
  return id.replace(/^call:\d+:/, '');
}

function checkCalls(c: Ctx) {
  const t = c.truth;
  for (const card of screen.queryAllByTestId('card-call')) {
    const id = callIdOf(card);
    const badge = within(card).getByTestId('call-status');
    const label = text(badge);
    const where = `${c.where}: call ${id} says "${label}"`;
    const result = t.results.get(id);
    const decision = t.decisions.get(id);
    const pausedAfter = t.phase === 'paused' && t.pause?.payload.point === 'after_result' && t.pause.payload.call_id === id;
    if (decision === 'deny' && !/^Denied/.test(label)) fail(where, 'but it was denied');
    if (pausedAfter && result && decision !== 'deny' && !/paused before its result/i.test(label)) fail(where, 'but the run waits after its result');
    if (!pausedAfter && /paused before its result/i.test(label)) fail(where, 'but the run does not wait after its result');
    if (result && WORKING.test(label)) fail(where, 'but it has its result');
    if (t.asks.has(id) && !c.playback && !/approval/i.test(label)) fail(where, 'but it waits for your answer');
    if (t.phase !== 'working' && (WORKING.test(label) || spinnersIn(badge).length)) fail(where, `but the run is ${t.phase}`);
    // An edit of its arguments (a file-changing call's too) is said on its card, as often as the log holds one.
    const argEdits = c.events.filter((e) => e.kind === 'edit' && e.payload.target === 'args' && e.payload.call_id === id).length;
    const chips = within(card).queryAllByTestId('edited-args').length;
    if (argEdits > 0 && chips !== 1) fail(where, `but its arguments were edited (${argEdits} edit events) and the card says so ${chips} times`);
    if (argEdits === 0 && chips > 0) fail(where, 'but its arguments were never edited, and the card says they were');
  }
}

const count = (s: string, unit: RegExp): number | null => {
  const m = s.match(new RegExp(`(\\d[\\d,]*)\\s+${unit.source}`));
  return m ? Number(m[1]!.replace(/,/g, '')) : null;
};

function checkExplain(c: Ctx) {
  for (const card of document.querySelectorAll('article[data-card-id]')) {
    const ex = card.querySelector('[data-testid="explain-text"]');
    if (!ex) continue;
    const explain = text(ex);
    const body = text(card).replace(explain, '');
    const where = `${c.where}: ${card.getAttribute('aria-label')} explains "${explain.slice(0, 160)}"`;
    const kind = card.getAttribute('data-testid');
    if (kind === 'card-request') {
      const tools = count(explain, /tools?\b/);
      const listed = (card.querySelector('.tools')?.querySelectorAll('code').length ?? 0);
      const onCard = count(body, /tools?,/) ?? (count(body, /tools?\b/) ?? listed);
      if (tools != null && tools !== onCard && tools !== listed) fail(where, `but the card shows ${listed} tools`);
      const history = count(explain, /messages? of history/);
      const fromHistory = body.match(/\+ (\d+) from history/);
      if (history != null && fromHistory && Number(fromHistory[1]) !== history) fail(where, `but the card says ${fromHistory[1]} from history`);
    }
    if (kind === 'card-response') {
      const calls = count(explain, /tool calls?\b/);
      const listed = card.querySelector('[aria-label="Tool calls asked for"]')?.querySelectorAll('li').length ?? 0;
      if (calls != null && calls !== listed) fail(where, `but the card lists ${listed} calls`);
      if (calls == null && /without asking for a tool/.test(explain) && listed > 0) fail(where, `but the card lists ${listed} calls`);
    }
    if (kind === 'card-checkpoint') {
      // What the pause says of the answer's calls must fit the answer.
      const cp = c.events.find((e) => `e:${e.seq}` === card.getAttribute('data-card-id'));
      if (cp?.kind === 'checkpoint' && cp.payload.point === 'after_response') {
        const resp = [...c.events].reverse().find((e) => e.kind === 'model_response' && e.run === cp.run && e.round === cp.round && e.seq < cp.seq);
        const n = resp?.kind === 'model_response' && !resp.payload.incomplete ? (resp.payload.tool_calls ?? []).length : 0;
        if (n === 0 && /none of its .*tool calls|the first call|before any of its tool calls/i.test(`${explain} ${body}`)) fail(where, 'but the answer has no tool calls');
      }
    }
  }
}

function checkCounts(c: Ctx) {
  const t = c.truth;
  const where = `${c.where}`;
  const edited = screen.queryByTestId('filter-edited');
  if (edited) {
    const n = Number((text(edited).match(/\d+/) ?? ['0'])[0]);
    if (n !== t.edits) fail(where, `the find bar counts ${n} edited (${text(edited)}) for ${t.edits} edit events`);
  }
  const denied = screen.queryByTestId('filter-denied');
  if (denied) {
    const n = Number((text(denied).match(/\d+/) ?? ['0'])[0]);
    if (n !== t.deniedCalls.size) fail(where, `the find bar counts ${n} denied for ${t.deniedCalls.size} denials`);
  }
  for (const head of screen.queryAllByTestId('run')) {
    const run = Number(head.getAttribute('data-run'));
    const part = within(head).queryAllByTestId('run-summary-part').find((p) => p.getAttribute('data-mark') === 'edited');
    const n = part ? Number((text(part).match(/\d+/) ?? ['0'])[0]) : 0;
    const want = t.editsByRun.get(run) ?? 0;
    if (n !== want) fail(where, `run ${run}'s head counts ${n} edits (${text(part)}) for ${want} edit events`);
    // A run that changed a file with an edited call says both: what it changed and the edit.
    if (want > 0 && !/changed \d+ files?/.test(text(head)) && c.events.some((e) => e.run === run && e.kind === 'tool_result' && (e.payload.changes ?? []).length > 0)) {
      fail(where, `run ${run} changed files but its head says "${text(head)}"`);
    }
  }
}

/**
 * Token counts agree with the events: a round's facts and a response card
 * never say 0 tokens out for an answer that has text or calls, nor 0 in
 * while the meter of its request counts a prompt.
 */
function checkTokens(c: Ctx) {
  for (const card of screen.queryAllByTestId('card-response')) {
    const out = text(card).match(/Output (\d[\d,]*) tokens/);
    if (!out || Number(out[1]!.replace(/,/g, '')) !== 0) continue;
    const e = c.events.find((x) => `e:${x.seq}` === card.getAttribute('data-card-id'));
    if (e?.kind === 'model_response' && (e.payload.content || (e.payload.tool_calls ?? []).length)) {
      fail(`${c.where}: the response of round ${e.round}`, 'says "Output 0 tokens" for an answer with text or calls');
    }
  }
  for (const head of screen.queryAllByTestId('round')) {
    const facts = text(head);
    const m = facts.match(/([\d,]+|-) tokens in · ([\d,]+|-) out/);
    if (!m) continue;
    const run = Number(head.getAttribute('data-run'));
    const round = Number(head.getAttribute('data-round'));
    const resp = c.events.find((e) => e.kind === 'model_response' && e.run === run && e.round === round);
    if (resp?.kind !== 'model_response') continue;
    const ctx = resp.payload.context;
    const meter = ctx ? (ctx.counted ?? ctx.prompt ?? 0) : 0;
    if ((m[1] === '-' || Number(m[1]!.replace(/,/g, '')) === 0) && meter > 0) fail(`${c.where}: round ${round}`, `the round says "${facts}" while its meter counts ${meter} tokens`);
  }
}

/** Ollama's hints say what its status is: not installed, not running, running. */
function checkOllama(c: Ctx, root: HTMLElement = document.body) {
  const where = `${c.where}: Ollama is ${c.ollama.replace('_', ' ')}`;
  const all = text(root);
  if (c.ollama === 'not_installed' && /ollama serve|Ollama is not running|Start Ollama/.test(all)) {
    fail(where, `but the window says "${all.match(/[^.]*(ollama serve|Ollama is not running|Start Ollama)[^.]*/)![0].trim()}"`);
  }
  if (c.ollama === 'not_running' && /Ollama is not installed/i.test(all)) fail(where, 'but the window says it is not installed');
  if (c.ollama === 'running' && /Ollama (is )?not (running|reachable|installed)/i.test(all)) fail(where, `but the window says "${all.match(/Ollama (is )?not (running|reachable|installed)[^.]*/i)![0]}"`);
}

function checkPlayback(c: Ctx, position: number) {
  const bar = screen.getByTestId('playback-bar');
  const label = text(within(bar).getByTestId('playback-event'));
  const e = c.events[position - 1]!;
  const where = `${c.where}: at ${position} (${e.kind} ${e.seq}) the bar says "${label}"`;
  const round = label.match(/round (\d+)/);
  if (round && e.kind === 'model_request' && Number(round[1]) !== e.round) fail(where, `but the event is of round ${e.round}`);
  const current = document.querySelectorAll('article[aria-current="true"]');
  if (e.kind === 'model_request' && document.querySelector(`[data-card-id="e:${e.seq}"]`) && current.length === 0) fail(where, 'but no card is marked as the position');
  for (const card of current) {
    const chip = text(card.querySelector('header')).match(/round (\d+)/);
    if (round && chip && chip[1] !== round[1]) fail(where, `but the current card is of round ${chip[1]}`);
  }
  // What the pause card says at the position: the run waited there then.
  if (c.truth.phase === 'paused' && c.truth.pause) {
    const cp = document.querySelector(`[data-card-id="e:${c.truth.pause.seq}"]`);
    if (cp && /ended while paused/.test(text(cp)) && (c.all ?? []).slice(position).some((x) => x.kind === 'checkpoint' && x.payload.state === 'resumed')) {
      fail(where, `the pause card says "${text(within(cp as HTMLElement).getByTestId('checkpoint-state'))}" though the run went on from it`);
    }
  }
}

// --- the walk ------------------------------------------------------------------------

/** A recording of the events alone, each one held until the walk lets it through. */
function walkRecording(src: Source): Recording {
  const steps: Step[] = [];
  for (const e of src.events) steps.push({ outside: 'next' }, { event: e as unknown as Step['event'] });
  return {
    scenario: src.name,
    about: 'the walk',
    session: {
      id: 'session-1',
      title: src.name,
      workspace: '/home/me/project',
      model: src.model,
      created_at: '2026-01-05T10:00:00Z',
      updated_at: '2026-01-05T10:00:00Z',
      last_reason: '',
      event_count: 0,
      open_run: 0,
      running: false,
      standing: '',
      stepping: false,
      breakpoints: { points: [], tools: [] },
    } as unknown as Recording['session'],
    settings: {} as Recording['settings'],
    steps,
    raw_requests: {},
  };
}

/** The replay, with Ollama's rendering failing as the backend's does when nothing answers. */
class WalkBridge extends ReplayBridge {
  override async renderedPrompt(sessionId: string, seq: number) {
    if (!this.statusInfo.reachable) throw new BridgeError(unreachable, 'renderedPrompt');
    return { text: `<|user|>request ${seq} of ${sessionId}`, rendered_at: '' } as unknown as Awaited<ReturnType<ReplayBridge['renderedPrompt']>>;
  }
}

async function settle(replay: ReplayBridge) {
  replay.flush();
  await tick();
  await Promise.resolve();
  await tick();
}

afterEach(() => cleanup());

/** WALK=name walks only the sources whose name holds it (while working on one). */
const only = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env['WALK'] ?? '';
const ALL = sources().filter((s) => s.name.includes(only));
const kinds: OllamaKind[] = ['running', 'not_running', 'not_installed'];

describe('every part of the window agrees with the log', () => {
  it.each(ALL.map((s, i) => [s.name, s, kinds[i % 3]!] as const))('%s', { timeout: 120_000 }, async (_name, src, ollama) => {
    const replay = new WalkBridge(walkRecording(src), { status: OLLAMA[ollama] });
    render(AppShell, { props: { bridge: replay, theme: new ThemeState({ storage: null, matchMedia: null }) } });
    const item = await screen.findByTestId('session-item');
    await fireEvent.click(within(item).getAllByRole('button')[0]!);
    await screen.findByTestId('learn-bar');
    await fireEvent.click(screen.getByTestId('explain-toggle'));
    // One line per kind of disagreement (its first occurrence), so one
    // fault does not hide another.
    const problems = new Map<string, string>();
    const run = (f: () => void) => {
      found = [];
      try {
        f();
      } catch (err) {
        found.push(`${(err as Error).message}`);
      }
      for (const msg of found) {
        const kind = msg.replace(/^[^:]*:/, '').replace(/\d+/g, 'N').replace(/"[^"]*"/g, '…').replace(/\(.*\)/g, '');
        if (!problems.has(kind)) problems.set(kind, msg);
      }
    };
    for (let i = 1; i <= src.events.length; i++) {
      replay.outside();
      await settle(replay);
      const events = src.events.slice(0, i);
      const c: Ctx = { where: `${src.name} after event ${i} (${events[i - 1]!.kind})`, truth: truthOf(events), events, ollama, playback: false };
      run(() => checkStanding(c));
      run(() => checkCalls(c));
      run(() => checkExplain(c));
      run(() => checkCounts(c));
      run(() => checkTokens(c));
      run(() => checkOllama(c));
    }
    // What the model saw, as the model read it, and the new-session page:
    // their hints about Ollama.
    const last: Ctx = { where: `${src.name} at the end`, truth: truthOf(src.events), events: src.events, ollama, playback: false };
    if (screen.queryAllByTestId('model-saw-toggle').length) {
      await fireEvent.click(screen.getAllByTestId('model-saw-toggle')[0]!);
      const read = await screen.findByTestId('model-saw-view-read');
      await fireEvent.click(read);
      await settle(replay);
      await new Promise((r) => setTimeout(r, 0));
      await settle(replay);
      run(() => checkOllama({ ...last, where: `${last.where}, as the model read it` }, screen.getByTestId('rendered-prompt')));
      await fireEvent.click(screen.getAllByTestId('model-saw-toggle')[0]!);
    }
    await fireEvent.keyDown(document.body, { key: 'n', ctrlKey: true });
    await settle(replay);
    run(() => checkOllama({ ...last, where: `${last.where}, new session` }, document.querySelector('main') as HTMLElement ?? document.body));
    await fireEvent.keyDown(document.body, { key: 'Escape' });
    await settle(replay);
    await screen.findByTestId('learn-bar');
    // Playback, at every position.
    await fireEvent.keyDown(document.body, { key: 'p' });
    for (let p = 1; p <= src.events.length; p++) {
      if (p > 1) await fireEvent.keyDown(document.body, { key: 'ArrowRight' });
      await settle(replay);
      const events = src.events.slice(0, p);
      const c: Ctx = { where: `${src.name} played to ${p}`, truth: truthOf(events), events, ollama, playback: true, all: src.events };
      run(() => checkCalls(c));
      run(() => checkExplain(c));
      run(() => checkTokens(c));
      run(() => checkPlayback(c, p));
    }
    // Shift+→ from the start: each jump lands on a request, and the bar names its round.
    await fireEvent.keyDown(document.body, { key: 'Home' });
    for (let k = 0; k < 40; k++) {
      await fireEvent.keyDown(document.body, { key: 'ArrowRight', shiftKey: true });
      await settle(replay);
      const pos = Number(screen.getByTestId('playback-position').getAttribute('data-position'));
      const events = src.events.slice(0, pos);
      run(() => checkPlayback({ where: `${src.name} Shift+→ to ${pos}`, truth: truthOf(events), events, ollama, playback: true, all: src.events }, pos));
      if (!src.events.slice(pos).some((e) => e.kind === 'model_request')) break;
    }
    expect([...problems.values()]).toEqual([]);
  });
});
