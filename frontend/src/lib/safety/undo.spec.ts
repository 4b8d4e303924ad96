import { describe, expect, it } from 'vitest';
import { EventLog } from '../testing/events';
import { buildTimeline, flattenCards } from '../timeline';
import { callChanges, callRestoreSeq, runChangedFiles, runUndoneBy } from './undo';

/** Run 1 edits a.txt and creates b.txt; run 2 edits a.txt again. */
function log() {
  const l = new EventLog();
  l.user('one'); // 1
  l.request(); // 2
  l.response({ tool_calls: [{ id: 'c1', index: 0, name: 'edit_file', args: {} }, { id: 'c2', index: 1, name: 'write_file', args: {} }] }); // 3
  l.toolCall({ call_id: 'c1', name: 'edit_file' }); // 4
  l.toolCall({ call_id: 'c2', name: 'write_file' }); // 5
  l.result({ call_id: 'c1', name: 'edit_file', changes: [{ path: 'a.txt', before: 'a0', after: 'a1' }] }); // 6
  l.result({ call_id: 'c2', name: 'write_file', changes: [{ path: 'b.txt', before: null, after: 'b1' }] }); // 7
  l.end('answered'); // 8
  l.user('two'); // 9
  l.request(); // 10
  l.response({ tool_calls: [{ id: 'c3', index: 0, name: 'edit_file', args: {} }] }); // 11
  l.toolCall({ call_id: 'c3', name: 'edit_file' }); // 12
  l.result({ call_id: 'c3', name: 'edit_file', changes: [{ path: 'a.txt', before: 'a1', after: 'a2' }] }); // 13
  l.end('answered'); // 14
  return l;
}

describe('undo in the timeline', () => {
  it('lists the files a run and a call changed, and the seq a call restores to', () => {
    const t = buildTimeline(log().events);
    expect(runChangedFiles(t.runs[0]!)).toEqual(['a.txt', 'b.txt']);
    expect(runChangedFiles(t.runs[1]!)).toEqual(['a.txt']);
    const c2 = t.calls.get('c2')!;
    expect(callChanges(c2)).toEqual([{ path: 'b.txt', before: null, after: 'b1' }]);
    expect(callRestoreSeq(c2)).toBe(5);
  });

  it('knows a run was undone until a tool changes a file again', () => {
    const l = log();
    expect(runUndoneBy(l.events, 2)).toBeUndefined();
    const r = l.restore({ to_seq: 9, run: 2, restored: ['a.txt'], changes: [{ path: 'a.txt', before: 'a2', after: 'a1' }] });
    expect(runUndoneBy(l.events, 2)).toBe(r);
    // Restoring to a later event does not undo run 1.
    expect(runUndoneBy(l.events, 1)).toBeUndefined();
    l.user('three');
    l.result({ call_id: 'c4', name: 'edit_file', changes: [{ path: 'a.txt', before: 'a1', after: 'a3' }] });
    expect(runUndoneBy(l.events, 2)).toBeUndefined();
  });

  it('shows restores after the end of the run they were recorded in, and in the card order', () => {
    const l = log();
    const r = l.restore({ to_seq: 1, restored: ['a.txt', 'b.txt'] });
    const t = buildTimeline(l.events);
    expect(t.runs[1]!.restores).toEqual([r]);
    expect(flattenCards(t.runs).at(-1)).toEqual({ id: `e:${r.seq}`, kind: 'restore' });
  });
});
