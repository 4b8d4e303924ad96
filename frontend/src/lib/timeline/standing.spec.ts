// Where a run stands is read from its log alone. These specs play the Go
// engine's recordings event by event and look at the points where the Go
// side waited for the window (a command step): the pause the window shows
// there must be the one the engine waits at, with the edits made there,
// and the questions it shows must be the ones the engine waits for.
import { describe, expect, it } from 'vitest';
import { allRecordings, recording } from '../replay/recordings';
import type { Recording } from '../replay/recording';
import { isRecord, parseEvent, type EditEvent, type Summary, type TraceEvent } from '../types';
import { standingOf, summaryAfter } from './standing';

/** A point of a recording where the engine waited for the window: the events so far and the command it got. */
interface Wait {
  events: TraceEvent[];
  cmd: Record<string, unknown> | null;
  method: string;
  result: unknown;
  failed: boolean;
}

function waits(rec: Recording): { waits: Wait[]; events: TraceEvent[] } {
  const events: TraceEvent[] = [];
  const out: Wait[] = [];
  for (const s of rec.steps) {
    if (s.event !== undefined) {
      const e = parseEvent(s.event);
      if (!e) throw new Error(`${rec.scenario}: an event the UI cannot parse`);
      events.push(e);
    }
    if (s.command) {
      const a = s.command.args[0];
      out.push({
        events: [...events],
        cmd: s.command.method === 'do' && isRecord(a) ? a : null,
        method: s.command.method,
        result: s.command.result,
        failed: s.command.error !== undefined,
      });
    }
  }
  return { waits: out, events };
}

/** The waits of a recording at which the window sent this command. */
function at(rec: string, what: string): Wait[] {
  return waits(recording(rec)).waits.filter((w) => w.cmd?.['do'] === what);
}

const editAfter = (events: TraceEvent[], target: string) =>
  (events.filter((e): e is EditEvent => e.kind === 'edit' && e.payload.target === target).at(-1)?.payload.after);

