import { describe, expect, it } from 'vitest';
import { diffRequests, parseRawRequest, utf8Length, type RequestDiff, type SeenRequest } from './seen';

const readFile = { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object' } } };
const listDir = { type: 'function', function: { name: 'list_dir', description: 'List a folder', parameters: { type: 'object' } } };

const sys = { role: 'system', content: 'You are a coding agent.' };
const user = { role: 'user', content: 'What is in README.md?' };
const asks = {
  role: 'assistant',
  content: '',
  tool_calls: [{ id: 'c1', function: { index: 0, name: 'read_file', arguments: { path: 'README.md' } } }],
};
const result = { role: 'tool', content: '# hello', tool_call_id: 'c1', tool_name: 'read_file' };

function body(messages: unknown[], opts: { tools?: unknown[]; options?: object } = {}): SeenRequest {
  return parseRawRequest(
    JSON.stringify({
      model: 'qwen3:0.6b',
      messages,
      stream: true,
      tools: opts.tools ?? [readFile, listDir],
      options: opts.options ?? { num_ctx: 8192, temperature: 0.2 },
    }),
  );
}

/** part/status of every segment, for compact expectations. */
const shape = (d: RequestDiff) => d.segments.map((s) => `${s.part}:${s.status}:${s.label}`);

describe('parseRawRequest', () => {
  it('splits a body into system prompt, history, tools and options', () => {
    const r = body([sys, user, asks, result]);
    expect(r.model).toBe('qwen3:0.6b');
    expect(r.system).toBe('You are a coding agent.');
    expect(r.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(r.messages[1]!.toolCalls).toEqual([{ id: 'c1', name: 'read_file', args: { path: 'README.md' } }]);
    expect(r.messages[2]).toMatchObject({ toolName: 'read_file', toolCallId: 'c1', content: '# hello' });
    expect(r.tools.map((t) => t.name)).toEqual(['read_file', 'list_dir']);
    expect(r.options).toEqual({ num_ctx: 8192, temperature: 0.2 });
    expect(r.messages[0]!.bytes).toBe(JSON.stringify(user).length);
  });

  it('has no system prompt when the first message is not one', () => {
    const r = body([user]);
    expect(r.system).toBeNull();
    expect(r.messages).toHaveLength(1);
  });

  it('says when the body is not JSON', () => {
    expect(() => parseRawRequest('{oops')).toThrow(/not JSON/);
    expect(() => parseRawRequest('[1]')).toThrow(/not a JSON object/);
  });

  it('counts UTF-8 bytes', () => {
    expect(utf8Length('abc')).toBe(3);
    expect(utf8Length('é')).toBe(2);
    expect(utf8Length('\u20ac')).toBe(3);
    expect(utf8Length('\u{1F600}')).toBe(4);
  });
});

describe('diffRequests', () => {
  it('marks everything of the first request as sent for the first time', () => {
    const d = diffRequests(null, body([sys, user]));
    expect(d.first).toBe(true);
    expect(shape(d)).toEqual([
      'system:added:system prompt',
      'tools:added:tool read_file',
      'tools:added:tool list_dir',
      'options:added:options',
      'new:added:user message (message 1)',
    ]);
    expect(d.resentBytes).toBe(0);
  });

  it('shows that the second round re-sends everything and adds the answer and the observation', () => {
    const prev = body([sys, user]);
    const cur = body([sys, user, asks, result]);
    const d = diffRequests(prev, cur);
    expect(d.first).toBe(false);
    expect(shape(d)).toEqual([
      'system:same:system prompt',
      'tools:same:tool read_file',
      'tools:same:tool list_dir',
      'options:same:options',
      'history:same:user message (message 1)',
      'new:added:assistant message with a tool call (message 2)',
      'new:added:tool result of read_file (message 3)',
    ]);
    expect(d.totals.history).toEqual({ bytes: JSON.stringify(user).length, count: 1 });
    expect(d.totals.new.count).toBe(2);
    expect(d.totals.new.bytes).toBe(JSON.stringify(asks).length + JSON.stringify(result).length);
    // Everything but the new messages was sent before.
    expect(d.resentBytes).toBe(d.totals.system.bytes + d.totals.tools.bytes + d.totals.options.bytes + d.totals.history.bytes);
    expect(d.changedBytes).toBe(d.totals.new.bytes);
  });

  it('shows an edited system prompt, options and message as changed, with the text before', () => {
    const prev = body([sys, user, asks, result]);
    const cur = body([{ role: 'system', content: 'You are terse.' }, user, asks, { ...result, content: '# edited' }], {
      options: { num_ctx: 16384, temperature: 0.2 },
    });
    const d = diffRequests(prev, cur);
    const system = d.segments.find((s) => s.part === 'system')!;
    expect(system).toMatchObject({ status: 'changed', before: 'You are a coding agent.', after: 'You are terse.' });
    expect(d.segments.find((s) => s.part === 'options')!.status).toBe('changed');
    const edited = d.segments.filter((s) => s.status === 'changed' && s.part === 'history');
    expect(edited).toHaveLength(1);
    expect(edited[0]).toMatchObject({ before: '# hello', after: '# edited', label: 'tool result of read_file (message 3)' });
  });

  it('pairs an edited message in the middle and still finds the new ones at the end', () => {
    const prev = body([sys, user, asks, result]);
    const asks2 = { ...asks, tool_calls: [{ id: 'c2', function: { index: 0, name: 'list_dir', arguments: { path: '.' } } }] };
    const cur = body([sys, { ...user, content: 'What is in the README?' }, asks, result, asks2]);
    const d = diffRequests(prev, cur);
    expect(shape(d).slice(4)).toEqual([
      'history:changed:user message (message 1)',
      'history:same:assistant message with a tool call (message 2)',
      'history:same:tool result of read_file (message 3)',
      'new:added:assistant message with a tool call (message 4)',
    ]);
  });

  it('lists what the previous request had and this one does not', () => {
    const prev = body([sys, user, asks, result]);
    const cur = body([user, result], { tools: [readFile] });
    const d = diffRequests(prev, cur);
    expect(shape(d)).toEqual([
      'system:removed:system prompt',
      'tools:same:tool read_file',
      'tools:removed:tool list_dir',
      'options:same:options',
      'history:same:user message (message 1)',
      'history:removed:assistant message with a tool call (message 2)',
      'history:same:tool result of read_file (message 2)',
    ]);
    // Removed pieces are not part of this request's size.
    expect(d.totals.tools.count).toBe(1);
  });

  it('sees a changed tool schema', () => {
    const prev = body([sys, user]);
    const cur = body([sys, user], { tools: [{ ...readFile, function: { ...readFile.function, description: 'Read a text file' } }, listDir] });
    const d = diffRequests(prev, cur);
    const t = d.segments.find((s) => s.label === 'tool read_file')!;
    expect(t.status).toBe('changed');
    expect(t.after).toContain('Read a text file');
  });

  it('matches repeated identical messages one to one', () => {
    const again = { role: 'user', content: 'again' };
    const prev = body([sys, again]);
    const cur = body([sys, again, asks, again]);
    expect(shape(diffRequests(prev, cur)).slice(4)).toEqual([
      'history:same:user message (message 1)',
      'new:added:assistant message with a tool call (message 2)',
      'new:added:user message (message 3)',
    ]);
  });
});
