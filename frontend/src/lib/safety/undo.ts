// Undo of file changes: which files a call or a run changed, whether a
// run's changes were already put back, and the restore itself as
// session.restore computes it (the fake bridge uses it; the real one asks
// the backend).
import type { Conflict, FileChange, RestoreEvent, TraceEvent } from '../types';
import type { CallItem, RunGroup } from '../timeline';

/** The files a call changed (empty when it changed none). */
export function callChanges(c: CallItem): FileChange[] {
  return c.result?.payload.changes ?? [];
}

/** The seq to restore to for "Restore files to before this step": the call's own event. */
export function callRestoreSeq(c: CallItem): number | null {
  return c.call?.seq ?? c.permission?.seq ?? c.result?.seq ?? null;
}

/** The paths a run's calls changed, in order, each once. */
export function runChangedFiles(run: RunGroup): string[] {
  const out: string[] = [];
  for (const g of run.rounds) {
    for (const it of g.items) {
      if (it.kind !== 'call') continue;
      for (const ch of callChanges(it)) if (!out.includes(ch.path)) out.push(ch.path);
    }
  }
  return out;
}

/**
 * The restore that put a run's files back, if nothing changed them again
 * since: a restore to at or before the run's first change, after its last
 * change, with no tool changes after it.
 */
export function runUndoneBy(events: readonly TraceEvent[], run: number): RestoreEvent | undefined {
  let first = -1;
  let last = -1;
  for (const e of events) {
    if (e.kind === 'tool_result' && e.run === run && (e.payload.changes ?? []).length > 0) {
      if (first < 0) first = e.seq;
      last = e.seq;
    }
  }
  if (first < 0) return undefined;
  let found: RestoreEvent | undefined;
  for (const e of events) {
    if (e.seq <= last) continue;
    if (e.kind === 'restore' && e.payload.to_seq <= first) found = e;
    else if (found && e.kind === 'tool_result' && (e.payload.changes ?? []).length > 0) found = undefined;
  }
  return found;
}

export interface RestorePlan {
  /** The files to put back, sorted. */
  paths: string[];
  /** Files changed outside Loupe since Loupe last wrote them, sorted by path. */
  conflicts: Conflict[];
  /** What each file gets: its content before the first change in range, or null to remove it. */
  writes: { path: string; content: string | null }[];
  /** The restore's own record: what each file held before (now) and after (then). */
  changes: FileChange[];
}

/**
 * What restoring to before event toSeq does (session.restore): every file
 * a tool or a restore changed at or after toSeq goes back to its content
 * before the first such change. read gives a file's content now (null when
 * it does not exist, undefined when not known: taken to be as Loupe left
 * it).
 */
export function planRestore(
  events: readonly TraceEvent[],
  toSeq: number,
  read: (path: string) => string | null | undefined,
): RestorePlan {
  const files = new Map<string, { before: string | null; last: string | null; inRange: boolean }>();
  for (const e of events) {
    const changes = e.kind === 'tool_result' || e.kind === 'restore' ? (e.payload.changes ?? []) : [];
    for (const c of changes) {
      let f = files.get(c.path);
      if (!f) {
        f = { before: null, last: null, inRange: false };
        files.set(c.path, f);
      }
      if (e.seq >= toSeq && !f.inRange) {
        f.before = c.before;
        f.inRange = true;
      }
      f.last = c.after;
    }
  }
  const paths = [...files.entries()].filter(([, f]) => f.inRange).map(([p]) => p).sort();
  const conflicts: Conflict[] = [];
  const changes: FileChange[] = [];
  for (const p of paths) {
    const f = files.get(p)!;
    const known = read(p);
    const cur = known === undefined ? f.last : known;
    if (f.last == null && cur != null) conflicts.push({ path: p, reason: 'it was created again outside Loupe' });
    else if (f.last != null && cur == null) conflicts.push({ path: p, reason: 'it was deleted outside Loupe' });
    else if (f.last != null && cur !== f.last) conflicts.push({ path: p, reason: 'it was changed outside Loupe' });
    changes.push({ path: p, before: cur, after: f.before });
  }
  return { paths, conflicts, writes: paths.map((p) => ({ path: p, content: files.get(p)!.before })), changes };
}
