// Helpers for the whole-app specs: render the app on a replay of one of
// the Go engine's recordings, and drive it the way a person does.
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { expect } from 'vitest';
import { ReplayBridge, type ReplayOptions } from '../lib/replay/bridge';
import { recording } from '../lib/replay/recordings';
import { ThemeState } from '../lib/state';
import AppShell from './AppShell.svelte';

let current: ReplayBridge | null = null;

/** Renders the app on a replay of the named recording. */
export function play(name: string, opts: ReplayOptions = {}): ReplayBridge {
  const replay = new ReplayBridge(recording(name), opts);
  current = replay;
  render(AppShell, { props: { bridge: replay, theme: new ThemeState({ storage: null, matchMedia: null }) } });
  return replay;
}

/**
 * For afterEach: fails the spec when the UI sent a command the recording
 * does not have next, then unmounts the app.
 */
export function finish(): void {
  const r = current;
  current = null;
  cleanup();
  r?.check();
}

/** Waits until the UI has sent every recorded command, and nothing else. */
export async function played(replay: ReplayBridge): Promise<void> {
  await waitFor(() => replay.expectDone(), { timeout: 5000 });
}

/** Opens the (only) session from the sidebar. */
export async function openSession(): Promise<void> {
  const item = await screen.findByTestId('session-item');
  await fireEvent.click(within(item).getAllByRole('button')[0]!);
  await screen.findByTestId('learn-bar');
}

/** Types a message in the composer and sends it with Ctrl+Enter. */
export async function send(text: string): Promise<void> {
  const input = screen.getByTestId('composer-input');
  await fireEvent.input(input, { target: { value: text } });
  await fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true });
}

/** A key pressed where the focus is. */
export const key = (k: string, init: KeyboardEventInit = {}) => fireEvent.keyDown(document.activeElement ?? window, { key: k, ...init });

/** Waits for the pause editor at a checkpoint. */
export async function pausedAt(point: string): Promise<HTMLElement> {
  return waitFor(() => {
    const ed = screen.getByTestId('pause-editor');
    expect(ed.getAttribute('data-point')).toBe(point);
    return ed;
  });
}

/** Waits for the n-th run's end card. */
export async function ended(n = 1): Promise<void> {
  await waitFor(() => expect(screen.getAllByTestId('card-end')).toHaveLength(n), { timeout: 5000 });
}

/** Whole-app flows with many renders: generous on a busy 2-core machine. */
export const slow = { timeout: 20_000 };
