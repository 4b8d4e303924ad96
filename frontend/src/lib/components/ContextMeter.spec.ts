// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { recording } from '../replay/recordings';
import { buildTimeline } from '../timeline/group';
import { requestMeter, sessionMeter, type MeterView } from '../timeline/meter';
import { parseEvent, type ModelResponseEvent, type TraceEvent } from '../types';
import ContextMeter from './ContextMeter.svelte';
import RequestCard from './RequestCard.svelte';
import { roundMetrics } from '../timeline/metrics';

afterEach(cleanup);

// The session the engine recorded: a 7 KB read into num_ctx 4096, whose
// next prompt takes over 80% of the context (recordings_test.go,
// "context_meter").
function runs() {
  const evs = recording('context_meter')
    .steps.map((s) => (s.event === undefined ? null : parseEvent(s.event)))
    .filter((e): e is TraceEvent => e != null);
  return buildTimeline(evs).runs;
}
function rounds() {
  return runs()[0]!.rounds.filter((g) => g.request);
}

const text = (id: string) => screen.getByTestId(id).textContent?.replace(/\s+/g, ' ').trim() ?? '';

describe('ContextMeter on a request', () => {
  it("shows Ollama's count against the context, the estimated split by part, and what Ollama allocated", () => {
    const g = rounds()[0]!;
    const v = requestMeter(g.request!.payload, g.response!.payload)!;
    render(ContextMeter, { props: { meter: v } });
    expect(text('meter-total')).toContain(`${v.total.toLocaleString('en-US')} of 4,096 tokens (38%)`);
    expect(text('meter-total')).not.toContain('estimated');
    expect(text('meter-loaded')).toBe('· allocated 4,096, num_ctx 4,096');
    const parts = within(screen.getByTestId('meter-parts')).getAllByRole('listitem').map((li) => li.textContent?.replace(/\s+/g, ' ').trim());
    expect(parts[0]).toMatch(/^System prompt \d+ \d+%$/);
    expect(parts[1]).toMatch(/^Tool schemas 1,\d{3} 3\d%$/);
    expect(parts.map((p) => p!.split(' ')[0])).toEqual(['System', 'Tool', 'History', 'New']);
    expect(text('meter-note')).toContain("Ollama's count");
    expect(text('meter-note')).toMatch(/^Ollama's count \(prompt_eval_count\)\. Split estimated: .* The answer took 1 more token, which the next prompt holds too\.$/);
    expect(screen.getByTestId('meter-bar').getAttribute('aria-label')).toContain('(estimated split)');
    expect(screen.queryByTestId('meter-warning')).toBeNull();
  });

  it('warns at 80% of the context and says what to do', () => {
    const g = rounds()[1]!;
    render(ContextMeter, { props: { meter: requestMeter(g.request!.payload, g.response!.payload)! } });
    expect(screen.getByTestId('meter-bar').dataset['level']).toBe('high');
    const warn = text('meter-warning');
    expect(warn).toMatch(/takes 9\d% of the context/);
    expect(warn).toMatch(/Compact.*num_ctx.*tool outputs.*fewer tools/);
  });

  it('before the answer: the estimate, labelled so', () => {
    const g = rounds()[1]!;
    render(ContextMeter, { props: { meter: requestMeter(g.request!.payload, null)! } });
    expect(text('meter-total')).toContain('estimated');
    expect(text('meter-note')).toMatch(/Estimated from the size of each part sent, at 3\.9 bytes a token \(this session's own earlier counts\)/);
  });

  it('says when Ollama allocated another context than num_ctx', () => {
    const g = rounds()[0]!;
    const v: MeterView = { ...requestMeter(g.request!.payload, g.response!.payload)!, loaded: 2048, context: 2048, allocatedDiffers: true };
    render(ContextMeter, { props: { meter: v } });
    expect(text('meter-allocated')).toBe('Ollama allocated 2,048 tokens, not the num_ctx 4,096 asked for: the meter counts against 2,048.');
  });
});

describe('the request card', () => {
  it('shows what the tool schemas cost and the meter', () => {
    const g = rounds()[1]!;
    const meter = requestMeter(g.request!.payload, g.response!.payload)!;
    render(RequestCard, { props: { id: 'e:5', request: g.request!.payload, round: 2, metrics: roundMetrics(g.request, g.response), meter } });
    expect(text('tools-cost')).toMatch(/^about 1,\d{3} tokens for 7 tools, sent with every request \(estimated\)$/);
    expect(screen.getByTestId('context-meter')).toBeTruthy();
    expect(screen.getByTestId('meter-warning')).toBeTruthy();
  });
});

describe('the session meter', () => {
  it('is compact; its details say the latest request, the split, the fullest request and the warning', async () => {
    const s = sessionMeter(runs())!;
    render(ContextMeter, { props: { meter: s.latest, variant: 'session', session: s } });
    expect(text('session-meter-share')).toMatch(/^9\d%$/);
    expect(text('session-meter-flag')).toBe('nearly full');
    const details = screen.getByTestId('session-meter') as HTMLDetailsElement;
    expect(details.open).toBe(false);
    await fireEvent.click(details.querySelector('summary')!);
    expect(details.open).toBe(true);
    expect(text('meter-total')).toMatch(/^Latest request \(run 1, round 2\): 3,\d{3} of 4,096 tokens/);
    expect(text('session-meter-peak')).toMatch(/Fullest so far: 3,\d{3} of 4,096 \(9\d%\), run 1, round 2\. 1 of 2 requests reached 80%\./);
    expect(text('meter-warning')).toContain('What to do');
    // Esc closes it again.
    await fireEvent.keyDown(details.querySelector('summary')!, { key: 'Escape' });
    expect(details.open).toBe(false);
  });

  it("counts a sub-agent's tokens in the session's meter, apart from its own context (sub_agent)", () => {
    const events = recording('sub_agent')
      .steps.map((x) => (x.event === undefined ? null : parseEvent(x.event)))
      .filter((e): e is TraceEvent => e != null);
    const s = sessionMeter(buildTimeline(events).runs)!;
    render(ContextMeter, { props: { meter: s.latest, variant: 'session', session: s } });
    let took = 0;
    for (const e of events) if (e.agent === 'call_1' && e.kind === 'model_response') took += e.payload.metrics!.prompt_eval_count + e.payload.metrics!.eval_count;
    expect(text('session-meter-sub-agents')).toBe(`1 sub-agent took ${took.toLocaleString('en-US')} tokens in their own contexts, not in this one.`);
    // The latest request is the parent's own: its prompt, not the sub-agent's.
    const last = events.filter((e): e is ModelResponseEvent => !e.agent && e.kind === 'model_response').at(-1)!;
    expect(s.latest.total).toBe(last.payload.context!.prompt);
  });
});
