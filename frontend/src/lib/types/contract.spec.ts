// The golden logs are the contract: every event the Go scenarios wrote
// (the recordings the UI specs replay, and the golden event logs of
// backend/session, backend/cli and testkit/realscenarios) must have a shape the UI's
// types parse. A field added, renamed or retyped on the Go side without
// its TS mirror fails here.
import { describe, expect, it } from 'vitest';
import { allRecordings } from '../replay/recordings';
import type { Command } from './app';
import { eventProblems, shapeProblems, SHAPES } from './shapes';
import { isRecord } from './json';

const golden = {
  ...import.meta.glob<unknown>('../../../../backend/session/testdata/golden/*.json', { eager: true, import: 'default' }),
  ...import.meta.glob<unknown>('../../../../testkit/realscenarios/testdata/golden/*.json', { eager: true, import: 'default' }),
  ...import.meta.glob<unknown>('../../../../backend/cli/testdata/golden/*.json', { eager: true, import: 'default' }),
};

function goldenFiles(): { name: string; events: unknown[] }[] {
  return (
    Object.entries(golden)
      // NAME.got.json is what a failing Go test wrote beside its golden file.
      .filter(([path]) => !path.endsWith('.got.json'))
      .map(([path, v]) => ({ name: path.replace(/^(\.\.\/)+/, ''), events: Array.isArray(v) ? v : [v] }))
      .sort((a, b) => a.name.localeCompare(b.name))
  );
}

/**
 * A golden log's event as it was before testkit/golden.Normalize made it
 * stable: a session id and a time back in, numbers for the redacted
 * durations and counts, and tool specs for the tool names it lists.
 */
function unnormalize(v: unknown): unknown {
  if (!isRecord(v)) return v;
  const e: Record<string, unknown> = { session_id: 'golden', time: '2026-01-01T00:00:00Z', ...structuredClone(v) };
  const back = (x: unknown): unknown => {
    if (x === '<duration>' || x === '<count>') return 0;
    if (Array.isArray(x)) return x.map(back);
    if (isRecord(x)) return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, back(y)]));
    return x;
  };
  const out = back(e) as Record<string, unknown>;
  const p = out['payload'];
  if (out['kind'] === 'model_request' && isRecord(p) && Array.isArray(p['tools']) && p['tools'].every((t) => typeof t === 'string')) {
    p['tools'] = (p['tools'] as string[]).map((name) => ({ name, description: '', parameters: {} }));
  }
  return out;
}

/** The shape of an answer, by the bridge method that gets it (App.Do answers with an outcome). */
const results: Record<string, keyof typeof SHAPES> = {
  do: 'outcome',
  setWorkspace: 'workspaceInfo',
  workspace: 'workspaceInfo',
  ruleLimits: 'ruleLimits',
  openSession: 'snapshot',
  checkModel: 'readiness',
  renderedPrompt: 'renderedPrompt',
  systemPrompt: 'systemPrompt',
  listModelsOn: 'models',
};

/** What the window sends (commands) and reads (queries) that a recording may hold. */
const COMMAND_METHODS = ['do', 'setWorkspace', 'saveSettings'];
const QUERY_METHODS = ['workspace', 'ruleLimits', 'openSession', 'eventPayload', 'checkModel', 'renderedPrompt', 'systemPrompt', 'listModelsOn'];

/**
 * The fields each command of the window carries (type Command), besides
 * do. Typed by Command's kinds, so a kind added on the TS side must be
 * listed here.
 */
const COMMAND_FIELDS: Record<Command['do'], string[]> = {
  create: ['workspace', 'model', 'tools', 'host'],
  demo: [],
  delete: ['session'],
  set_model: ['session', 'model'],
  set_tools: ['session', 'tools'],
  send: ['session', 'text'],
  stop: ['session'],
  stop_call: ['session', 'call_id'],
  answer: ['session', 'call_id', 'allow', 'scope'],
  set_stepping: ['session', 'on'],
  set_breakpoints: ['session', 'breakpoints'],
  step: ['session', 'at'],
  continue: ['session', 'at'],
  edit_request: ['session', 'at', 'request'],
  edit_args: ['session', 'at', 'text'],
  skip: ['session', 'at', 'text'],
  edit_result: ['session', 'at', 'text'],
  restore_files: ['session', 'seq', 'force'],
  undo_run: ['session', 'run', 'force'],
  compact: ['session'],
};

