// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TOUR_STOPS } from '../state/tour.svelte';
import GuidedTour from './GuidedTour.svelte';

afterEach(() => {
  cleanup();
  document.body.innerHTML = '';
});

function show(index: number) {
  const cb = { onnext: vi.fn(), onback: vi.fn(), onskip: vi.fn() };
  render(GuidedTour, { props: { stop: TOUR_STOPS[index]!, index, total: TOUR_STOPS.length, ...cb } });
  return cb;
}

describe('GuidedTour', () => {
  it('says where a stop’s part of the window is when it is not there yet', () => {
    show(3);
    const tour = screen.getByTestId('tour');
    expect(tour.getAttribute('data-target')).toBe('');
    expect(screen.getByTestId('tour-missing').textContent).toContain('once there is one');
    expect(tour.textContent).toContain('4 of 5');
  });

  it('points at the part when it is there', () => {
    const el = document.createElement('figure');
    el.dataset['tour'] = 'loop-diagram';
    document.body.appendChild(el);
    show(0);
    expect(screen.getByTestId('tour').getAttribute('data-target')).toBe('loop-diagram');
    expect(screen.queryByTestId('tour-missing')).toBeNull();
    // The first stop has nothing to go back to.
    expect(screen.queryByTestId('tour-back')).toBeNull();
  });

  it('goes on, back, and is skipped with its buttons; the last says Done', async () => {
    const cb = show(4);
    expect(screen.getByTestId('tour-next').textContent).toContain('Done');
    await fireEvent.click(screen.getByTestId('tour-next'));
    await fireEvent.click(screen.getByTestId('tour-back'));
    await fireEvent.click(screen.getByTestId('tour-skip'));
    expect([cb.onnext.mock.calls.length, cb.onback.mock.calls.length, cb.onskip.mock.calls.length]).toEqual([1, 1, 1]);
  });

  it('schedules nothing while nothing changes, and measures again when the page does', async () => {
    vi.useFakeTimers();
    try {
      const el = document.createElement('figure');
      el.dataset['tour'] = 'loop-diagram';
      document.body.appendChild(el);
      const rect = vi.spyOn(el, 'getBoundingClientRect');
      show(0);
      await vi.advanceTimersByTimeAsync(5000);
      // Left alone: no timer waits and the element is not measured again.
      expect(vi.getTimerCount()).toBe(0);
      const looks = rect.mock.calls.length;
      await vi.advanceTimersByTimeAsync(5000);
      expect(rect.mock.calls.length).toBe(looks);
      // The page changes: the ring looks again, once.
      document.body.appendChild(document.createElement('p'));
      await vi.advanceTimersByTimeAsync(100);
      expect(rect.mock.calls.length).toBeGreaterThan(looks);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
