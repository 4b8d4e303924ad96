// Undo of file changes as the timeline shows them: which files a call or
// a run changed, and whether a run's changes were already put back. The
// restore itself is the backend's (session.RestoreFiles, UndoRun).
import type { FileChange, RestoreEvent, TraceEvent } from '../types';
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
