// The timeline as the window lists it: one flat row per run head, round
// head and card, in display order. It is a pure function of the grouped
// log, so the virtual list, keyboard navigation, filters, search and
// "jump to round" all walk the same list, whether a card is on screen or not.
import type { TraceEvent } from '../types';
import type { CallItem, CheckpointItem, HookItem, RoundGroup, RunGroup, StepItem } from './group';
import { callStep, checkpointStep, stepOfEvent, type LoopStep } from './loop';
import type { CardKind } from './nav';

/** What a filter can pick out of a timeline. */
export type Mark = 'error' | 'denied' | 'edited' | 'retried' | 'notice';
export const MARKS: readonly Mark[] = ['error', 'denied', 'edited', 'retried', 'notice'];

/** The fields every card has, whatever it shows. */
interface CardCommon {
  /** The card's id: `card-<id>` in the DOM, the target of jumps and keys. */
  id: string;
  run: number;
  /** 0 before the run's first request (the user's message), and for run ends and restores. */
  round: number;
  /** The event the card's Raw view, time and "show all" are about (none for a call not yet made). */
  event?: TraceEvent;
  /** The loop step the card belongs to, for the diagram (null: none, e.g. a notice). */
  step: LoopStep | null;
  marks: readonly Mark[];
}

export type CardModel = CardCommon &
  (
    | { kind: 'user' | 'request' | 'response' | 'notice' | 'error' | 'end' | 'restore' | 'edit' | 'compaction' | 'hook'; event: TraceEvent }
    | { kind: 'call'; item: CallItem }
    | { kind: 'observation'; item: CallItem; event: TraceEvent }
    | { kind: 'checkpoint'; item: CheckpointItem; event: TraceEvent }
  );

export type Row =
  | { type: 'run'; key: string; run: RunGroup }
  | { type: 'round'; key: string; run: number; group: RoundGroup }
  | { type: 'card'; key: string; card: CardModel; /** Inside a round: drawn on the round's rail. */ inRound: boolean };

function stepCard(s: StepItem, run: number, round: number): CardModel {
  if (s.kind === 'checkpoint') {
    return { kind: 'checkpoint', id: s.key, run, round, item: s, event: s.event, step: checkpointStep(s.event.payload.point).step, marks: [] };
  }
  if (s.kind === 'hook') return hookCardOf(s, run, round);
  return { kind: 'edit', id: s.key, run, round, event: s.event, step: stepOfEvent(s.event), marks: ['edited'] };
}

/** A hook's card. It carries no mark: what it blocked is marked where it shows (the call's denial, the observation's error, the notice). */
function hookCardOf(s: HookItem, run: number, round: number): CardModel {
  return { kind: 'hook', id: s.key, run, round, event: s.event, step: stepOfEvent(s.event), marks: [] };
}

// An edit is marked once, on its own card (one per edit event): the call
// or observation it changed shows it, but does not count it again.
function callMarks(c: CallItem): Mark[] {
  const m: Mark[] = [];
  if (c.permission?.payload.decision === 'deny') m.push('denied');
  if (c.call && !c.call.payload.valid) m.push('error');
  return m;
}

function observationMarks(c: CallItem): Mark[] {
  const m: Mark[] = [];
  // A denial's result is the denial again: the call's card carries it.
  if (c.result?.payload.is_error && c.permission?.payload.decision !== 'deny') m.push('error');
  return m;
}

