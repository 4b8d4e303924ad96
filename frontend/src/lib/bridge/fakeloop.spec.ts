import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../types';
import { FakeBridge, makeSummary } from './fake';
import { argOf, FakeLoop, type FakeReply } from './fakeloop';

const settle = () => new Promise((r) => setTimeout(r, 0));

/** Round 1 reads a file, round 2 answers. */
function twoRounds(): FakeReply[] {
  return [
    { content: 'Reading it.', calls: [{ name: 'read_file', args: { path: 'README.md' }, readOnly: true, result: (a) => `contents of ${argOf(a, 'path')}` }] },
    { content: 'It says hello.' },
  ];
}

function setup(replies = twoRounds()) {
  const fake = new FakeBridge({ sessions: [makeSummary({ id: 's1' })] });
  const loop = new FakeLoop(fake, { reply: ({ round }) => replies[round - 1] ?? { content: 'done' } });
  return { fake, loop };
}

const kinds = (events: TraceEvent[]) =>
  events.map((e) => (e.kind === 'checkpoint' ? `${e.payload.state}:${e.payload.point}` : e.kind === 'edit' ? `edit:${e.payload.target}` : e.kind));

/** Waits until the session is paused at a point. */
async function pausedAt(fake: FakeBridge, point: string) {
  for (let i = 0; i < 50; i++) {
    if (fake.sessions.get('s1')?.paused?.point === point) return fake.sessions.get('s1')!.paused!;
    await settle();
  }
  throw new Error(`never paused at ${point}; paused: ${JSON.stringify(fake.sessions.get('s1')?.paused)}`);
}

describe('FakeLoop', () => {
  it('runs to the end without pausing when not stepping', async () => {
    const { fake, loop } = setup();
    await fake.send('s1', 'what does it say?');
    await loop.done.get('s1');
    expect(kinds(fake.events.get('s1')!)).toEqual([
      'user_message',
      'model_request',
      'model_response',
      'tool_call',
      'permission',
      'tool_result',
      'model_request',
      'model_response',
      'run_end',
    ]);
    expect(fake.sessions.get('s1')?.running).toBe(false);
  });

  it('pauses at every checkpoint in order when stepping', async () => {
    const { fake, loop } = setup();
    await fake.setStepping('s1', true);
    await fake.send('s1', 'go');
    for (const point of ['before_request', 'after_response', 'before_tool', 'after_result', 'before_request', 'after_response']) {
      await pausedAt(fake, point);
      await fake.step('s1');
    }
    await loop.done.get('s1');
    const cps = fake.events.get('s1')!.filter((e) => e.kind === 'checkpoint');
    expect(cps).toHaveLength(12);
    expect(cps.every((e, i) => (e.kind === 'checkpoint' ? e.payload.state === (i % 2 ? 'resumed' : 'paused') : false))).toBe(true);
  });

  it('sends edited arguments and results, and records each edit', async () => {
    const { fake, loop } = setup();
    await fake.setStepping('s1', true);
    await fake.send('s1', 'go');
    await pausedAt(fake, 'before_request');
    await fake.editRequest('s1', { system: 'Be brief.', options: { num_ctx: 4096, temperature: 0 } });
    await fake.step('s1');
    await pausedAt(fake, 'after_response');
    await fake.step('s1');
    await pausedAt(fake, 'before_tool');
    await expect(fake.editArgs('s1', '{"file": "x"}')).rejects.toThrow('missing required property "path"');
    await expect(fake.editArgs('s1', '{nope')).rejects.toThrow(/not valid JSON/);
    await fake.editArgs('s1', '{"path": "main.go"}');
    await fake.step('s1');
    const paused = await pausedAt(fake, 'after_result');
    expect(paused.result?.content).toBe('contents of main.go');
    await fake.editResult('s1', 'edited contents');
    await fake.continueRun('s1');
    await loop.done.get('s1');
    const events = fake.events.get('s1')!;
    expect(kinds(events).filter((k) => k.startsWith('edit'))).toEqual(['edit:system', 'edit:options', 'edit:args', 'edit:result']);
    const second = events.filter((e) => e.kind === 'model_request')[1]!;
    const body = JSON.parse(await fake.rawRequest('s1', second.seq)) as { messages: { role: string; content: string; tool_calls?: unknown[] }[]; options: object };
    expect(body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(body.options).toEqual({ num_ctx: 4096, temperature: 0 });
    expect(JSON.stringify(body.messages[2]!.tool_calls)).toContain('main.go');
    expect(body.messages[3]!.content).toBe('edited contents');
    // Continue turned stepping off: no pause in round 2.
    expect(fake.sessions.get('s1')?.stepping).toBe(false);
  });

  it('skips a call with the user\u2019s observation', async () => {
    const { fake, loop } = setup();
    await fake.setBreakpoints('s1', { points: [], tools: ['read_file'] });
    await fake.send('s1', 'go');
    await pausedAt(fake, 'before_tool');
    await fake.skipCall('s1', 'The file is empty.');
    await loop.done.get('s1');
    const result = fake.events.get('s1')!.find((e) => e.kind === 'tool_result');
    expect(result?.kind === 'tool_result' && result.payload).toMatchObject({ content: 'The file is empty.', error_kind: 'skipped' });
    const cp = fake.events.get('s1')!.filter((e) => e.kind === 'checkpoint');
    expect(cp.map((e) => (e.kind === 'checkpoint' ? [e.payload.state, e.payload.breakpoint ?? false, e.payload.action ?? ''] : []))).toEqual([
      ['paused', true, ''],
      ['resumed', false, 'skip'],
    ]);
  });

  it('stops while paused, backfilling the open call', async () => {
    const { fake, loop } = setup();
    await fake.setBreakpoints('s1', { points: ['before_tool'], tools: [] });
    await fake.send('s1', 'go');
    await pausedAt(fake, 'before_tool');
    await fake.stop('s1');
    await loop.done.get('s1');
    expect(kinds(fake.events.get('s1')!).slice(-3)).toEqual(['paused:before_tool', 'tool_result', 'run_end']);
    expect(fake.sessions.get('s1')).toMatchObject({ running: false, paused: null, last_reason: 'cancelled' });
  });

  it('refuses to resume or edit what is not paused', async () => {
    const { fake } = setup();
    await expect(fake.step('s1')).rejects.toThrow('not paused');
    await fake.setStepping('s1', true);
    await fake.send('s1', 'go');
    await pausedAt(fake, 'before_request');
    await expect(fake.editArgs('s1', '{}')).rejects.toThrow('paused at before_request, not before_tool');
  });
});
