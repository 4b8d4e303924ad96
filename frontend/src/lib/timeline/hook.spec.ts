import { describe, expect, it } from 'vitest';
import { recording } from '../replay/recordings';
import { isHookRun, parseEvent, type HookRun, type TraceEvent } from '../types';
import { buildTimeline } from './group';
import { hookCard } from './hook';
import { cardsOf, timelineRows, type Row } from './rows';

// The hooks the engine ran in the "hooks" scenario (backend/session/recordings_hooks_test.go).
const events = (): TraceEvent[] => recording('hooks').steps.flatMap((s) => (s.event !== undefined ? [parseEvent(s.event)!] : []));
const runs = (): HookRun[] => events().flatMap((e) => (isHookRun(e) ? [e.payload] : []));

describe('hook runs on the timeline', () => {
  it('draws each hook run as a card beside its call: before_tool above the call, after_edit below its result', () => {
    const rows = timelineRows(buildTimeline(events()).runs);
    const shape = rows.filter((r): r is Extract<Row, { type: 'card' }> => r.type === 'card').map((r) => r.card.kind);
    expect(shape).toEqual(['user', 'request', 'response', 'call', 'observation', 'hook', 'request', 'response', 'hook', 'call', 'observation', 'request', 'response', 'end']);
    const hooks = cardsOf(rows).filter((c) => c.kind === 'hook');
    expect(hooks.map((c) => c.marks)).toEqual([[], []]);
    expect(hooks.map((c) => c.step)).toEqual(['append', 'permission']);
    expect(hooks.every((c) => c.event?.kind === 'hook_run')).toBe(true);
  });

  it('says what each came to and what the loop did with it', () => {
    const [lint, guard] = runs().map(hookCard);
    expect(lint).toMatchObject({ title: 'Hook lint after the edit of edit_file', verdict: 'went on', tone: 'ok' });
    expect(guard).toMatchObject({ title: 'Hook no rm before run_command', verdict: 'blocked (exit 2)', tone: 'error' });
    expect(guard!.effect).toBe('The call was denied; the model reads why.');
  });

  it('words a failure that went on, a timeout and a decision', () => {
    const base = runs()[1]!;
    expect(hookCard({ ...base, outcome: 'failed_continued', exit_code: 1 })).toMatchObject({ verdict: 'failed (exit 1), went on', tone: 'warn' });
    expect(hookCard({ ...base, outcome: 'failed', timed_out: true, exit_code: -1 })).toMatchObject({ verdict: 'timed out', tone: 'error' });
    const allowed = hookCard({ ...base, outcome: 'passed', exit_code: 0, decision: 'allow', reason: 'safe' });
    expect(allowed.decision).toBe('allow: safe');
    expect(allowed.effect).toContain('a deny rule or a protected path still wins');
  });
});