/** Every row of these runs, in the order the timeline draws them. */
export function timelineRows(runs: readonly RunGroup[]): Row[] {
  const out: Row[] = [];
  const card = (c: CardModel, inRound: boolean) => out.push({ type: 'card', key: c.id, card: c, inRound });
  for (const run of runs) {
    const n = run.run;
    out.push({ type: 'run', key: run.key, run });
    if (run.user) card({ kind: 'user', id: `e:${run.user.seq}`, run: n, round: 0, event: run.user, step: 'append', marks: [] }, false);
    const round = (g: RoundGroup) => {
      const inRound = g.round > 0;
      if (inRound) out.push({ type: 'round', key: g.key, run: n, group: g });
      for (const it of g.items) {
        switch (it.kind) {
          case 'request':
          case 'response':
            card({ kind: it.kind, id: it.key, run: n, round: g.round, event: it.event, step: it.kind === 'request' ? 'send' : 'respond', marks: [] }, inRound);
            break;
          case 'call':
            // What happened before the call was decided (a pause before it,
            // an edit of its arguments there) comes above its card, which
            // holds the decision and what came of it.
            for (const s of it.before) card(stepCard(s, n, g.round), inRound);
            card({ kind: 'call', id: it.key, run: n, round: g.round, item: it, event: it.call, step: callStep(it), marks: callMarks(it) }, inRound);
            if (it.result) {
              card({ kind: 'observation', id: `obs:${it.key}`, run: n, round: g.round, item: it, event: it.result, step: 'append', marks: observationMarks(it) }, inRound);
            }
            for (const s of it.after) card(stepCard(s, n, g.round), inRound);
            break;
          case 'checkpoint':
          case 'edit':
          case 'hook':
            card(stepCard(it, n, g.round), inRound);
            break;
          case 'notice':
            card({ kind: 'notice', id: it.key, run: n, round: g.round, event: it.event, step: null, marks: it.event.payload.code === 'retry' ? ['retried', 'notice'] : ['notice'] }, inRound);
            break;
          case 'error':
            card({ kind: 'error', id: it.key, run: n, round: g.round, event: it.event, step: 'stop', marks: ['error'] }, inRound);
            break;
          case 'compaction':
            card({ kind: 'compaction', id: it.key, run: n, round: g.round, event: it.event, step: 'append', marks: [] }, inRound);
            break;
        }
      }
    };
    for (const g of run.rounds) if (!g.afterEnd) round(g);
    if (run.end) {
      const failed = ['error', 'timeout', 'truncated', 'does_not_fit'].includes(run.end.payload.reason);
      card({ kind: 'end', id: `e:${run.end.seq}`, run: n, round: 0, event: run.end, step: 'stop', marks: failed ? ['error'] : [] }, false);
    }
    // Compact now, after the run: its request, answer and compaction.
    for (const g of run.rounds) if (g.afterEnd) round(g);
    for (const r of run.restores) card({ kind: 'restore', id: `e:${r.seq}`, run: n, round: 0, event: r, step: null, marks: [] }, false);
  }
  return out;
}

/** The cards among the rows. */
export function cardsOf(rows: readonly Row[]): CardModel[] {
  const out: CardModel[] = [];
  for (const r of rows) if (r.type === 'card') out.push(r.card);
  return out;
}

/**
 * The rows a filter keeps: the cards with the mark, under the heads of
 * their runs and rounds (heads with nothing left under them go).
 */
export function filterRows(rows: readonly Row[], mark: Mark | null): readonly Row[] {
  if (mark == null) return rows;
  const out: Row[] = [];
  let runHead: Row | null = null;
  let roundHead: Row | null = null;
  for (const r of rows) {
    if (r.type === 'run') {
      runHead = r;
      roundHead = null;
    } else if (r.type === 'round') {
      roundHead = r;
    } else if (r.card.marks.includes(mark)) {
      if (runHead) out.push(runHead);
      runHead = null;
      if (r.inRound && roundHead) out.push(roundHead);
      if (r.inRound) roundHead = null;
      out.push(r);
    }
  }
  return out;
}

/** How many cards carry each mark. */
export function markCounts(cards: readonly CardModel[]): Record<Mark, number> {
  const n: Record<Mark, number> = { error: 0, denied: 0, edited: 0, retried: 0, notice: 0 };
  for (const c of cards) for (const m of c.marks) n[m]++;
  return n;
}

/** A run's marks in a few words and where each part leads: "2 edited · 1 denied". */
export interface SummaryPart {
  mark: Mark;
  count: number;
  label: string;
  /** The cards it stands for, in order: a click goes to the next one. */
  ids: string[];
}

const markWords: Record<Mark, [string, string]> = {
  error: ['error', 'errors'],
  denied: ['denied', 'denied'],
  edited: ['edit', 'edits'],
  retried: ['retry', 'retries'],
  notice: ['notice', 'notices'],
};

