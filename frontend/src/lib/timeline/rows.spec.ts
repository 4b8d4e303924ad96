import { describe, expect, it } from 'vitest';
import { allRecordings, recording } from '../replay/recordings';
import { EventLog } from '../testing/events';
import { parseEvent, type TraceEvent } from '../types';
import { buildTimeline } from './group';
import { flattenCards } from './nav';
import { cardsOf, cardText, filterRows, markCounts, roundCard, rowIndexOf, runSummary, searchCards, timelineRows, type Row } from './rows';

/** The events a Go recording committed, in order. */
const eventsOf = (name: string): TraceEvent[] =>
  recording(name).steps.flatMap((s) => (s.event !== undefined ? [parseEvent(s.event)!] : []));
const rowsOf = (events: readonly TraceEvent[]) => timelineRows(buildTimeline(events).runs);
const shape = (rows: readonly Row[]) => rows.map((r) => (r.type === 'card' ? `${r.inRound ? '  ' : ''}${r.card.kind}` : r.type));

describe('timelineRows', () => {
  it('lists a run as the timeline draws it: heads, then each card once, on its round', () => {
    const log = new EventLog();
    log.user('list');
    log.request();
    log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'list_dir', args: { path: '.' } }] });
    log.toolCall({ call_id: 'c1', name: 'list_dir', args: { path: '.' }, read_only: true });
    log.permission('c1', 'list_dir', 'allow', 'rule: read-only');
    log.result({ call_id: 'c1', name: 'list_dir', content: 'a.go' });
    log.request();
    log.response({ content: 'done' });
    log.end('answered', 'done');
    const rows = rowsOf(log.events);
    expect(shape(rows)).toEqual([
      'run', 'user',
      'round', '  request', '  response', '  call', '  observation',
      'round', '  request', '  response',
      'end',
    ]);
    // Each card knows its run, round and the event its Raw shows.
    const obs = cardsOf(rows).find((c) => c.kind === 'observation')!;
    expect(obs).toMatchObject({ run: 1, round: 1, step: 'append' });
    expect(obs.event?.kind).toBe('tool_result');
    expect(cardsOf(rows).find((c) => c.kind === 'end')).toMatchObject({ round: 0, step: 'stop' });
  });

  it('is the order j and k walk, for every recording of the Go engine', () => {
    for (const name of ['tour', 'step_through', 'step_edits', 'parallel_calls', 'deny_protected', 'undo_turn', 'error_kinds']) {
      const runs = buildTimeline(eventsOf(name)).runs;
      const ids = cardsOf(timelineRows(runs)).map((c) => c.id);
      expect(new Set(ids).size, `${name}: each card once`).toBe(ids.length);
      expect(flattenCards(runs).map((c) => c.id)).toEqual(ids);
    }
  });

  it('shows a pause once, on its call, between the call and its observation', () => {
    const rows = rowsOf(eventsOf('step_through'));
    const kinds = shape(rows).map((s) => s.trim());
    const call = kinds.indexOf('call');
    expect(kinds.slice(call - 1, call + 3)).toEqual(['checkpoint', 'call', 'observation', 'checkpoint']);
    const pauses = cardsOf(rows).filter((c) => c.kind === 'checkpoint');
    expect(new Set(pauses.map((p) => p.id)).size).toBe(pauses.length);
  });

  it('draws what happened before a call was decided above its card, and what came after its result below, in every recording', () => {
    // The call's card holds its decision (and the question before it): a
    // pause before the call, or an edit of its arguments there, happened
    // first, so it sits above; a pause or an edit after the result, below
    // the observation.
    let seen = 0;
    for (const [name, rec] of allRecordings()) {
      const events = rec.steps.flatMap((s) => (s.event !== undefined ? [parseEvent(s.event)!] : []));
      const cards = cardsOf(rowsOf(events));
      const at = new Map(cards.map((c, i) => [c.id, i]));
      for (const c of cards) {
        if (c.kind !== 'call') continue;
        const i = at.get(c.id)!;
        for (const b of c.item.before) {
          expect(at.get(b.key)!, `${name}: ${b.key} (before ${c.item.callId}) above its call`).toBeLessThan(i);
          seen++;
        }
        const obs = at.get(`obs:${c.id}`) ?? i;
        for (const a of c.item.after) expect(at.get(a.key)!, `${name}: ${a.key} (after ${c.item.callId}) below its observation`).toBeGreaterThan(obs);
      }
    }
    expect(seen, 'the recordings pause before a call somewhere').toBeGreaterThan(0);
  });
});

