// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recording } from '../replay/recordings';
import { EventLog } from '../testing/events';
import { buildTimeline } from '../timeline/group';
import { parseEvent, type TraceEvent } from '../types';
import OverviewLane from './OverviewLane.svelte';

afterEach(cleanup);

function eventsOf(name: string): TraceEvent[] {
  const out: TraceEvent[] = [];
  for (const s of recording(name).steps) {
    const e = s.event === undefined ? null : parseEvent(s.event);
    if (e) out.push(e);
  }
  return out;
}

function lane(events: TraceEvent[], extra: Record<string, unknown> = {}) {
  const onjump = vi.fn<(key: string) => void>();
  const runs = buildTimeline(events).runs;
  const r = render(OverviewLane, { props: { runs, events, current: null, onjump, width: 640, height: 200, ...extra } });
  return { onjump, runs, ...r };
}

const rows = () => screen.getAllByRole('option');
const bars = (kind: string) => screen.getAllByTestId('overview-bar').filter((b) => b.dataset['kind'] === kind);
const tooltip = () => screen.getByTestId('overview-tooltip').textContent ?? '';

function longRun(rounds: number, errorAt: number): TraceEvent[] {
  const log = new EventLog('s', Date.UTC(2026, 0, 1), 10);
  log.user('go');
  for (let i = 1; i <= rounds; i++) {
    log.request();
    log.response({ tool_calls: [{ id: `c${i}`, index: 0, name: 'glob', args: {} }] });
    log.toolCall({ call_id: `c${i}`, name: 'glob' });
    log.permission(`c${i}`, 'glob', 'allow');
    log.result({ call_id: `c${i}`, name: 'glob', duration_ms: 5 });
    if (i === errorAt) log.error('model', 'Ollama went away');
  }
  log.end('round_cap');
  return log.events;
}

