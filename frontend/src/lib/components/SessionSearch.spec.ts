// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Bridge } from '../bridge/types';
import { BridgeError } from '../bridge/types';
import { SearchState } from '../state/search.svelte';
import type { SearchFilter, SearchResults } from '../types';
import SessionSearch from './SessionSearch.svelte';

afterEach(cleanup);

/** A backend that answers like store.Search: refuses short and quote-only queries in its words. */
function fakeBridge(status = { indexed: 10, total: 10 }) {
  const asked: { q: string; f: SearchFilter }[] = [];
  const bridge = {
    asked,
    status,
    async search(q: string, f: SearchFilter): Promise<SearchResults> {
      asked.push({ q, f });
      const t = q.trim();
      if (t.replace(/["'`\s]/g, '') === '') throw new BridgeError(`search for some text: ${t} holds only quotes (the query is matched as typed, quotes included; type at least 3 characters)`, 'Search');
      if (t.length < 3) throw new BridgeError(`type at least 3 characters to search ("${t}" has ${t.length})`, 'Search');
      return {
        query: t, more: false, order: 'best', partial: bridge.status.indexed < bridge.status.total, status: bridge.status,
        sessions: [
          { session_id: 's1', title: 'Fix \x1b[31mparser', model: 'qwen3', workspace: '/src/app', last_reason: 'answered', updated_at: new Date().toISOString(), hits: [
            { seq: 4, kind: 'tool_result', run: 1, round: 2, time: '', snippet: [{ text: 'call ' }, { text: t, match: true }, { text: ' <b>not bold</b>\u202e' }] },
            { seq: 7, kind: 'model_response', run: 1, round: 3, time: '', snippet: [{ text: t, match: true }] },
          ] },
          { session_id: 's2', title: 'Other', model: 'llama3', workspace: '/src/b', last_reason: 'error', updated_at: new Date().toISOString(), hits: [
            { seq: 2, kind: 'user_message', run: 1, round: 0, time: '', snippet: [{ text: t, match: true }] },
          ] },
        ],
      };
    },
    async searchStatus() {
      return bridge.status;
    },
  };
  return bridge;
}

async function typed(input: HTMLElement, search: SearchState, q: string) {
  await fireEvent.input(input, { target: { value: q } });
  await search.run();
}

describe('SessionSearch', () => {
  it('draws hits grouped by session, the match marked, the text escaped, the card kind named', async () => {
    const bridge = fakeBridge();
    const search = new SearchState(bridge as unknown as Bridge);
    render(SessionSearch, { props: { search, sessions: [], onopen: () => {} } });
    await typed(screen.getByTestId('global-search'), search, 'parse_args(');
    await vi.waitFor(() => expect(screen.getAllByTestId('search-hit')).toHaveLength(3));
    const groups = screen.getAllByTestId('search-session');
    expect(groups.map((g) => g.dataset['sessionId'])).toEqual(['s1', 's2']);
    expect(groups[0]!.textContent).toContain('Fix \\x1b[31mparser');
    const first = screen.getAllByTestId('search-hit')[0]!;
    expect(within(first).getByTestId('search-hit-kind').textContent).toBe('Tool result · round 2');
    expect(first.querySelector('mark')!.textContent).toBe('parse_args(');
    // Markup in the log is text, and a bidi override is shown, not obeyed.
    expect(first.querySelector('b')).toBeNull();
    expect(within(first).getByTestId('search-snippet').textContent).toBe('call parse_args( <b>not bold</b>\\u202e');
  });

  it('says what to type for one character or only quotes, in the backend\u2019s words', async () => {
    const search = new SearchState(fakeBridge() as unknown as Bridge);
    render(SessionSearch, { props: { search, sessions: [], onopen: () => {} } });
    const input = screen.getByTestId('global-search');
    await typed(input, search, 'x');
    expect(screen.getByTestId('search-message').textContent).toBe('type at least 3 characters to search ("x" has 1)');
    await typed(input, search, '""');
    expect(screen.getByTestId('search-message').textContent).toContain('holds only quotes');
    expect(screen.queryAllByTestId('search-hit')).toHaveLength(0);
  });

  it('↑ / ↓ select a hit, Enter opens it at its event, Esc clears and then gives the keyboard back', async () => {
    const onopen = vi.fn();
    const search = new SearchState(fakeBridge() as unknown as Bridge);
    const before = document.createElement('button');
    document.body.append(before);
    before.focus();
    const { component } = render(SessionSearch, { props: { search, sessions: [], onopen } });
    (component as unknown as { focus: () => void }).focus();
    const input = screen.getByTestId('global-search');
    expect(document.activeElement).toBe(input);
    await typed(input, search, 'needle');
    await vi.waitFor(() => expect(screen.getAllByTestId('search-hit')).toHaveLength(3));
    await fireEvent.keyDown(input, { key: 'ArrowDown' });
    await fireEvent.keyDown(input, { key: 'ArrowDown' });
    await fireEvent.keyDown(input, { key: 'ArrowDown' });
    expect(screen.getAllByTestId('search-hit')[2]!.getAttribute('aria-selected')).toBe('true');
    await fireEvent.keyDown(input, { key: 'ArrowUp' });
    await fireEvent.keyDown(input, { key: 'Enter' });
    expect(onopen).toHaveBeenLastCalledWith('s1', 7);
    await fireEvent.keyDown(input, { key: 'Escape' });
    expect(search.query).toBe('');
    expect(screen.queryByTestId('search-results')).toBeNull();
    await fireEvent.keyDown(input, { key: 'Escape' });
    expect(document.activeElement).toBe(before);
    before.remove();
  });

  it('sends the filters, and shows the index\u2019s progress while it builds', async () => {
    const bridge = fakeBridge({ indexed: 250, total: 1000 });
    const search = new SearchState(bridge as unknown as Bridge);
    const stop = search.watch();
    const sessions = [
      { id: 'a', model: 'qwen3', workspace: '/src/app', last_reason: 'answered' },
      { id: 'b', model: 'llama3', workspace: '/src/b', last_reason: 'error' },
    ] as never[];
    render(SessionSearch, { props: { search, sessions, onopen: () => {} } });
    await vi.waitFor(() => expect(screen.getByTestId('search-progress').textContent).toContain('250 of 1,000 events'));
    await fireEvent.click(screen.getByTestId('search-filters-toggle'));
    await fireEvent.change(screen.getByTestId('filter-model'), { target: { value: 'llama3' } });
    await fireEvent.change(screen.getByTestId('filter-outcome'), { target: { value: 'error' } });
    await fireEvent.change(screen.getByTestId('filter-from'), { target: { value: '2026-03-01' } });
    await typed(screen.getByTestId('global-search'), search, 'widget');
    expect(bridge.asked.at(-1)!.f).toEqual({ model: 'llama3', outcome: 'error', from: new Date(2026, 2, 1).toISOString() });
    expect(screen.getByTestId('search-results').textContent).toContain('not indexed yet');
    stop();
  });
});
