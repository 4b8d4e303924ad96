// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import LoopDiagram from './LoopDiagram.svelte';

afterEach(cleanup);

describe('LoopDiagram', () => {
  it('lists the steps of the loop and lights none before anything happened', () => {
    render(LoopDiagram, { props: { position: null } });
    expect(screen.getAllByTestId('loop-step').map((s) => s.dataset['step'])).toEqual([
      'send',
      'respond',
      'validate',
      'permission',
      'execute',
      'append',
      'stop',
    ]);
    expect(screen.getAllByTestId('loop-step').filter((s) => s.dataset['lit'] === 'true')).toHaveLength(0);
    expect(screen.getByTestId('loop-caption').textContent).toContain('send a message');
  });

  it('lights the current step and says when the run is paused there', () => {
    render(LoopDiagram, { props: { position: { step: 'permission', paused: true, when: 'before' }, live: true } });
    const d = screen.getByTestId('loop-diagram');
    expect(d.dataset['step']).toBe('permission');
    expect(d.dataset['paused']).toBe('true');
    const lit = screen.getAllByTestId('loop-step').filter((s) => s.getAttribute('aria-current') === 'step');
    expect(lit.map((s) => s.dataset['step'])).toEqual(['permission']);
    expect(screen.getByTestId('loop-caption').textContent).toContain('Paused before Permission');
  });
});