describe('OverviewLane', () => {
  it('draws a row per round, with parallel calls on lanes of their own', () => {
    const { runs } = lane(eventsOf('parallel_calls'));
    expect(rows()).toHaveLength(2);
    const round1 = runs[0]!.rounds[0]!;
    expect(rows()[0]!.dataset['key']).toBe(`e:${round1.request!.seq}`);
    const calls = bars('call');
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.getAttribute('y'))).size).toBe(3);
    expect(calls.map((c) => c.dataset['lane'])).toEqual(['0', '1', '2']);
  });

  it("draws the model's time to scale, split as Ollama timed it", () => {
    const log = new EventLog();
    log.user('x');
    log.request();
    // load 150, prompt 400, eval 1600, 250 ms neither.
    log.response({ content: 'ok' });
    lane(log.events);
    const w = Object.fromEntries(['load', 'prompt', 'eval', 'other'].map((k) => [k, Number(bars(k)[0]!.getAttribute('width'))]));
    expect(w['load']! + w['prompt']! + w['eval']! + w['other']!).toBeCloseTo(640 - 44, 1);
    expect(w['prompt']! / w['load']!).toBeCloseTo(400 / 150, 1);
    expect(w['eval']! / w['load']!).toBeCloseTo(1600 / 150, 1);
    expect(Number(bars('prompt')[0]!.getAttribute('x'))).toBeCloseTo(w['load']!, 1);
  });

  it('shows the numbers on hover, and jumps to the card clicked', async () => {
    const { onjump, runs } = lane(eventsOf('parallel_calls'));
    const call = bars('call')[1]!;
    await fireEvent.mouseEnter(call);
    expect(tooltip()).toContain('read_file: 12 ms (ok)');
    expect(tooltip()).toContain('Run 1, round 1');
    expect(tooltip()).toContain('Tools: 3 calls, 36 ms');
    await fireEvent.click(call);
    const c2 = [...buildTimeline(eventsOf('parallel_calls')).calls.values()][1]!;
    expect(onjump).toHaveBeenLastCalledWith(`obs:${c2.key}`);
    await fireEvent.mouseEnter(rows()[1]!);
    expect(tooltip()).toContain('Tokens: prompt 1,741 · output 2');
    expect(tooltip()).toMatch(/Model 6 ms: load 1 ms · prompt eval 2 ms · generation 2 ms · other 1 ms/);
    await fireEvent.click(rows()[1]!);
    expect(onjump).toHaveBeenLastCalledWith(`e:${runs[0]!.rounds[1]!.request!.seq}`);
    expect(onjump).toHaveBeenCalledTimes(2);
  });

  it('says why it waited', async () => {
    lane(eventsOf('approve_command'));
    const [gap] = bars('gap');
    await fireEvent.mouseEnter(gap!);
    expect(tooltip()).toMatch(/^Asked: .*allowed by you · 250 ms/);
    cleanup();
    lane(eventsOf('step_through'));
    const pause = bars('gap').find((g) => g.classList.contains('pause'))!;
    await fireEvent.mouseEnter(pause);
    expect(tooltip()).toContain('Paused before the request (stepping), then step');
  });

  it("draws a sub-agent as a band under its task call, says its goal and jumps to the task call's card", async () => {
    const events = eventsOf('sub_agent');
    const { onjump } = lane(events);
    const task = buildTimeline(events).calls.get('call_1')!;
    const [band] = screen.getAllByTestId('overview-sub-agent');
    expect(screen.getAllByTestId('overview-sub-agent')).toHaveLength(1);
    expect(band!.dataset['key']).toBe(task.key);
    // In the task call's row, on the lane under its call's.
    expect(rows()[0]!.contains(band!)).toBe(true);
    const call = bars('call')[0]!;
    const rect = band!.querySelector('rect')!;
    expect(Number(rect.getAttribute('y'))).toBeGreaterThan(Number(call.getAttribute('y')));
    expect(Number(rect.getAttribute('x'))).toBeGreaterThan(Number(call.getAttribute('x')));
    // Its own model time and its list_dir call inside it.
    const inner = [...band!.querySelectorAll('[data-testid="overview-sub-bar"]')].map((b) => b.getAttribute('data-kind'));
    expect(inner.filter((k) => k === 'call')).toHaveLength(1);
    expect(inner.filter((k) => k === 'prompt')).toHaveLength(2);
    await fireEvent.mouseEnter(rect);
    expect(tooltip()).toMatch(/^Sub-agent: What files are in the workspace\? Answer with their names\. \(2 rounds, 2,029 tokens, answered\)/);
    await fireEvent.click(rect);
    expect(onjump).toHaveBeenLastCalledWith(task.key);
    const innerCall = band!.querySelector('[data-kind="call"]')!;
    await fireEvent.mouseEnter(innerCall);
    expect(tooltip()).toMatch(/^list_dir: 12 ms \(ok\).*Sub-agent: What files/);
    await fireEvent.click(innerCall);
    expect(onjump).toHaveBeenLastCalledWith(task.key);
    expect(onjump).toHaveBeenCalledTimes(2);
  });

  it('moves between rows with the arrow keys and jumps with Enter', async () => {
    const { onjump } = lane(eventsOf('tour'));
    const plot = screen.getByTestId('overview-plot');
    plot.focus();
    await fireEvent.focusIn(plot);
    const ids = rows().map((r) => r.id);
    expect(plot.getAttribute('aria-activedescendant')).toBe(ids[0]);
    await fireEvent.keyDown(plot, { key: 'ArrowDown' });
    await fireEvent.keyDown(plot, { key: 'ArrowDown' });
    expect(plot.getAttribute('aria-activedescendant')).toBe(ids[2]);
    expect(rows()[2]!.getAttribute('aria-selected')).toBe('true');
    // The row the keyboard is on says its numbers too.
    expect(tooltip()).toContain(rows()[2]!.getAttribute('aria-label')!.split('. ')[0]);
    await fireEvent.keyDown(plot, { key: 'ArrowUp' });
    await fireEvent.keyDown(plot, { key: 'Enter' });
    expect(onjump).toHaveBeenCalledWith(rows()[1]!.dataset['key']);
  });

  it('marks the current row', () => {
    const events = eventsOf('tour');
    const t = buildTimeline(events);
    const call = [...t.calls.values()].at(-1)!;
    lane(events, { current: `obs:${call.key}` });
    const cur = rows().filter((r) => r.dataset['current'] === 'true');
    expect(cur).toHaveLength(1);
    expect(cur[0]!.getAttribute('aria-current')).toBe('step');
    expect(cur[0]!.querySelector('[data-testid="overview-current"]')).not.toBeNull();
    expect([...cur[0]!.querySelectorAll('[data-kind="call"]')].map((b) => b.getAttribute('data-key'))).toContain(call.key);
  });

  it('stays small at 2,000 rounds, keeps the error in view, and zooms and pans within bounds', async () => {
    const events = longRun(2000, 1234);
    const { onjump } = lane(events, { height: 200, minRowPx: 6 });
    expect(rows().length).toBeLessThanOrEqual(33);
    expect(document.querySelectorAll('svg *').length).toBeLessThan(33 * 12);
    expect(screen.getByTestId('overview-range').textContent).toContain('of 2000');
    const err = screen.getAllByTestId('overview-marker').filter((m) => m.dataset['kind'] === 'error');
    expect(err).toHaveLength(1);
    await fireEvent.click(err[0]!);
    expect(onjump).toHaveBeenCalledWith(`e:${events.find((e) => e.kind === 'error')!.seq}`);

    expect(screen.getByTestId('overview-zoom-out')).toHaveProperty('disabled', true);
    await fireEvent.click(screen.getByTestId('overview-zoom-in'));
    expect(screen.getByTestId('overview-range').textContent).toMatch(/Rounds \d+–\d+ of 2000/);
    expect(screen.getByTestId('overview-range').textContent).not.toContain('Rounds 1–2000');
    const plot = screen.getByTestId('overview-plot');
    for (let i = 0; i < 12; i++) await fireEvent.keyDown(plot, { key: '+' });
    expect(screen.getByTestId('overview-range').textContent).toMatch(/^\s*Rounds (\d+)–\1 of 2000\s*$/);
    for (let i = 0; i < 5; i++) await fireEvent.keyDown(plot, { key: 'PageDown' });
    await fireEvent.keyDown(plot, { key: 'End' });
    expect(screen.getByTestId('overview-range').textContent).toContain('Rounds 2000–2000 of 2000');
    await fireEvent.keyDown(plot, { key: 'PageDown' });
    expect(screen.getByTestId('overview-range').textContent).toContain('Rounds 2000–2000 of 2000');
    await fireEvent.wheel(plot, { deltaY: 100, ctrlKey: true });
    expect(screen.getByTestId('overview-range').textContent).toContain('Rounds 1999–2000 of 2000');
    await fireEvent.wheel(plot, { deltaY: -100 });
    expect(screen.getByTestId('overview-range').textContent).toContain('Rounds 1998–1999 of 2000');
    await fireEvent.click(screen.getByTestId('overview-all'));
    expect(screen.getByTestId('overview-range').textContent).toContain('Rounds 1–2000 of 2000');
    // About a second alone (building 10,000 events, then twenty redraws in jsdom); more beside the other specs.
  }, 30_000);

  it('follows the current card out of the window', async () => {
    const events = longRun(300, 0);
    const t = buildTimeline(events);
    const calls = [...t.calls.values()];
    const { rerender } = lane(events, { current: `obs:${calls[0]!.key}` });
    const plot = screen.getByTestId('overview-plot');
    for (let i = 0; i < 6; i++) await fireEvent.keyDown(plot, { key: '+' });
    const range = () => (screen.getByTestId('overview-range').textContent ?? '').match(/Rounds (\d+)–(\d+)/)!.slice(1).map(Number);
    const [a, b] = range();
    expect(b! - a!).toBeLessThan(20);
    expect(b!).toBeLessThan(251);
    await rerender({ current: `obs:${calls[250]!.key}` });
    const [c, d] = range();
    expect(d! - c!).toBe(b! - a!);
    expect(c! <= 251 && d! >= 251).toBe(true);
    expect(rows().find((r) => r.dataset['current'] === 'true')).toBeDefined();
  }, 30_000);
});
