import { describe, expect, it } from 'vitest';
import { recording } from '../replay/recordings';
import { parseEvent, type TraceEvent } from '../types';
import { allItems, buildTimeline, type CallItem } from './group';
import { sessionMeter } from './meter';
import { standingOf } from './standing';
import { subAgentCard } from './subagent';

// The nested lane of a sub-agent, from the engine's own recordings of a
// real nested run (backend/session/recordings_test.go: sub_agent,
// sub_agent_stepped).

function eventsOf(name: string): TraceEvent[] {
  const out: TraceEvent[] = [];
  for (const s of recording(name).steps) {
    if (s.event === undefined) continue;
    const e = parseEvent(s.event);
    if (e) out.push(e);
  }
  return out;
}

function taskCall(events: readonly TraceEvent[]): CallItem | undefined {
  for (const it of allItems(buildTimeline(events))) if (it.kind === 'call' && it.name === 'task') return it;
  return undefined;
}

describe('a sub-agent as a nested lane', () => {
  const events = eventsOf('sub_agent');

  it('keeps its events out of its parent cards and in its own lane', () => {
    const t = buildTimeline(events);
    const items = [...allItems(t)];
    const calls = items.filter((i): i is CallItem => i.kind === 'call');
    expect(calls.map((c) => c.name)).toEqual(['task']);
    expect(t.runs).toHaveLength(1);
    expect(t.runs[0]!.rounds.map((r) => r.round)).toEqual([1, 2]);
    const lane = calls[0]!.sub!;
    expect(lane.id).toBe('call_1');
    const inner = [...allItems(lane.timeline)].filter((i): i is CallItem => i.kind === 'call');
    expect(inner.map((c) => c.name)).toEqual(['list_dir']);
    expect(inner[0]!.result?.payload.content).toContain('notes.txt');
  });

  it('collapses to one card: goal, rounds, tokens, outcome, answer', () => {
    const card = subAgentCard(taskCall(events)!.sub!);
    const own = events.filter((e) => e.agent === 'call_1');
    let prompt = 0;
    for (const e of own) if (e.kind === 'model_response') prompt += e.payload.metrics?.prompt_eval_count ?? 0;
    expect(card).toMatchObject({
      callId: 'call_1',
      goal: 'What files are in the workspace? Answer with their names.',
      tools: ['read_file', 'list_dir', 'glob', 'grep'],
      rounds: 2,
      outcome: 'answered',
      answered: true,
      answer: 'README.md and notes.txt',
      promptTokens: prompt,
    });
    expect(prompt).toBeGreaterThan(0);
    // Its answer is its parent's observation of the task call.
    expect(taskCall(events)!.result?.payload.content).toBe(card.answer);
  });

  it("counts its tokens in the session's totals, not in its parent's context", () => {
    const t = buildTimeline(events);
    const m = sessionMeter(t.runs)!;
    const card = subAgentCard(taskCall(events)!.sub!);
    expect(m.subAgents).toEqual({ count: 1, prompt: card.promptTokens, eval: card.evalTokens });
    // The parent's latest request is its own: round 2 of run 1.
    expect(m).toMatchObject({ run: 1, round: 2, requests: 2 });
  });

  it('is running until its run ends, at every prefix of the log', () => {
    const end = events.findIndex((e) => e.agent === 'call_1' && e.kind === 'run_end');
    for (let n = 1; n <= events.length; n++) {
      const c = taskCall(events.slice(0, n));
      if (!c?.sub) continue;
      expect(subAgentCard(c.sub).outcome, `after ${n} events`).toBe(n > end ? 'answered' : 'running');
    }
  });
});

describe('stepping into a sub-agent', () => {
  const events = eventsOf('sub_agent_stepped');

  it('shows its pauses as the run standing, then its parent again', () => {
    let inSub = 0;
    for (let n = 1; n <= events.length; n++) {
      const prefix = events.slice(0, n);
      const s = standingOf(prefix);
      const last = prefix[n - 1]!;
      if (last.kind === 'checkpoint' && last.payload.state === 'paused') {
        expect(s.pause?.seq, `pause at event ${last.seq}`).toBe(last.seq);
        const c = taskCall(prefix);
        if (last.agent) {
          inSub++;
          expect(subAgentCard(c!.sub!).outcome).toBe('paused');
        }
      }
    }
    expect(inSub).toBe(6);
    expect(standingOf(events)).toMatchObject({ open: false, pause: null });
  });
});

describe('a stepped-into sub-agent waits on its task call card', () => {
  const events = eventsOf('sub_agent_stepped');

  it('at every prefix where a sub-agent waits, its pause is on the task call card, and says whose it is', () => {
    let seen = 0;
    for (let n = 1; n <= events.length; n++) {
      const prefix = events.slice(0, n);
      const pause = standingOf(prefix).pause;
      if (!pause) continue;
      const t = buildTimeline(prefix);
      const card = t.checkpointCards.get(pause.seq);
      const paused = prefix.find((e) => e.seq === pause.seq)!;
      if (paused.agent) {
        seen++;
        expect(pause.agent).toBe(paused.agent);
        const task = taskCall(prefix)!;
        expect(card, `the sub-agent's pause at seq ${pause.seq} has no card`).toBe(task.key);
      } else {
        expect(pause.agent).toBeUndefined();
        expect(card).toBe(`e:${pause.seq}`);
      }
    }
    expect(seen, 'the recording steps into its sub-agent').toBeGreaterThan(0);
  });
});
