import { describe, expect, it } from 'vitest';
import type { Pause, PendingRequest } from '../types';
import { PauseDraft, pauseKey, requestEditOf, sameJson } from './pause.svelte';

const req: PendingRequest = {
  model: 'qwen3:0.6b',
  system: 'Be helpful.',
  options: { num_ctx: 8192, temperature: 0.2 },
  tools: ['read_file'],
  messages: [
    { seq: 1, role: 'user', content: 'hi' },
    { seq: 3, role: 'assistant', content: 'hello' },
  ],
};
const draftOf = (p: Partial<{ system: string; numCtx: string; temperature: string; messages: Record<number, string> }> = {}) => ({
  system: req.system,
  numCtx: '8192',
  temperature: '0.2',
  messages: { 1: 'hi', 3: 'hello' },
  ...p,
});

describe('requestEditOf', () => {
  it('is null when nothing changed', () => {
    expect(requestEditOf(req, draftOf())).toBeNull();
    expect(requestEditOf(req, draftOf({ numCtx: ' 8192 ', temperature: '0.20' }))).toBeNull();
  });

  it('sends only what changed', () => {
    expect(requestEditOf(req, draftOf({ system: 'Be brief.' }))).toEqual({ system: 'Be brief.' });
    expect(requestEditOf(req, draftOf({ numCtx: '16384' }))).toEqual({ options: { num_ctx: 16384, temperature: 0.2 } });
    expect(requestEditOf(req, draftOf({ messages: { 1: 'hi', 3: 'HELLO' } }))).toEqual({ messages: [{ seq: 3, content: 'HELLO' }] });
  });

  it('refuses options that are not numbers', () => {
    expect(() => requestEditOf(req, draftOf({ numCtx: 'big' }))).toThrow(/num_ctx/);
    expect(() => requestEditOf(req, draftOf({ numCtx: '0' }))).toThrow(/num_ctx/);
    expect(() => requestEditOf(req, draftOf({ numCtx: '1.5' }))).toThrow(/num_ctx/);
    expect(() => requestEditOf(req, draftOf({ temperature: '' }))).toThrow(/temperature/);
    expect(() => requestEditOf(req, draftOf({ temperature: '-1' }))).toThrow(/temperature/);
  });
});

describe('PauseDraft', () => {
  it('starts from the pause and knows when it is edited', () => {
    const p: Pause = { seq: 11, point: 'before_tool', run: 1, round: 2, call_id: 'c1', tool: 'read_file', args: { path: 'a' } };
    const d = new PauseDraft(p);
    expect(d.key).toBe(pauseKey(p));
    expect(JSON.parse(d.args)).toEqual({ path: 'a' });
    expect(d.dirty).toBe(false);
    d.args = '{"path":"a"}';
    expect(d.dirty).toBe(false);
    d.args = '{"path":"b"}';
    expect(d.dirty).toBe(true);
    d.args = '{broken';
    expect(d.dirty).toBe(true);
  });

  it('edits a result and a request', () => {
    const r = new PauseDraft({
      seq: 12,
      point: 'after_result',
      run: 1,
      round: 1,
      call_id: 'c1',
      result: { call_id: 'c1', name: 'read_file', content: 'x', is_error: false, truncated: false, bytes: 1, duration_ms: 1 },
    });
    expect(r.dirty).toBe(false);
    r.result = 'y';
    expect(r.dirty).toBe(true);
    const q = new PauseDraft({ seq: 13, point: 'before_request', run: 1, round: 1, request: req });
    expect(q.dirty).toBe(false);
    q.messages[1] = 'hey';
    expect(q.requestEdit()).toEqual({ messages: [{ seq: 1, content: 'hey' }] });
    q.numCtx = 'x';
    expect(q.dirty).toBe(true);
  });

  it('takes sent edits as its new baseline', () => {
    const q = new PauseDraft({ seq: 14, point: 'before_request', run: 1, round: 1, request: req });
    q.system = 'Be brief.';
    q.messages[3] = 'HELLO';
    expect(q.dirty).toBe(true);
    q.applied();
    expect(q.dirty).toBe(false);
    expect(q.pause.request?.system).toBe('Be brief.');
    expect(q.pause.request?.messages?.[1]?.content).toBe('HELLO');
    const t = new PauseDraft({ seq: 15, point: 'before_tool', run: 1, round: 1, call_id: 'c1', tool: 'read_file', args: { path: 'a' } });
    t.args = '{"path": "b"}';
    t.applied();
    expect(t.dirty).toBe(false);
    expect(t.pause.args).toEqual({ path: 'b' });
  });

  it('compares JSON whatever the spacing', () => {
    expect(sameJson('{"a": 1}', '{ "a":1 }')).toBe(true);
    expect(sameJson('{"a": 1}', '{"a": 2}')).toBe(false);
    expect(sameJson('{', '{')).toBe(false);
  });
});