describe('standingOf', () => {
  it('has nothing open before any run', () => {
    expect(standingOf([])).toEqual({ open: false, run: 0, pause: null, asks: [], phase: 'none', answerCalls: null });
  });

  it('shows the pending request at a pause, and the edits made to it there (step_edits)', () => {
    const [editing] = at('step_edits', 'edit_request');
    const before = standingOf(editing!.events);
    expect(before.open).toBe(true);
    expect(before.pause).toMatchObject({ seq: 2, point: 'before_request', run: 1, round: 1 });
    const original = before.pause!.request!;
    expect(original.messages?.find((m) => m.seq === 1)?.content).toBe('Read missing.txt');
    expect(original.system).not.toBe('Answer in one word.');

    // Step is sent at the same pause, after the edit events: they are applied to it.
    const [stepping] = at('step_edits', 'step');
    const after = standingOf(stepping!.events);
    expect(stepping!.cmd?.['at']).toBe(2);
    expect(after.pause?.seq).toBe(2);
    expect(after.pause?.request?.system).toBe('Answer in one word.');
    expect(after.pause?.request?.system).toBe(editAfter(stepping!.events, 'system'));
    expect(after.pause?.request?.options).toEqual(editAfter(stepping!.events, 'options'));
    expect(after.pause?.request?.options.num_ctx).toBe(4096);
    expect(after.pause?.request?.messages?.find((m) => m.seq === 1)?.content).toBe('Read README.md');
    // Only the message edited changed.
    expect(after.pause?.request?.messages?.map((m) => m.seq)).toEqual(original.messages?.map((m) => m.seq));
    // The event's own payload is left as the log has it.
    const cp = stepping!.events.find((e) => e.seq === 2);
    expect(cp?.kind === 'checkpoint' && cp.payload.request?.system).toBe(original.system);
  });

  it('shows a call’s arguments at its pause, edited, and the result before it goes back, edited (step_edits)', () => {
    const [wrong, right] = at('step_edits', 'edit_args');
    expect(wrong!.failed).toBe(true);
    expect(standingOf(wrong!.events).pause).toMatchObject({ seq: 12, point: 'before_tool', call_id: 'call_1', tool: 'read_file', args: { path: 'missing.txt' } });
    // A refused edit leaves no event: the arguments are as they were.
    expect(standingOf(right!.events).pause?.args).toEqual({ path: 'missing.txt' });
    const stepAfterArgs = at('step_edits', 'step').find((w) => w.cmd?.['at'] === 12)!;
    expect(standingOf(stepAfterArgs.events).pause?.args).toEqual({ path: 'README.md' });

    const [result] = at('step_edits', 'edit_result');
    const p = standingOf(result!.events).pause;
    expect(p).toMatchObject({ seq: 17, point: 'after_result', call_id: 'call_1' });
    // The result at after_result is the tool_result before the pause.
    const tr = result!.events.find((e) => e.kind === 'tool_result');
    expect(p?.result?.content).toBe(tr?.kind === 'tool_result' ? tr.payload.content : undefined);
    expect(p?.result?.content).toContain('hello from the workspace');
    const [cont] = at('step_edits', 'continue');
    expect(standingOf(cont!.events).pause?.result?.content).toBe('The README says: hello (edited)');
    // Once resumed, the run waits nowhere; once ended, it is closed.
    const all = waits(recording('step_edits')).events;
    const resumed = all.findIndex((e) => e.kind === 'checkpoint' && e.seq > 17);
    expect(standingOf(all.slice(0, resumed + 1))).toMatchObject({ open: true, pause: null });
    expect(standingOf(all)).toMatchObject({ open: false, pause: null, asks: [] });
  });

  it('takes the pause each edit event carries, as Go applied it, and applies nothing itself (step_edits)', () => {
    // Every edit of the recording: the pause after it is the edit's own
    // pause field (trace.Checkpoint.WithEdit), not a copy of the rule.
    const all = waits(recording('step_edits')).events;
    const edits = all.filter((e): e is EditEvent => e.kind === 'edit');
    expect(edits.map((e) => e.payload.target)).toEqual(['system', 'options', 'message', 'args', 'result']);
    for (const ed of edits) {
      const i = all.indexOf(ed);
      const p = standingOf(all.slice(0, i + 1)).pause!;
      const cp = ed.payload.pause!;
      expect(cp).toBeTruthy();
      if (cp.request) expect(p.request).toEqual(cp.request);
      if (cp.args !== undefined) expect(p.args).toEqual(cp.args);
      if (cp.result !== undefined) expect(p.result?.content).toBe(cp.result);
    }
    // An edit whose "after" says one thing and whose pause another: the
    // window shows the pause Go wrote.
    const args = edits.find((e) => e.payload.target === 'args')!;
    const forged: EditEvent = { ...args, payload: { ...args.payload, after: { path: 'elsewhere.txt' } } };
    const upTo = all.slice(0, all.indexOf(args));
    expect(standingOf([...upTo, forged]).pause?.args).toEqual({ path: 'README.md' });
  });

  it('shows a question while the engine waits for its answer, and not once it is answered (approve_command)', () => {
    const [answering] = at('approve_command', 'answer');
    const s = standingOf(answering!.events);
    expect(s.open).toBe(true);
    expect(s.pause).toBeNull();
    expect(s.asks).toHaveLength(1);
    const ask = s.asks[0]!;
    const asked = answering!.events.at(-1)!;
    expect(asked.kind === 'permission' && asked.payload.decision).toBe('ask');
    expect(ask).toMatchObject({
      id: 'session-1/call_1',
      session_id: 'session-1',
      call_id: 'call_1',
      seq: asked.seq,
      tool: 'run_command',
      args: { command: 'echo hello > hello.txt' },
      call: { tool: 'run_command', read_only: false, command: 'echo hello > hello.txt' },
    });
    expect(ask.reasons).toEqual(['it writes to a file (> hello.txt)', 'no rule allows echo hello']);
    expect(ask.display?.command).toBe('echo hello > hello.txt');

    const all = waits(recording('approve_command')).events;
    const allowed = all.findIndex((e) => e.kind === 'permission' && e.payload.decision === 'allow');
    expect(standingOf(all.slice(0, allowed + 1))).toMatchObject({ open: true, asks: [] });
    expect(standingOf(all)).toMatchObject({ open: false, asks: [] });
  });

  it('has no pause once a paused run is stopped (stop_paused)', () => {
    const [stopping] = at('stop_paused', 'stop');
    expect(standingOf(stopping!.events)).toMatchObject({ open: true, run: 1, pause: { seq: 2, point: 'before_request' } });
    const all = waits(recording('stop_paused')).events;
    expect(all.at(-1)?.kind).toBe('run_end');
    expect(standingOf(all)).toEqual({ open: false, run: 1, pause: null, asks: [], phase: 'ended', answerCalls: null });
  });

  // Over every recording: each command the window sent to a pause names the
  // pause the log shows, and each answer answers a question the log shows.
  for (const [name, rec] of allRecordings()) {
    it(`${name}: every pause and question the engine waited at is the one the log shows`, () => {
      for (const w of waits(rec).waits) {
        const c = w.cmd;
        if (!c) continue;
        const s = standingOf(w.events);
        if (typeof c['at'] === 'number') {
          expect(s.pause?.seq, `${String(c['do'])} at ${c['at']}`).toBe(c['at']);
          expect(s.open).toBe(true);
        }
        if (c['do'] === 'answer' && !w.failed) {
          expect(s.asks.map((a) => a.call_id), `answer to ${String(c['call_id'])}`).toContain(c['call_id']);
          expect(s.asks.find((a) => a.call_id === c['call_id'])?.session_id).toBe(c['session']);
        }
        if (c['do'] === 'send' && !w.failed) expect(s.open, 'a message is sent while no run is open').toBe(false);
      }
      expect(standingOf(waits(rec).events)).toMatchObject({ pause: null, asks: [] });
    });
  }
});

