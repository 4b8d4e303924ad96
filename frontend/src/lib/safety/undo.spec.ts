import { describe, expect, it } from 'vitest';
import { EventLog } from '../bridge/fixtures';
import { buildTimeline, flattenCards } from '../timeline';
import { callChanges, callRestoreSeq, planRestore, runChangedFiles, runUndoneBy } from './undo';

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

describe('planRestore', () => {
  it('puts every file changed at or after the event back as it was before the first such change', () => {
    const p = planRestore(log().events, 1, () => undefined);
    expect(p.paths).toEqual(['a.txt', 'b.txt']);
    expect(p.conflicts).toEqual([]);
    expect(p.writes).toEqual([
      { path: 'a.txt', content: 'a0' },
      { path: 'b.txt', content: null },
    ]);
    expect(p.changes).toEqual([
      { path: 'a.txt', before: 'a2', after: 'a0' },
      { path: 'b.txt', before: 'b1', after: null },
    ]);
  });

  it('leaves files changed only before the event alone', () => {
    const p = planRestore(log().events, 9, () => undefined);
    expect(p.writes).toEqual([{ path: 'a.txt', content: 'a1' }]);
  });

  it('reports files changed, deleted or created again outside Loupe', () => {
    const now: Record<string, string | null> = { 'a.txt': 'edited by hand', 'b.txt': null };
    const p = planRestore(log().events, 1, (f) => now[f]);
    expect(p.conflicts).toEqual([
      { path: 'a.txt', reason: 'it was changed outside Loupe' },
      { path: 'b.txt', reason: 'it was deleted outside Loupe' },
    ]);
    const l = log();
    l.result({ call_id: 'c9', name: 'x', changes: [{ path: 'b.txt', before: 'b1', after: null }] });
    expect(planRestore(l.events, 1, () => 'back').conflicts).toContainEqual({ path: 'b.txt', reason: 'it was created again outside Loupe' });
  });

  it('knows the files as a restore left them', () => {
    const l = log();
    l.restore({ to_seq: 9, run: 2, restored: ['a.txt'], changes: [{ path: 'a.txt', before: 'a2', after: 'a1' }] });
    // a.txt is a1 on disk now, as the restore left it: no conflict.
    expect(planRestore(l.events, 1, () => 'a1').conflicts.filter((c) => c.path === 'a.txt')).toEqual([]);
    expect(planRestore(l.events, 1, () => 'a2').conflicts).toContainEqual({ path: 'a.txt', reason: 'it was changed outside Loupe' });
  });
});

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
