// The recordings of the Go scenarios are what the window hears and sends:
// each command a recording holds must be one the window's Command type
// has, with the fields of its kind. (The shapes of what Go sends are the
// Go types themselves: go.ts is generated from them, and the type check
// fails when the window reads a field that is gone.)
import { describe, expect, it } from 'vitest';
import { allRecordings } from '../replay/recordings';
import type { Command } from './app';
import { isRecord } from './json';

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

describe('the recordings', () => {
  const recs = [...allRecordings()];
  it('are there to check', () => {
    expect(recs.length).toBeGreaterThan(10);
  });
  for (const [name, rec] of recs) {
    it(`${name} holds only what the window sends and reads`, () => {
      const problems: string[] = [];
      rec.steps.forEach((s, i) => {
        const at = `step ${i}`;
        if (s.command && !COMMAND_METHODS.includes(s.command.method)) problems.push(`${at}: the window sends no ${s.command.method}`);
        if (s.query && !QUERY_METHODS.includes(s.query.method)) problems.push(`${at}: the window reads no ${s.query.method}`);
        if (s.command?.method === 'do') problems.push(...commandProblems(s.command.args[0], `${at} do`));
      });
      expect(problems).toEqual([]);
    });
  }
});

describe('the command check', () => {
  it('names a command the window does not send and a field it lacks', () => {
    expect(commandProblems({ do: 'step', session: 's', at: 4 }, 'c')).toEqual([]);
    expect(commandProblems({ do: 'pause', session: 's' }, 'c')).toEqual(['c.do: "pause" is not a command the window sends']);
    expect(commandProblems({ do: 'step', session: 's', at: 4, force: true }, 'c')).toEqual(['c.force: not a field of the step command']);
  });
});
