// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { aimedSince, bringIntoView, inView, markMatches, SEARCH_HIGHLIGHT, stopAiming } from './dom';

describe('inView', () => {
  const view = { top: 100, bottom: 500 };
  it('holds for a box wholly inside the view, give or take a pixel of rounding', () => {
    expect(inView({ top: 100, bottom: 500 }, view)).toBe(true);
    expect(inView({ top: 99.5, bottom: 300 }, view)).toBe(true);
    expect(inView({ top: 200, bottom: 500.6 }, view)).toBe(true);
  });
  it('fails for a box cut by either edge: the card just off screen', () => {
    expect(inView({ top: 80, bottom: 200 }, view)).toBe(false);
    expect(inView({ top: 450, bottom: 560 }, view)).toBe(false);
    expect(inView({ top: 510, bottom: 600 }, view)).toBe(false);
  });
  it('holds for a box taller than the view only when its top is at the view top', () => {
    expect(inView({ top: 100, bottom: 900 }, view)).toBe(true);
    expect(inView({ top: 60, bottom: 900 }, view)).toBe(false);
    expect(inView({ top: 140, bottom: 900 }, view)).toBe(false);
    // Its scroll-margin below the top is its top at the top.
    expect(inView({ top: 116, bottom: 900 }, view, 16)).toBe(true);
    expect(inView({ top: 140, bottom: 900 }, view, 16)).toBe(false);
  });
});

describe('bringIntoView: one aim at a time', () => {
  /**
   * A timeline 400 px high and cards in it whose box is where the test says;
   * scrollIntoView notes which card was aimed at and moves nothing (a slow
   * window: the scroll has not got there yet).
   */
  function timeline() {
    const scroller = document.createElement('div');
    scroller.dataset['part'] = 'timeline';
    scroller.getBoundingClientRect = () => ({ top: 0, bottom: 400, height: 400 }) as DOMRect;
    Object.defineProperty(scroller, 'clientHeight', { value: 400 });
    document.body.append(scroller);
    const aimed: string[] = [];
    const card = (id: string) => {
      const el = document.createElement('article');
      el.id = `card-${id}`;
      // Off screen, below the view.
      el.getBoundingClientRect = () => ({ top: 900, bottom: 1000, height: 100 }) as DOMRect;
      el.scrollIntoView = () => aimed.push(id);
      scroller.append(el);
      return el;
    };
    return { scroller, aimed, card };
  }

  it('an older aim never scrolls again once a newer one has started (the view shows the newer card, not the one before)', async () => {
    const { scroller, aimed, card } = timeline();
    card('a');
    card('b');
    const older = bringIntoView(() => document.getElementById('card-a'));
    const newer = bringIntoView(() => document.getElementById('card-b'));
    const [o, n] = await Promise.all([older, newer]);
    expect(o).toBe(false);
    expect(n).toBe(true);
    // a once (its first aim), then only b: its first aim and its aims again.
    expect(aimed[0]).toBe('a');
    expect(aimed.slice(1).every((id) => id === 'b')).toBe(true);
    expect(aimed.filter((id) => id === 'b').length).toBeGreaterThan(1);
    scroller.remove();
  });

  it('stopAiming (following the end, the user scrolling) ends the aim in progress', async () => {
    const { scroller, aimed, card } = timeline();
    card('a');
    const aim = bringIntoView(() => document.getElementById('card-a'));
    const mark = stopAiming();
    expect(await aim).toBe(false);
    expect(aimed).toEqual(['a']);
    expect(aimedSince(mark)).toBe(false);
    void bringIntoView(() => null);
    expect(aimedSince(mark)).toBe(true);
    scroller.remove();
  });
});

describe('markMatches', () => {
  afterEach(() => {
    document.body.innerHTML = '';
    delete (globalThis as unknown as { CSS?: unknown }).CSS;
    delete (globalThis as unknown as { Highlight?: unknown }).Highlight;
  });
  // A card whose code is drawn in pieces, as the highlighter draws it.
  const card = () => {
    document.body.innerHTML = '<article id="card-c1"><header>Result</header><pre><span>opts = </span><span>PARSE_</span>args(argv)\nparse_args(x)</pre></article>';
  };

  it('marks every place in the card, across the pieces a line is drawn in', async () => {
    card();
    const marked: Range[][] = [];
    const highlights = new Map<string, unknown>();
    (globalThis as unknown as { CSS: unknown }).CSS = { highlights };
    (globalThis as unknown as { Highlight: unknown }).Highlight = class {
      constructor(...r: Range[]) {
        marked.push(r);
      }
    };
    expect(await markMatches('c1', 'parse_args(')).toBe(2);
    expect(marked[0]!.map((r) => r.toString())).toEqual(['PARSE_args(', 'parse_args(']);
    expect(highlights.has(SEARCH_HIGHLIGHT)).toBe(true);
    // Nothing to mark: the last marks go.
    expect(await markMatches('c1', 'no such text')).toBe(0);
    expect(highlights.has(SEARCH_HIGHLIGHT)).toBe(false);
  });

  it('selects the first place where the engine has no CSS highlights', async () => {
    card();
    expect(await markMatches('c1', 'Parse_Args(')).toBe(2);
    expect(getSelection()?.toString()).toBe('PARSE_args(');
  });

  it('marks nothing in a card that is not there', async () => {
    expect(await markMatches('nope', 'parse_args(')).toBe(0);
  });
});