/**
 * The summary a window would show after these events, from the
 * recording's first one (or, for a session made in the recording, the one
 * create returned).
 */
function fold(rec: Recording, events: readonly TraceEvent[]): Summary {
  // The demo command creates its session too (and starts its run).
  const created = waits(rec).waits.find((w) => w.cmd?.['do'] === 'create' || w.cmd?.['do'] === 'demo')?.result;
  // A summary as Go wrote it (session.Summary).
  let s = (rec.session ?? (isRecord(created) ? created['summary'] : null)) as unknown as Summary;
  for (const e of events) s = summaryAfter(s, e);
  return s;
}

const LOG_FIELDS = ['event_count', 'open_run', 'running', 'standing', 'last_reason'] as const;

describe('summaryAfter', () => {
  it('says a session is paused, then running, then how it ended (step_edits)', () => {
    const rec = recording('step_edits');
    const [editing] = at('step_edits', 'edit_request');
    expect(fold(rec, editing!.events)).toMatchObject({ standing: 'paused', running: true, open_run: 1, event_count: 2 });
    const all = waits(rec).events;
    const resumed = all.findIndex((e) => e.kind === 'checkpoint' && e.payload.state === 'resumed');
    expect(fold(rec, all.slice(0, resumed + 1))).toMatchObject({ standing: '', running: true, open_run: 1 });
    expect(fold(rec, all)).toMatchObject({ standing: '', running: false, open_run: 0, last_reason: 'answered', event_count: all.length });
  });

  it('says a session waits for an answer until it is given (approve_command)', () => {
    const rec = recording('approve_command');
    const [answering] = at('approve_command', 'answer');
    expect(fold(rec, answering!.events).standing).toBe('asking');
    const all = waits(rec).events;
    const allowed = all.findIndex((e) => e.kind === 'permission' && e.payload.decision === 'allow');
    expect(fold(rec, all.slice(0, allowed + 1)).standing).toBe('');
  });

  it('takes an event once, and only its own session’s', () => {
    const rec = recording('stop_paused');
    const all = waits(rec).events;
    const s = fold(rec, all);
    expect(summaryAfter(s, all[1]!)).toBe(s);
    const other = { ...(rec.session as unknown as Summary), id: 'other' };
    expect(summaryAfter(other, all[0]!)).toBe(other);
  });

  // Over every recording: where the engine answered a command with the
  // session's summary, the summary folded from the events it had written
  // by then says the same of the log.
  const compared = new Map<string, number>();
  for (const [name, rec] of allRecordings()) {
    it(`${name}: agrees with the summaries the engine returned`, () => {
      const { waits: ws, events } = waits(rec);
      let n = 0;
      for (const w of ws) {
        const r = isRecord(w.result) ? w.result['summary'] : undefined;
        if (!isRecord(r)) continue;
        const goSum = r as unknown as Summary;
        // Send (and the demo, which sends its task) answers once the run is
        // started, before its user_message is written: the engine knows it
        // runs before the log says so.
        if (w.cmd?.['do'] === 'send' || w.cmd?.['do'] === 'demo') continue;
        const mine = fold(rec, events.filter((e) => e.seq <= goSum.event_count));
        for (const f of LOG_FIELDS) expect(mine[f], `${String(w.cmd?.['do'])}: ${f}`).toEqual(goSum[f]);
        n++;
      }
      compared.set(name, n);
    });
  }
  it('compared summaries of paused, asking and ended runs', () => {
    // Runs after the per-recording cases above (vitest keeps their order).
    expect([...compared.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(5);
    expect(compared.get('step_edits')).toBeGreaterThan(0);
  });
});