/** What is wrong with a recorded App.Do command for the TS Command type. */
function commandProblems(v: unknown, at: string): string[] {
  if (!isRecord(v)) return [`${at}: not an object`];
  const kind = v['do'];
  if (typeof kind !== 'string' || !(kind in COMMAND_FIELDS)) return [`${at}.do: ${JSON.stringify(kind)} is not a command the window sends`];
  const fields = COMMAND_FIELDS[kind as Command['do']];
  return Object.keys(v)
    .filter((k) => k !== 'do' && !fields.includes(k))
    .map((k) => `${at}.${k}: not a field of the ${kind} command`);
}

describe('the golden event logs', () => {
  const files = goldenFiles();
  it('are there to check', () => {
    expect(files.length).toBeGreaterThan(5);
  });
  for (const f of files) {
    it(`${f.name} parses as the UI's events`, () => {
      const problems = f.events.flatMap((e, i) => eventProblems(unnormalize(e), `event ${i}`));
      expect(problems).toEqual([]);
    });
  }
});

describe('the recordings', () => {
  const recs = [...allRecordings()];
  it('are there to check', () => {
    expect(recs.length).toBeGreaterThan(10);
  });
  for (const [name, rec] of recs) {
    it(`${name} parses as what the window hears`, () => {
      const problems: string[] = [];
      if (rec.session !== null) problems.push(...shapeProblems('summary', rec.session, 'session'));
      problems.push(...shapeProblems('settings', rec.settings, 'settings'));
      rec.steps.forEach((s, i) => {
        const at = `step ${i}`;
        if (s.event !== undefined) problems.push(...eventProblems(s.event, `${at} event`));
        if (s.delta !== undefined) problems.push(...shapeProblems('delta', s.delta, `${at} delta`));
        if (s.command && !COMMAND_METHODS.includes(s.command.method)) problems.push(`${at}: the window sends no ${s.command.method}`);
        if (s.query && !QUERY_METHODS.includes(s.query.method)) problems.push(`${at}: the window reads no ${s.query.method}`);
        if (s.command?.method === 'do') problems.push(...commandProblems(s.command.args[0], `${at} do`));
        const c = s.command ?? s.query;
        if (c?.result !== undefined && results[c.method]) problems.push(...shapeProblems(results[c.method]!, c.result, `${at} ${c.method} result`));
        if (c?.method === 'saveSettings') problems.push(...shapeProblems('settings', c.args[0], `${at} saveSettings`));
      });
      expect(problems).toEqual([]);
    });
  }
});

describe('the shapes', () => {
  const ok = { session_id: 's', seq: 1, kind: 'notice', time: 't', run: 1, round: 0, payload: { code: 'c', message: 'm' } };
  it('take an event that fits', () => {
    expect(eventProblems(ok)).toEqual([]);
  });
  it('name a missing field, a wrong type, a field the TS type lacks and a kind the UI does not know', () => {
    expect(eventProblems({ ...ok, payload: { code: 'c' } })).toEqual(['event.payload(notice).message: missing']);
    expect(eventProblems({ ...ok, seq: '1' })).toEqual(['event.seq: want a number, got "1"']);
    expect(eventProblems({ ...ok, payload: { code: 'c', message: 'm', level: 2 } })).toEqual(['event.payload(notice).level: not in the TS type']);
    expect(eventProblems({ ...ok, kind: 'telemetry' })).toEqual(['event.kind: "telemetry" is not a kind the UI knows']);
  });
  it('name a command the window does not send, a field it lacks, and an outcome that does not fit', () => {
    expect(commandProblems({ do: 'step', session: 's', at: 4 }, 'c')).toEqual([]);
    expect(commandProblems({ do: 'pause', session: 's' }, 'c')).toEqual(['c.do: "pause" is not a command the window sends']);
    expect(commandProblems({ do: 'step', session: 's', at: 4, force: true }, 'c')).toEqual(['c.force: not a field of the step command']);
    expect(shapeProblems('outcome', { summary: { id: 's' } })).not.toEqual([]);
    expect(shapeProblems('outcome', { restore: { done: true, restored: null, conflicts: null } })).toEqual([]);
  });
});
