// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recording } from '../replay/recordings';
import { EventLog } from '../testing/events';
import { buildTimeline } from '../timeline/group';
import { parseEvent, type TraceEvent } from '../types';
import ContextChart from './ContextChart.svelte';

afterEach(cleanup);

const metrics = (prompt: number) => ({
  prompt_eval_count: prompt,
  eval_count: 10,
  total_duration: 1_000_000_000,
  load_duration: 0,
  prompt_eval_duration: 100_000_000,
  eval_duration: 800_000_000,
  time_to_first_token: 200_000_000,
});

function requests(prompts: (number | null)[], numCtx = 1000): TraceEvent[] {
  const log = new EventLog();
  log.user('x');
  for (const p of prompts) {
    log.request({ options: { num_ctx: numCtx, temperature: 0.2 }, prompt_estimate: 300 });
    if (p != null) log.response({ metrics: metrics(p) });
  }
  return log.events;
}

function chart(events: TraceEvent[], extra: Record<string, unknown> = {}) {
  const onjump = vi.fn<(key: string) => void>();
  const runs = buildTimeline(events).runs;
  render(ContextChart, { props: { runs, onjump, width: 340, height: 100, ...extra } });
  return { onjump, runs };
}

const bars = () => screen.getAllByTestId('context-bar');
const tooltip = () => screen.getByTestId('context-tooltip').textContent ?? '';
const reqKeys = (events: TraceEvent[]) => events.filter((e) => e.kind === 'model_request').map((e) => `e:${e.seq}`);

describe('ContextChart', () => {
  it('draws a bar per request to scale, and marks nearly full and full ones', () => {
    const events = requests([250, 850, 1000, null]);
    chart(events);
    expect(bars().map((b) => b.dataset['key'])).toEqual(reqKeys(events));
    expect(bars().map((b) => b.dataset['level'])).toEqual(['ok', 'high', 'full', 'unknown']);
    const heights = bars().map((b) => Number(b.querySelector('.fill')!.getAttribute('height')));
    expect(heights).toEqual([25, 85, 100, 30]);
    expect(screen.getAllByTestId('context-mark')).toHaveLength(2);
    expect(screen.getByTestId('context-flagged').textContent).toBe('2 nearly full or full');
    expect(screen.getByTestId('context-line').getAttribute('d')).toBe('M0,0H75H150H225H300');
  });

  it('says the numbers on hover, unknown for a request without a count', async () => {
    chart(requests([850, null]));
    await fireEvent.mouseEnter(bars()[0]!);
    expect(tooltip()).toContain('Prompt: 850 tokens of 1,000 (85%)');
    expect(tooltip()).toContain('num_ctx 1,000 (set on the request)');
    expect(tooltip()).toContain('Nearly full');
    await fireEvent.mouseEnter(bars()[1]!);
    expect(tooltip()).toContain('Prompt: unknown (Ollama gave no count)');
    expect(tooltip()).not.toContain('Prompt: 0');
  });

  it("uses the model's context length when the request recorded none", async () => {
    chart(requests([7000], 0), { contextLength: () => 8192 });
    await fireEvent.mouseEnter(bars()[0]!);
    expect(tooltip()).toContain("num_ctx 8,192 (the model's context length)");
    expect(bars()[0]!.dataset['level']).toBe('high');
  });

  it('jumps to the request clicked, or chosen with the keys', async () => {
    const events = requests([100, 200, 300]);
    const { onjump } = chart(events);
    await fireEvent.click(bars()[1]!);
    expect(onjump).toHaveBeenLastCalledWith(reqKeys(events)[1]);
    const plot = screen.getByTestId('context-plot');
    plot.focus();
    await fireEvent.focusIn(plot);
    await fireEvent.keyDown(plot, { key: 'Home' });
    await fireEvent.keyDown(plot, { key: 'ArrowRight' });
    await fireEvent.keyDown(plot, { key: 'ArrowRight' });
    await fireEvent.keyDown(plot, { key: 'ArrowRight' });
    expect(plot.getAttribute('aria-activedescendant')).toBe(bars()[2]!.id);
    expect(tooltip()).toContain('Run 1, round 3');
    await fireEvent.keyDown(plot, { key: 'Enter' });
    expect(onjump).toHaveBeenLastCalledWith(reqKeys(events)[2]);
  });

  it('marks the request of the current card (its request or its answer)', () => {
    const events = requests([100, 200]);
    const answer = events.filter((e) => e.kind === 'model_response')[1]!;
    chart(events, { current: `e:${answer.seq}` });
    expect(bars().map((b) => b.dataset['current'])).toEqual(['false', 'true']);
  });

  it('draws the recorded tour', () => {
    const events: TraceEvent[] = [];
    for (const s of recording('tour').steps) {
      const e = s.event === undefined ? null : parseEvent(s.event);
      if (e) events.push(e);
    }
    chart(events);
    expect(bars()).toHaveLength(reqKeys(events).length);
    expect(bars().every((b) => b.dataset['level'] === 'ok')).toBe(true);
  });

  it('keeps to a bar per few pixels with thousands of requests', () => {
    const prompts = Array.from({ length: 3000 }, (_, i) => (i === 2100 ? 1000 : 100));
    chart(requests(prompts));
    expect(bars().length).toBeLessThanOrEqual(100);
    expect(bars().filter((b) => b.dataset['level'] === 'full')).toHaveLength(1);
  });
});
