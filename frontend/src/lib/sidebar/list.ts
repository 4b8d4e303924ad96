// The sidebar's list and search results as pure functions: how sessions
// are grouped (pinned on top, then by the day of their last activity),
// the order ↑ / ↓ walk, and the hits of a search in the order drawn.
import { forkTree } from '../timeline/forks';
import type { SearchResults, Summary } from '../types';

export interface DayGroup {
  /** Stable across renders: "pinned", or the local day (YYYY-MM-DD). */
  key: string;
  /** What the group's head says: Pinned, Today, Yesterday, or the date. */
  label: string;
  sessions: Summary[];
  /** How deep in the tree of forks each session of the group is drawn (absent: 0). */
  depth: Record<string, number>;
}

function dayKey(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

const sameYear = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
const otherYear = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric' });

/** The head of a day's group, in the local time zone. */
export function dayLabel(t: number, now: number): string {
  const d = new Date(t);
  const today = new Date(now);
  if (dayKey(d) === dayKey(today)) return 'Today';
  const y = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 1);
  if (dayKey(d) === dayKey(y)) return 'Yesterday';
  return d.getFullYear() === today.getFullYear() ? sameYear.format(d) : otherYear.format(d);
}

/**
 * The list in groups: the pinned sessions first (most recent first), then
 * one group per local day of last activity, newest day first. A time that
 * does not parse goes to an "Earlier" group at the end.
 */
export function groupSessions(list: readonly Summary[], now: number): DayGroup[] {
  const byTime = (a: Summary, b: Summary) => time(b) - time(a);
  const pinned = list.filter((s) => s.pinned).sort(byTime);
  const rest = list.filter((s) => !s.pinned).sort(byTime);
  const groups: DayGroup[] = pinned.length ? [{ key: 'pinned', label: 'Pinned', sessions: pinned, depth: {} }] : [];
  const byDay = new Map<string, DayGroup>();
  for (const s of rest) {
    const t = time(s);
    const key = t > 0 ? dayKey(new Date(t)) : 'earlier';
    let g = byDay.get(key);
    if (!g) {
      g = { key, label: t > 0 ? dayLabel(t, now) : 'Earlier', sessions: [], depth: {} };
      byDay.set(key, g);
      groups.push(g);
    }
    g.sessions.push(s);
  }
  return treeOf(groups);
}

/**
 * The groups with each fork drawn right under the session it came from,
 * in that session's group, and its depth: the tree of forks. A fork whose
 * parent is not listed stays in its own place.
 */
function treeOf(groups: DayGroup[]): DayGroup[] {
  const home = new Map<string, DayGroup>();
  for (const g of groups) for (const s of g.sessions) home.set(s.id, g);
  const out = groups.map((g) => ({ ...g, sessions: [] as Summary[], depth: {} as Record<string, number> }));
  const byKey = new Map(out.map((g) => [g.key, g]));
  let cur: DayGroup | undefined;
  for (const { summary, depth } of forkTree(groups.flatMap((g) => g.sessions))) {
    if (depth === 0 || !cur) cur = byKey.get(home.get(summary.id)!.key);
    cur!.sessions.push(summary);
    if (depth > 0) cur!.depth[summary.id] = depth;
  }
  return out.filter((g) => g.sessions.length > 0);
}

function time(s: Summary): number {
  const v = Date.parse(s.updated_at);
  return Number.isFinite(v) ? v : 0;
}

/** The ids in the order the groups draw them: what ↑ / ↓ walk. */
export function listOrder(groups: readonly DayGroup[]): string[] {
  return groups.flatMap((g) => g.sessions.map((s) => s.id));
}

/**
 * The id after (1) or before (-1) the current one; with none (or one gone)
 * ↓ starts at the first and ↑ at the last. Stays put at either end.
 */
export function step(ids: readonly string[], current: string | null, dir: 1 | -1): string | null {
  if (ids.length === 0) return null;
  const i = current == null ? -1 : ids.indexOf(current);
  if (i < 0) return dir === 1 ? ids[0]! : ids[ids.length - 1]!;
  return ids[Math.min(ids.length - 1, Math.max(0, i + dir))]!;
}

/** One hit of a search, named by its session and event. */
export interface HitRef {
  key: string;
  session: string;
  seq: number;
}

export const hitKey = (session: string, seq: number) => `${session}:${seq}`;

/** The hits in the order they are drawn (sessions as the results give them, each one's hits in log order). */
export function hitOrder(r: SearchResults | null): HitRef[] {
  if (!r) return [];
  return r.sessions.flatMap((s) => s.hits.map((h) => ({ key: hitKey(s.session_id, h.seq), session: s.session_id, seq: h.seq })));
}

/**
 * ↑ / ↓ through the hits: from the box (current null) ↓ takes the first;
 * ↑ from the first goes back to the box (null). Stays at the last.
 */
export function stepHit(hits: readonly HitRef[], current: string | null, dir: 1 | -1): string | null {
  if (hits.length === 0) return null;
  const i = current == null ? -1 : hits.findIndex((h) => h.key === current);
  if (i < 0) return dir === 1 ? hits[0]!.key : null;
  const j = i + dir;
  if (j < 0) return null;
  return hits[Math.min(hits.length - 1, j)]!.key;
}

/** What a card of this kind is called in a result. */
export function kindLabel(kind: string): string {
  return (
    {
      user_message: 'Your message',
      model_request: 'Request',
      model_response: 'Answer',
      tool_call: 'Tool call',
      permission: 'Permission',
      tool_result: 'Tool result',
      notice: 'Notice',
      error: 'Error',
      run_end: 'Run end',
      checkpoint: 'Pause',
      edit: 'Edit',
      restore: 'Restore',
      compaction: 'Compaction',
    } as Record<string, string>
  )[kind] ?? kind;
}

/** Search's date filter: a day's choice as the half-open range the backend takes (local days). */
export function dayRange(from: string, to: string): { from?: string; to?: string } {
  const at = (d: string, plus: number) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(d);
    if (!m) return undefined;
    return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + plus).toISOString();
  };
  const out: { from?: string; to?: string } = {};
  const f = at(from, 0);
  const t = at(to, 1); // "to" names a day: up to its end
  if (f) out.from = f;
  if (t) out.to = t;
  return out;
}

/** The index's progress, as a sentence, while older events are indexed; "" when done. */
export function indexProgress(st: { indexed: number; total: number } | null): string {
  if (!st || st.total <= 0 || st.indexed >= st.total) return '';
  const pct = Math.floor((st.indexed / st.total) * 100);
  return `Indexing older sessions for search: ${st.indexed.toLocaleString()} of ${st.total.toLocaleString()} events (${pct}%). Results may miss some until it is done.`;
}
