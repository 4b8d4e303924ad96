// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { applyOutput, outputKey, type CallOutput, type OutputMap } from '../timeline';
import CommandOutput from './CommandOutput.svelte';

afterEach(cleanup);

const add = (m: OutputMap, text: string): OutputMap =>
  applyOutput(m, [{ session_id: 's', run: 1, round: 1, content: '', thinking: '', call_id: 'c', output: [{ stream: 'stdout', text }] }]);
const of = (m: OutputMap): CallOutput => m.get(outputKey('s', 'c'))!;

/** Gives the output box a layout, which jsdom has not: a fixed height, content as tall as 20 px a line. */
function layout(el: HTMLElement) {
  let top = 0;
  Object.defineProperty(el, 'clientHeight', { configurable: true, get: () => 100 });
  Object.defineProperty(el, 'scrollHeight', { configurable: true, get: () => 20 * (el.textContent ?? '').split('\n').length });
  Object.defineProperty(el, 'scrollTop', { configurable: true, get: () => top, set: (v: number) => (top = v) });
}

describe('CommandOutput', () => {
  it('follows new output at the bottom until the user scrolls up, and again once they scroll back down', async () => {
    let m = add(new Map(), 'line\n'.repeat(10));
    const r = render(CommandOutput, { props: { output: of(m), running: true } });
    const box = screen.getByTestId('command-output-text');
    layout(box);
    m = add(m, 'more\n'.repeat(10));
    await r.rerender({ output: of(m), running: true });
    expect(box.scrollTop).toBe(box.scrollHeight);

    box.scrollTop = 50; // the user scrolls up to read
    await fireEvent.scroll(box);
    m = add(m, 'later\n'.repeat(10));
    await r.rerender({ output: of(m), running: true });
    expect(box.scrollTop).toBe(50);

    box.scrollTop = box.scrollHeight - 100; // and back to the bottom
    await fireEvent.scroll(box);
    m = add(m, 'last\n');
    await r.rerender({ output: of(m), running: true });
    expect(box.scrollTop).toBe(box.scrollHeight);
  });

  it('offers no Stop for a command that is not running, or without a way to stop it', async () => {
    const r = render(CommandOutput, { props: { output: of(add(new Map(), 'x')), running: false, onstop: () => {} } });
    expect(screen.queryByTestId('stop-command-button')).toBeNull();
    await r.rerender({ running: true, onstop: undefined });
    expect(screen.queryByTestId('stop-command-button')).toBeNull();
  });
});
