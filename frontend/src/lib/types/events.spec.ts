import { describe, expect, it } from 'vitest';
import { EventLog } from '../testing/events';
import { isKind, isModelResponse, isToolCall, parseEvent } from './events';

describe('parseEvent', () => {
  it('accepts a well-formed event as it is', () => {
    const e = new EventLog('s1').user('hello');
    expect(parseEvent(JSON.parse(JSON.stringify(e)))).toEqual(e);
  });

  it('rejects what is not an event', () => {
    expect(parseEvent(null)).toBeNull();
    expect(parseEvent('x')).toBeNull();
    expect(parseEvent({ seq: 1, kind: 'notice' })).toBeNull();
    expect(parseEvent({ session_id: 's', seq: '1', kind: 'notice', payload: {} })).toBeNull();
    expect(parseEvent({ session_id: 's', seq: 1, kind: 'notice', payload: null })).toBeNull();
  });

  it('turns an unknown kind into a notice that says so', () => {
    const e = parseEvent({ session_id: 's', seq: 4, kind: 'telemetry', time: 't', run: 1, round: 2, payload: {} });
    expect(e?.kind).toBe('notice');
    expect(e?.seq).toBe(4);
    if (e && isKind(e, 'notice')) expect(e.payload.message).toContain('telemetry');
  });
});

describe('type guards', () => {
  it('narrow on kind', () => {
    const log = new EventLog();
    log.user('x');
    log.request();
    const r = log.response({ content: 'hi' });
    const c = log.toolCall({ call_id: 'c1', name: 'read_file' });
    expect(isModelResponse(r)).toBe(true);
    expect(isModelResponse(c)).toBe(false);
    expect(isToolCall(c)).toBe(true);
    if (isModelResponse(r)) expect(r.payload.content).toBe('hi');
  });
});
