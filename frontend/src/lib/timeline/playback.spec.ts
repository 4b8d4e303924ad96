import { describe, expect, it } from 'vitest';
import { EventLog } from '../testing/events';
import { buildTimeline } from './group';
import {
  cardIdForEvent,
  clampPosition,
  eventAt,
  eventLabel,
  eventsAt,
  findPosition,
  movePosition,
  positionOfSeq,
  previousRequest,
  requestAt,
} from './playback';

function twoRounds() {
  const log = new EventLog('s1');
  log.user('What is here?'); // 1
  log.request(); // 2
  log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'list_dir', args: { path: '.' } }] }); // 3
  log.toolCall({ call_id: 'c1', name: 'list_dir', args: { path: '.' } }); // 4
  log.checkpoint({ point: 'before_tool', state: 'paused', call_id: 'c1', tool: 'list_dir' }); // 5
  log.checkpoint({ point: 'before_tool', state: 'resumed', call_id: 'c1', tool: 'list_dir', action: 'step' }); // 6
  log.permission('c1', 'list_dir', 'allow', 'rule'); // 7
  log.result({ call_id: 'c1', name: 'list_dir', content: 'main.go' }); // 8
  log.request(); // 9
  log.response({ content: 'A Go program.' }); // 10
  log.end('answered', 'A Go program.'); // 11
  return log.events;
}

describe('playback position', () => {
  it('stays within 1..N, and is 0 with nothing to play', () => {
    expect(clampPosition(0, 5)).toBe(1);
    expect(clampPosition(9, 5)).toBe(5);
    expect(clampPosition(3.4, 5)).toBe(3);
    expect(clampPosition(Number.NaN, 5)).toBe(5);
    expect(clampPosition(3, 0)).toBe(0);
  });

  it('moves one event at a time and stops at either end', () => {
    expect(movePosition(1, 3, -1)).toBe(1);
    expect(movePosition(1, 3, 1)).toBe(2);
    expect(movePosition(3, 3, 1)).toBe(3);
    expect(movePosition(2, 3, 10)).toBe(3);
  });

  it('shows the events up to the position, and the whole log at the end', () => {
    const events = twoRounds();
    expect(eventsAt(events, 3).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(eventsAt(events, events.length)).toBe(events);
    expect(eventsAt(events, 0).map((e) => e.seq)).toEqual([1]);
    expect(eventAt(events, 4)?.kind).toBe('tool_call');
    expect(eventAt([], 1)).toBeUndefined();
  });

  it('finds the position of a seq, also between seqs', () => {
    const events = twoRounds().filter((e) => e.seq !== 5);
    expect(positionOfSeq(events, 4)).toBe(4);
    expect(positionOfSeq(events, 5)).toBe(4);
    expect(positionOfSeq(events, 6)).toBe(5);
    expect(positionOfSeq(events, 999)).toBe(events.length);
  });

  it('jumps to the next and previous model request', () => {
    const events = twoRounds();
    const isRequest = (e: { kind: string }) => e.kind === 'model_request';
    expect(findPosition(events, 1, 1, isRequest)).toBe(2);
    expect(findPosition(events, 2, 1, isRequest)).toBe(9);
    expect(findPosition(events, 9, 1, isRequest)).toBe(9);
    expect(findPosition(events, 8, -1, isRequest)).toBe(2);
    expect(findPosition(events, 2, -1, isRequest)).toBe(2);
  });

  it('follows the latest request for "what the model saw"', () => {
    const events = twoRounds();
    expect(requestAt(events, 1)).toBeUndefined();
    expect(requestAt(events, 2)?.seq).toBe(2);
    expect(requestAt(events, 8)?.seq).toBe(2);
    expect(requestAt(events, 9)?.seq).toBe(9);
    expect(previousRequest(events, 9)?.seq).toBe(2);
    expect(previousRequest(events, 2)).toBeUndefined();
  });

  it('diffs a request after a compaction with the conversation\'s previous request, not the summarising one', () => {
    const log = new EventLog('s1');
    log.user('Read the files'); // 1
    log.request(); // 2
    log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'read_file', args: { path: 'a' } }] }); // 3
    log.result({ call_id: 'c1', name: 'read_file', content: 'aaa' }); // 4
    log.request({ purpose: 'compaction', system: 'You summarise the earlier part of a conversation.', tools: [] }); // 5
    log.response({ request_seq: 5, content: 'A summary.' }); // 6
    log.request(); // 7
    expect(previousRequest(log.events, 7)?.seq).toBe(2);
    // The summarising request itself still compares with the one before it.
    expect(previousRequest(log.events, 5)?.seq).toBe(2);
  });

  it('names the card that shows each event', () => {
    const events = twoRounds();
    const t = buildTimeline(events);
    const call = t.calls.get('c1')!.key;
    const ids = events.map((e) => cardIdForEvent(t, e));
    expect(ids).toEqual(['e:1', 'e:2', 'e:3', call, 'e:5', 'e:5', call, `obs:${call}`, 'e:9', 'e:10', 'e:11']);
  });
});

describe('eventLabel', () => {
  it('names each event in a few words', () => {
    expect(twoRounds().map(eventLabel)).toEqual([
      'Your message (run 1)',
      'Request to the model (round 1)',
      'Model asks for a tool call',
      'Tool call list_dir',
      'Paused at before_tool',
      'Resumed at before_tool',
      'Allowed: list_dir',
      'Result of list_dir',
      'Request to the model (round 2)',
      'Model answers',
      'Run ended: answered',
    ]);
  });
});