/** The parts of a run's summary, from its cards (no part for a mark it has none of). */
export function runSummary(cards: readonly CardModel[], run: number): SummaryPart[] {
  return runSummaries(cards).get(run) ?? [];
}

/** Every run's summary parts, in one pass over the cards. */
export function runSummaries(cards: readonly CardModel[]): Map<number, SummaryPart[]> {
  const byRun = new Map<number, Record<Mark, string[]>>();
  for (const c of cards) {
    if (c.marks.length === 0) continue;
    let ids = byRun.get(c.run);
    if (!ids) byRun.set(c.run, (ids = { error: [], denied: [], edited: [], retried: [], notice: [] }));
    for (const m of c.marks) ids[m].push(c.id);
  }
  const out = new Map<number, SummaryPart[]>();
  for (const [run, ids] of byRun) {
    const parts: SummaryPart[] = [];
    // A retry is a notice too: "1 retry" says it, "1 notice" would repeat it.
    const retried = new Set(ids.retried);
    for (const mark of MARKS) {
      const list = mark === 'notice' ? ids.notice.filter((id) => !retried.has(id)) : ids[mark];
      if (list.length === 0) continue;
      const [one, many] = markWords[mark];
      parts.push({ mark, count: list.length, label: `${list.length} ${list.length === 1 ? one : many}`, ids: list });
    }
    out.set(run, parts);
  }
  return out;
}

/** The index of the row of a card, or -1. */
export function rowIndexOf(rows: readonly Row[], id: string): number {
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    if (r.type === 'card' && r.card.id === id) return i;
  }
  return -1;
}

/**
 * The first card of round N of a run (the latest run when none is given),
 * or null when there is no such round. Round numbers restart each run.
 */
export function roundCard(cards: readonly CardModel[], round: number, run?: number): string | null {
  let target = run;
  if (target == null) {
    for (const c of cards) if (c.round === round && c.round > 0) target = c.run;
  }
  for (const c of cards) if (c.run === target && c.round === round && round > 0) return c.id;
  return null;
}

/** The text a card shows, for search: what the user could read on it. */
export function cardText(c: CardModel): string {
  const e = c.event;
  const parts: string[] = [];
  if (c.kind === 'call') {
    parts.push(c.item.name, JSON.stringify(c.item.call?.payload.args ?? c.item.asked?.args ?? ''));
    if (c.item.permission) parts.push(c.item.permission.payload.decision, ...(c.item.permission.payload.reasons ?? []));
    return parts.join('\n');
  }
  if (!e) return '';
  switch (e.kind) {
    case 'user_message':
      return e.payload.text;
    case 'model_request':
      return e.payload.model;
    case 'model_response':
      return [e.payload.content, e.payload.thinking ?? '', ...(e.payload.tool_calls ?? []).map((t) => `${t.name} ${JSON.stringify(t.args)}`)].join('\n');
    case 'tool_result': {
      const edited = c.kind === 'observation' ? c.item.resultEdit?.payload.after : undefined;
      return [e.payload.name, e.payload.content, typeof edited === 'string' ? edited : ''].join('\n');
    }
    case 'notice':
    case 'error':
      return `${e.payload.code}\n${e.payload.message}`;
    case 'run_end':
      return [e.payload.reason, e.payload.detail ?? '', e.payload.final_text ?? ''].join('\n');
    case 'edit':
      return [e.payload.target, typeof e.payload.after === 'string' ? e.payload.after : JSON.stringify(e.payload.after ?? '')].join('\n');
    case 'checkpoint':
      return `${e.payload.point} ${e.payload.tool ?? ''}`;
    case 'restore':
      return (e.payload.restored ?? []).join('\n');
    default:
      return '';
  }
}

/** The ids of the cards whose text holds the query (case does not matter), in order. */
export function searchCards(cards: readonly CardModel[], query: string): string[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const out: string[] = [];
  for (const c of cards) if (cardText(c).toLowerCase().includes(q)) out.push(c.id);
  return out;
}

/** The kinds of card, for code that only needs id and kind. */
export type { CardKind };
