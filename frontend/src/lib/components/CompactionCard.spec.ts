// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recording } from '../replay/recordings';
import { isCompaction, parseEvent, type CompactionPayload } from '../types';
import CompactButton from './CompactButton.svelte';
import CompactionCard from './CompactionCard.svelte';

afterEach(cleanup);

// The compactions the engine recorded ("compaction"): at the threshold, then Compact now.
function compactions(): CompactionPayload[] {
  const out: CompactionPayload[] = [];
  for (const s of recording('compaction').steps) {
    const e = s.event === undefined ? null : parseEvent(s.event);
    if (e && isCompaction(e)) out.push(e.payload);
  }
  return out;
}

describe('CompactionCard', () => {
  it('shows the summary, the rounds and messages it replaced, why, and the prompt before and after', () => {
    const [auto] = compactions();
    render(CompactionCard, { props: { id: 'e:30', compaction: auto! } });
    expect(screen.getByText('History compacted')).toBeTruthy();
    expect(screen.getByTestId('compaction-summary').textContent).toBe(auto!.summary);
    expect(auto!.summary).toContain('Notes 1 to');
    const span = (screen.getByTestId('compaction-span').textContent ?? '').replace(/\s+/g, ' ');
    expect(span).toMatch(/Replaced the message and rounds 1–\d of run 1 \/ \d+ messages/);
    expect(span).toContain(`${auto!.messages} messages`);
    expect(screen.getByTestId('compaction-trigger').textContent).toBe('context nearly full');
    const tokens = screen.getByTestId('compaction-tokens').textContent ?? '';
    expect(tokens).toBe(`~${auto!.tokens_before.toLocaleString('en-US')} → ~${auto!.tokens_after.toLocaleString('en-US')} tokens`);
    expect(auto!.tokens_after).toBeLessThan(auto!.tokens_before);
  });

  it('says Compact now for the button’s', () => {
    const [, button] = compactions();
    render(CompactionCard, { props: { id: 'e:40', compaction: button! } });
    expect(screen.getByTestId('compaction-trigger').textContent).toBe('Compact now');
  });
});

describe('CompactButton', () => {
  it('is off with its reason beside it while a run goes, and compacts when pressed between runs', async () => {
    const onclick = vi.fn();
    const { rerender } = render(CompactButton, { props: { blocked: 'A run is going: compact when it ends (or stop it).', onclick } });
    const b = screen.getByTestId('compact-now') as HTMLButtonElement;
    expect(b.disabled).toBe(true);
    expect(screen.getByTestId('compact-now-why').textContent).toContain('run is going');
    expect(b.getAttribute('aria-describedby')).toBe('compact-now-why');
    await rerender({ blocked: '', onclick });
    expect(b.disabled).toBe(false);
    expect(screen.queryByTestId('compact-now-why')).toBeNull();
    await fireEvent.click(b);
    expect(onclick).toHaveBeenCalledOnce();
    await rerender({ blocked: '', busy: true, onclick });
    expect(b.disabled).toBe(true);
    expect(b.textContent).toContain('Compacting…');
  });
});
