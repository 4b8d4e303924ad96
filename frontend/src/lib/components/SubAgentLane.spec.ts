// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { recording } from '../replay/recordings';
import { subLanes } from '../timeline';
import { parseEvent, type TraceEvent } from '../types';
import SubAgentLane from './SubAgentLane.svelte';

afterEach(cleanup);

function lane() {
  const events: TraceEvent[] = [];
  for (const s of recording('sub_agent').steps) {
    const e = s.event === undefined ? null : parseEvent(s.event);
    if (e) events.push(e);
  }
  return subLanes(events)[0]!;
}

describe('SubAgentLane', () => {
  it('is one card until opened, then shows its own cards', async () => {
    render(SubAgentLane, { props: { lane: lane() } });
    expect(screen.getByTestId('sub-agent').getAttribute('data-outcome')).toBe('answered');
    expect(screen.getByTestId('sub-agent-goal').textContent).toContain('What files are in the workspace?');
    expect(screen.getByTestId('sub-agent-answer').textContent).toBe('README.md and notes.txt');
    expect(screen.getByTestId('sub-agent-facts').textContent).toContain('2 rounds');
    expect(screen.queryByTestId('sub-agent-cards')).toBeNull();
    await fireEvent.click(screen.getByTestId('sub-agent-toggle'));
    const cards = screen.getByTestId('sub-agent-cards');
    expect([...cards.querySelectorAll('li')].map((li) => li.getAttribute('data-kind'))).toEqual(['notice', 'request', 'response', 'call', 'request', 'response']);
    expect(cards.querySelector('[data-kind="call"]')?.textContent).toContain('list_dir');
  });
});
