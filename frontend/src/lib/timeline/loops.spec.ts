import { describe, expect, it } from 'vitest';
import { allRecordings } from '../replay/recordings';
import { parseEvent, type Delta, type TraceEvent } from '../types';
import { allItems, buildTimeline, type CallItem } from './group';
import { applyDeltas, liveKey, settleLive, type LiveMap } from './live';
import { applyOutput, outputKey, settleOutput, type OutputMap } from './output';
import { roundFacts } from './overview-facts';
import { standingOf } from './standing';
import { callContextOf } from './status';

// Each loop's state is its own. A sub-agent's nested run shares its
// parent's run number, counts rounds of its own, and its model may name
// its calls as its parent's model named its own (the engine's recordings
// of sub-agents have a task call call_1 whose sub-agent's first call is
// call_1 too). At every prefix of every recording, as the window gets it
// (deltas and events in order), nothing a card of one loop shows comes
// from another: streaming text, a command's output, "paused before",
// "waiting for you", the wait for an answer in the overview. The
// expectation is worked out here from the steps alone.

interface Played {
  events: TraceEvent[];
  live: LiveMap;
  output: OutputMap;
  /** What the window should show, by this test's own key (own below): text by loop and round, output by loop and call. */
  text: Map<string, string>;
  out: Map<string, string>;
}

const loopOf = (x: { agent?: string }): string => x.agent ?? '';
/** This test's key of a loop's round or call (not the code's: the code's is under test). */
const own = (...parts: (string | number)[]): string => JSON.stringify(parts);

function* prefixes(steps: readonly { event?: unknown; delta?: unknown }[]): Generator<Played> {
  const p: Played = { events: [], live: new Map(), output: new Map(), text: new Map(), out: new Map() };
  for (const s of steps) {
    if (s.delta !== undefined) {
      const d = s.delta as Delta;
      p.live = applyDeltas(p.live, [d]);
      p.output = applyOutput(p.output, [d]);
      if (d.call_id) {
        const k = own(d.session_id, loopOf(d), d.call_id);
        p.out.set(k, (p.out.get(k) ?? '') + (d.output ?? []).map((o) => o.text).join(''));
      } else {
        const k = own(d.session_id, loopOf(d), d.run, d.round);
        p.text.set(k, (p.text.get(k) ?? '') + (d.content ?? ''));
      }
    } else if (s.event !== undefined) {
      const e = parseEvent(s.event);
      if (!e) continue;
      p.events.push(e);
      p.live = settleLive(p.live, [e]);
      p.output = settleOutput(p.output, [e]);
      // A loop's call is settled by its result; a loop's rounds and
      // calls by its run's end; a round's text by its answer.
      if (e.kind === 'tool_result') p.out.delete(own(e.session_id, loopOf(e), e.payload.call_id));
      if (e.kind === 'model_response') p.text.delete(own(e.session_id, loopOf(e), e.run, e.round));
      if (e.kind === 'run_end') {
        const loop = (k: string) => (JSON.parse(k) as unknown[]).slice(0, 2).join('\u0000') === `${e.session_id}\u0000${loopOf(e)}`;
        for (const k of [...p.out.keys()]) if (loop(k)) p.out.delete(k);
        for (const k of [...p.text.keys()]) if (loop(k) && (JSON.parse(k) as unknown[])[2] === e.run) p.text.delete(k);
      }
    } else continue;
    yield p;
  }
}

/** The pause the run waits at now, and whose: the last checkpoint, when it is a pause. */
function pauseNow(events: readonly TraceEvent[]): { agent: string; callId?: string; point: string } | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.kind === 'run_end' && !e.agent) return null;
    if (e.kind === 'checkpoint') return e.payload.state === 'paused' ? { agent: loopOf(e), callId: e.payload.call_id, point: e.payload.point } : null;
  }
  return null;
}

