import { describe, expect, it } from 'vitest';
import { groupSessions } from '../sidebar/list';
import type { Summary } from '../types';
import { forkTree, forksAt } from './forks';

const s = (id: string, updated: string, forked_from = '', fork_seq = 0): Summary =>
  ({ id, title: id, model: 'm', workspace: '/w', updated_at: updated, created_at: updated, forked_from, fork_seq, pinned: false }) as unknown as Summary;

describe('forks in the list', () => {
  const parent = s('p', '2026-01-01T10:00:00Z');
  const a = s('a', '2026-01-03T10:00:00Z', 'p', 5);
  const b = s('b', '2026-01-02T10:00:00Z', 'p', 9);
  const aa = s('aa', '2026-01-03T11:00:00Z', 'a', 2);
  const lone = s('lone', '2026-01-02T12:00:00Z', 'gone', 3);

  it('draws each fork under the session it came from, with its depth', () => {
    const tree = forkTree([aa, a, lone, b, parent]);
    expect(tree.map((t) => `${t.summary.id}:${t.depth}`)).toEqual(['lone:0', 'p:0', 'a:1', 'aa:2', 'b:1']);
  });

  it('keeps a fork in its parent group, whatever its day', () => {
    const groups = groupSessions([aa, a, lone, b, parent], Date.parse('2026-01-03T12:00:00Z'));
    const where = groups.flatMap((g) => g.sessions.map((x) => `${g.key}/${x.id}/${g.depth[x.id] ?? 0}`));
    expect(where).toEqual(['2026-01-02/lone/0', '2026-01-01/p/0', '2026-01-01/a/1', '2026-01-01/aa/2', '2026-01-01/b/1']);
  });

  it('finds the forks made at a card', () => {
    expect(forksAt([a, b, aa], 'p', [9, 10]).map((x) => x.id)).toEqual(['b']);
  });
});
