// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import StepControls from './StepControls.svelte';

afterEach(cleanup);

function show(p: Partial<{ stepping: boolean; paused: boolean; active: boolean; busy: boolean; points: string[]; tools: string[] }> = {}) {
  const cb = { onstepping: vi.fn(), onstep: vi.fn(), oncontinue: vi.fn(), onstop: vi.fn(), onbreakpoint: vi.fn() };
  render(StepControls, {
    props: {
      stepping: p.stepping ?? false,
      paused: p.paused ?? false,
      active: p.active ?? false,
      busy: p.busy ?? false,
      breakpoints: { points: p.points ?? [], tools: null },
      tools: p.tools ?? ['read_file', 'run_command'],
      ...cb,
    },
  });
  return cb;
}

const button = (id: string) => screen.getByTestId(id) as HTMLButtonElement;

describe('StepControls', () => {
  it('offers Step and Continue only at a pause, and Stop only while a run is going', async () => {
    show();
    expect(button('step-button').disabled).toBe(true);
    expect(button('continue-button').disabled).toBe(true);
    expect(button('step-stop-button').disabled).toBe(true);
    cleanup();
    const cb = show({ stepping: true, paused: true, active: true });
    expect((screen.getByTestId('step-toggle') as HTMLInputElement).checked).toBe(true);
    await fireEvent.click(button('step-button'));
    await fireEvent.click(button('continue-button'));
    await fireEvent.click(button('step-stop-button'));
    expect(cb.onstep).toHaveBeenCalledTimes(1);
    expect(cb.oncontinue).toHaveBeenCalledTimes(1);
    expect(cb.onstop).toHaveBeenCalledTimes(1);
  });

  it('does not resume twice while a resume is on its way', () => {
    show({ paused: true, active: true, busy: true });
    expect(button('step-button').disabled).toBe(true);
    expect(button('continue-button').disabled).toBe(true);
  });

  it('asks to turn Step mode on, and shows it on only when told', async () => {
    const cb = show();
    const toggle = screen.getByTestId('step-toggle') as HTMLInputElement;
    await fireEvent.click(toggle);
    expect(cb.onstepping).toHaveBeenCalledWith(true);
    expect(toggle.checked).toBe(false);
  });

  it('shows its shortcuts', () => {
    show();
    expect(button('step-button').textContent).toMatch(/s\s*F10/);
    expect(button('continue-button').textContent).toMatch(/c\s*F8/);
    expect(button('step-stop-button').textContent).toContain('Esc');
    expect(screen.getByTestId('step-controls').textContent).toContain('t');
  });

  it('sets breakpoints by checkpoint kind and by tool', async () => {
    const cb = show({ points: ['before_tool'] });
    expect(screen.getByTestId('breakpoint-count').textContent).toBe('1');
    const points = screen.getAllByTestId('breakpoint-point') as HTMLInputElement[];
    expect(points.map((p) => [p.dataset['point'], p.checked])).toEqual([
      ['before_request', false],
      ['after_response', false],
      ['before_tool', true],
      ['after_result', false],
      ['after_hook', false],
    ]);
    await fireEvent.click(points[0]!);
    expect(cb.onbreakpoint).toHaveBeenCalledWith({ point: 'before_request' });
    const tools = screen.getAllByTestId('breakpoint-tool') as HTMLInputElement[];
    expect(tools.map((t) => t.dataset['tool'])).toEqual(['read_file', 'run_command']);
    await fireEvent.click(tools[1]!);
    expect(cb.onbreakpoint).toHaveBeenCalledWith({ tool: 'run_command' });
  });
});

describe('the Breakpoints menu', () => {
  const menu = () => screen.getByTestId('breakpoints-button').parentElement as HTMLDetailsElement;
  async function openMenu() {
    await fireEvent.click(screen.getByTestId('breakpoints-button'));
    // jsdom toggles <details> on a click of its summary; the toggle event comes after.
    await waitFor(() => expect(screen.getByTestId('breakpoints-button').getAttribute('aria-expanded')).toBe('true'));
    expect(menu().open).toBe(true);
  }

  it('closes on Esc, and the Esc stops nothing', async () => {
    const cb = show({ active: true });
    await openMenu();
    const box = screen.getAllByTestId('breakpoint-point')[0]!;
    box.focus();
    const esc = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true });
    box.dispatchEvent(esc);
    expect(esc.defaultPrevented).toBe(true);
    await waitFor(() => expect(menu().open).toBe(false));
    expect(document.activeElement).toBe(screen.getByTestId('breakpoints-button'));
    expect(cb.onstop).not.toHaveBeenCalled();
  });

  it('closes on a click outside it, not on one inside', async () => {
    show();
    await openMenu();
    await fireEvent.pointerDown(screen.getAllByTestId('breakpoint-point')[0]!);
    expect(menu().open).toBe(true);
    await fireEvent.pointerDown(document.body);
    await waitFor(() => expect(menu().open).toBe(false));
  });

  it('opens toward the side with room, so a narrow window does not cut it off', async () => {
    show();
    const button = screen.getByTestId('breakpoints-button');
    button.getBoundingClientRect = () => ({ left: 20, right: 140, top: 0, bottom: 24, width: 120, height: 24, x: 20, y: 0, toJSON: () => ({}) });
    await openMenu();
    expect(screen.getByTestId('breakpoints-menu').getAttribute('data-align')).toBe('left');
    await fireEvent.click(button);
    await waitFor(() => expect(button.getAttribute('aria-expanded')).toBe('false'));
    button.getBoundingClientRect = () => ({ left: 600, right: 720, top: 0, bottom: 24, width: 120, height: 24, x: 600, y: 0, toJSON: () => ({}) });
    await openMenu();
    expect(screen.getByTestId('breakpoints-menu').getAttribute('data-align')).toBe('right');
  });

  it('counts the left edge of what clips it, not the window’s', async () => {
    // The main area beside the sidebar hides what overflows it.
    const main = document.createElement('main');
    main.style.overflow = 'hidden';
    main.getBoundingClientRect = () => ({ left: 290, right: 900, top: 0, bottom: 700, width: 610, height: 700, x: 290, y: 0, toJSON: () => ({}) });
    document.body.append(main);
    const cb = { onstepping: vi.fn(), onstep: vi.fn(), oncontinue: vi.fn(), onstop: vi.fn(), onbreakpoint: vi.fn() };
    render(StepControls, { target: main, props: { stepping: false, paused: false, active: false, breakpoints: { points: [], tools: [] }, tools: [], ...cb } });
    screen.getByTestId('breakpoints-button').getBoundingClientRect = () => ({ left: 306, right: 414, top: 0, bottom: 24, width: 108, height: 24, x: 306, y: 0, toJSON: () => ({}) });
    await openMenu();
    expect(screen.getByTestId('breakpoints-menu').getAttribute('data-align')).toBe('left');
    main.remove();
  });
});