/** The session's own loop's calls that were asked about (a permission "ask" of that loop). */
function askedMain(events: readonly TraceEvent[]): Set<string> {
  const out = new Set<string>();
  for (const e of events) if (e.kind === 'permission' && e.payload.decision === 'ask' && !e.agent) out.add(`${e.run}:${e.payload.call_id}`);
  return out;
}

const withSubAgents = [...allRecordings()].filter(([, rec]) => rec.steps.some((s) => (s.event as { agent?: string } | undefined)?.agent));

describe("each loop's state is its own, at every prefix of every recording", () => {
  it('has recordings where a sub-agent names a call as its parent did', () => {
    const shared = withSubAgents.filter(([, rec]) => {
      const ids = new Map<string, Set<string>>();
      for (const s of rec.steps) {
        const e = s.event as { kind?: string; agent?: string; payload?: { call_id?: string } } | undefined;
        if (e?.kind !== 'tool_call') continue;
        const set = ids.get(e.payload!.call_id!) ?? new Set();
        set.add(e.agent ?? '');
        ids.set(e.payload!.call_id!, set);
      }
      return [...ids.values()].some((s) => s.size > 1);
    });
    expect(shared.map(([n]) => n).sort()).toEqual(expect.arrayContaining(['sub_agent', 'sub_agent_asks', 'sub_agent_stepped']));
    // One of them streams a sub-agent's command output while its task call runs.
    expect(withSubAgents.some(([, rec]) => rec.steps.some((s) => (s.delta as Delta | undefined)?.call_id && (s.delta as Delta).agent))).toBe(true);
  });

  for (const [name, rec] of allRecordings()) {
    if (!rec.steps.some((s) => s.event !== undefined)) continue;
    it(name, () => {
      let n = 0;
      for (const p of prefixes(rec.steps)) {
        n++;
        const at = `${name} after step ${n}`;
        // Streamed text and output, by loop: every round and call of
        // every loop so far shows what its own deltas said.
        for (const e of p.events) {
          if (e.kind === 'model_request') {
            const shown = p.live.get(liveKey(e.session_id, e.run, e.round, loopOf(e)))?.content ?? '';
            expect(shown, `${at}: the text of round ${e.round} of loop "${loopOf(e)}"`).toBe(p.text.get(own(e.session_id, loopOf(e), e.run, e.round)) ?? '');
          }
          if (e.kind === 'tool_call') {
            const shown = (p.output.get(outputKey(e.session_id, e.payload.call_id, loopOf(e)))?.segments ?? []).map((x) => x.text).join('');
            expect(shown, `${at}: the output of ${e.payload.call_id} of loop "${loopOf(e)}"`).toBe(p.out.get(own(e.session_id, loopOf(e), e.payload.call_id)) ?? '');
          }
        }

        // The session's own cards: "paused before/after" and "waiting
        // for you" only for that loop's pause and questions.
        const t = buildTimeline(p.events);
        const st = standingOf(p.events);
        const pause = pauseNow(p.events);
        for (const run of t.runs) {
          for (const it of allItems({ ...t, runs: [run] })) {
            if (it.kind !== 'call') continue;
            const c = callContextOf(st, run, (it as CallItem).callId);
            const mine = pause != null && pause.agent === '' && pause.callId === it.callId && run.end == null;
            expect(!!c.pausedBefore, `${at}: ${it.callId} paused before`).toBe(mine && pause.point === 'before_tool');
            expect(!!c.pausedAfter, `${at}: ${it.callId} paused after`).toBe(mine && pause.point === 'after_result');
          }
        }
        // The overview's waits for an answer on the session's own calls.
        const asked = askedMain(p.events);
        for (const f of roundFacts(t.runs, { events: p.events })) {
          for (const g of f.gaps) {
            if (g.kind !== 'permission') continue;
            const call = [...allItems(t)].find((i) => i.key === g.key) as CallItem | undefined;
            expect(call && asked.has(`${f.run}:${call.callId}`), `${at}: a wait for an answer on ${g.key}`).toBe(true);
          }
        }
      }
      expect(n).toBeGreaterThan(0);
    });
  }
});
