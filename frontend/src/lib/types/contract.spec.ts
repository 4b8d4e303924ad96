// The recordings of the Go scenarios are what the window hears and sends:
// each command a recording holds must be one of Go's kinds (the window's
// Command type, generated), with the fields of its kind and all it needs. (The shapes of what Go sends are the
// Go types themselves: go.ts is generated from them, and the type check
// fails when the window reads a field that is gone.)
import { describe, expect, it } from 'vitest';
import { allRecordings } from '../replay/recordings';
import { COMMAND_FIELDS, COMMAND_REQUIRED, type Command } from './go';
import { isRecord } from './json';

/** What the window sends (commands) and reads (queries) that a recording may hold. */
const COMMAND_METHODS = ['do', 'setWorkspace', 'saveSettings'];
const QUERY_METHODS = ['workspace', 'ruleLimits', 'openSession', 'eventPayload', 'checkModel', 'renderedPrompt', 'systemPrompt', 'listModelsOn', 'tryHooks'];

/** What is wrong with a recorded App.Do command for the TS Command type. */
function commandProblems(v: unknown, at: string): string[] {
  if (!isRecord(v)) return [`${at}: not an object`];
  const kind = v['do'];
  if (typeof kind !== 'string' || !(kind in COMMAND_FIELDS)) return [`${at}.do: ${JSON.stringify(kind)} is not a command the window sends`];
  const fields: readonly string[] = COMMAND_FIELDS[kind as Command['do']];
  const needs: readonly string[] = COMMAND_REQUIRED[kind as Command['do']];
  return [
    ...Object.keys(v)
      .filter((k) => k !== 'do' && !fields.includes(k))
      .map((k) => `${at}.${k}: not a field of the ${kind} command`),
    ...needs.filter((k) => !(k in v)).map((k) => `${at}.${k}: the ${kind} command needs it`),
  ];
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
    expect(commandProblems({ do: 'send', session: 's' }, 'c')).toEqual(['c.text: the send command needs it']);
  });
});