describe('marks, filters and the run summary', () => {
  it('marks a denied call, an edit, an error and a retry, and keeps only their cards under their heads', () => {
    const log = new EventLog();
    log.user('go');
    log.request();
    log.notice('retry', 'Ollama answered 503; trying again in 1 s');
    log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'write_file', args: { path: '.env' } }] });
    log.toolCall({ call_id: 'c1', name: 'write_file', args: { path: '.env' }, read_only: false });
    log.permission('c1', 'write_file', 'deny', 'rule: protected');
    log.result({ call_id: 'c1', name: 'write_file', content: 'refused', is_error: true });
    log.request();
    log.response({ tool_calls: [{ id: 'c2', index: 0, name: 'read_file', args: { path: 'x' } }] });
    log.toolCall({ call_id: 'c2', name: 'read_file', args: { path: 'x' }, read_only: true });
    log.permission('c2', 'read_file', 'allow', 'rule: read-only');
    log.result({ call_id: 'c2', name: 'read_file', content: 'x does not exist', is_error: true });
    log.edit({ target: 'result', call_id: 'c2', before: 'x does not exist', after: 'x is empty' });
    log.end('answered', 'ok');
    const rows = rowsOf(log.events);
    const cards = cardsOf(rows);
    expect(markCounts(cards)).toEqual({ error: 1, denied: 1, edited: 1, retried: 1, notice: 1 });
    // The denial's result repeats the denial: only the call carries it.
    expect(cards.find((c) => c.marks.includes('denied'))?.kind).toBe('call');
    expect(cards.find((c) => c.marks.includes('error'))?.kind).toBe('observation');

    expect(shape(filterRows(rows, 'denied'))).toEqual(['run', 'round', '  call']);
    expect(shape(filterRows(rows, 'edited'))).toEqual(['run', 'round', '  edit']);
    expect(shape(filterRows(rows, 'retried'))).toEqual(['run', 'round', '  notice']);
    expect(filterRows(rows, null)).toBe(rows);

    const parts = runSummary(cards, 1);
    expect(parts.map((p) => p.label)).toEqual(['1 error', '1 denied', '1 edit', '1 retry']);
    // Each part leads to its cards.
    for (const p of parts) for (const id of p.ids) expect(rowIndexOf(rows, id)).toBeGreaterThan(0);
  });

  it('finds the denial of a recorded run', () => {
    const rows = rowsOf(eventsOf('deny_protected'));
    const kept = filterRows(rows, 'denied').filter((r) => r.type === 'card');
    expect(kept.length).toBeGreaterThan(0);
    for (const r of kept) expect(r.type === 'card' && r.card.kind === 'call' && r.card.item.permission?.payload.decision).toBe('deny');
  });
});

describe('finding a card', () => {
  it('goes to round N of the latest run, or of a given run', () => {
    const log = new EventLog();
    for (const text of ['one', 'two']) {
      log.user(text);
      log.request();
      log.response({ content: `${text} a` });
      log.request();
      log.response({ content: `${text} b` });
      log.end('answered', text);
    }
    const cards = cardsOf(rowsOf(log.events));
    const latest = cards.find((c) => c.id === roundCard(cards, 2));
    expect(latest).toMatchObject({ kind: 'request', run: 2, round: 2 });
    expect(cards.find((c) => c.id === roundCard(cards, 2, 1))).toMatchObject({ run: 1, round: 2 });
    expect(roundCard(cards, 3)).toBeNull();
    expect(roundCard(cards, 0)).toBeNull();
  });

  it('searches what the cards show, whatever the case', () => {
    const cards = cardsOf(rowsOf(eventsOf('tour')));
    const all = cards.map(cardText).join('\n');
    expect(all).toContain('list_dir');
    const hits = searchCards(cards, 'LIST_DIR');
    expect(hits.length).toBeGreaterThan(0);
    for (const id of hits) expect(cardText(cards.find((c) => c.id === id)!).toLowerCase()).toContain('list_dir');
    expect(searchCards(cards, '   ')).toEqual([]);
    expect(searchCards(cards, 'no card says this')).toEqual([]);
  });
});
