// @vitest-environment jsdom
// The first run without Ollama, on the engine's recording of it: the home
// page offers the scripted demo, the demo opens paused in Step mode, and
// the guided tour walks through five stops by keyboard; Help opens the
// tour again. The demo is named as scripted wherever a model is named.
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOUR_SEEN_KEY } from '../lib/state';
import { DEMO_LABEL } from '../lib/timeline';
import { finish, pausedAt, play, slow } from './testing';

const offline = { status: { reachable: false, message: 'Ollama is not running at http://127.0.0.1:11434: start it with "ollama serve".' } };

beforeEach(() => localStorage.clear());
afterEach(finish);

const tourStop = () => screen.getByTestId('tour').getAttribute('data-stop');
const press = (key: string, init: KeyboardEventInit = {}) => fireEvent.keyDown(window, { key, ...init });

describe('the first run without Ollama', () => {
  it('offers the demo first, and starts it with one click', slow, async () => {
    const replay = play('demo_first_run', offline);
    const welcome = await screen.findByTestId('demo-welcome');
    expect(welcome.textContent).toContain('Try the demo — no Ollama needed');
    // The demo is the way in: the usual welcome, which needs Ollama, is not shown beside it.
    expect(screen.queryByTestId('welcome')).toBeNull();
    expect(screen.getByTestId('ollama-banner')).toBeTruthy();
    // It has the keyboard: Enter would start it.
    await waitFor(() => expect(document.activeElement).toBe(within(welcome).getByTestId('demo-offer')));
    await fireEvent.click(within(welcome).getByTestId('demo-offer'));
    await waitFor(() => expect(replay.commandsOf('demo')).toEqual([{ do: 'demo' }]));
    // The session opens paused before its first request, in Step mode.
    await pausedAt('before_request');
    expect(screen.getByTestId('session-title').textContent).toBe('The tests fail. Find out why and fix it.');
    expect(screen.getByTestId('session-model-name').textContent).toBe(DEMO_LABEL);
    // No Ollama is needed: the window does not say it is missing here.
    expect(screen.queryByTestId('ollama-banner')).toBeNull();
    expect((screen.getByTestId('session-model') as HTMLSelectElement).selectedOptions[0]!.textContent).toBe(DEMO_LABEL);
  });

  it('tours five stops by keyboard, and Esc skips the tour without stopping the run', slow, async () => {
    const replay = play('demo_first_run', offline);
    await fireEvent.click(await screen.findByTestId('demo-offer'));
    await pausedAt('before_request');
    const tour = await screen.findByTestId('tour');
    expect(tourStop()).toBe('loop');
    expect(tour.textContent).toContain('1 of 5');
    // It points at the loop diagram (jsdom lays nothing out, so no ring is drawn here).
    expect(tour.getAttribute('data-target')).toBe('loop-diagram');
    const seen: string[] = [tourStop()!];
    await press('Enter');
    seen.push(tourStop()!);
    await press('ArrowRight');
    seen.push(tourStop()!);
    await press('ArrowLeft');
    expect(tourStop()).toBe('step');
    await press('ArrowRight');
    await press('ArrowRight');
    seen.push(tourStop()!);
    // The user's message already has a Raw to point at.
    expect(screen.getByTestId('tour').getAttribute('data-target')).toBe('raw-toggle');
    await press('Enter');
    seen.push(tourStop()!);
    expect(seen).toEqual(['loop', 'step', 'saw', 'raw', 'playback']);
    expect(screen.getByTestId('tour').getAttribute('data-target')).toBe('playback-toggle');
    expect(screen.getByTestId('tour-next').textContent).toContain('Done');
    // Esc ends the tour; the paused run is not asked to stop.
    await press('Escape');
    expect(screen.queryByTestId('tour')).toBeNull();
    expect(screen.queryByTestId('stop-confirm')).toBeNull();
    expect(replay.commandsOf('stop')).toEqual([]);
    expect(localStorage.getItem(TOUR_SEEN_KEY)).toBe('1');
    // The run's keys work again: s steps, as recorded.
    await press('s');
    await pausedAt('after_response');
    expect(screen.getAllByTestId('request-model')[0]!.textContent).toBe(DEMO_LABEL);
    // The demo's answer came with its own count, and says whose it is.
    expect(screen.getAllByTestId('prompt-size')[0]!.textContent).toMatch(/the demo script counted\s*1,578/);
    expect(screen.getAllByTestId('prompt-size')[0]!.textContent).toContain('no tokenizer runs');
    // Raw says where the request went: to the script, not to Ollama.
    const request = screen.getAllByTestId('card-request')[0]!;
    await fireEvent.click(within(request).getByTestId('raw-toggle'));
    const raw = await within(request).findByTestId('raw-view');
    expect(raw.textContent).toContain('the scripted demo read it, nothing went to Ollama');
    await waitFor(() => expect(raw.textContent).toMatch(/"model": *"demo"/));
  });

  it('skips the tour with Esc while the pause card has the keyboard, as it has when the demo opens', slow, async () => {
    const replay = play('demo_first_run', offline);
    await fireEvent.click(await screen.findByTestId('demo-offer'));
    await pausedAt('before_request');
    await screen.findByTestId('tour');
    // The demo opens with the keyboard on the pause card, which keeps Esc
    // from stopping the run; the tour's Esc must still reach the tour.
    const card = screen.getByTestId('pause-editor');
    await fireEvent.keyDown(card, { key: 'Escape' });
    expect(screen.queryByTestId('tour')).toBeNull();
    expect(screen.queryByTestId('stop-confirm')).toBeNull();
    expect(replay.commandsOf('stop')).toEqual([]);
    expect(screen.getByTestId('pause-editor').getAttribute('data-point')).toBe('before_request');
  });

  it('hides the tour on another page and shows it again back in the session', slow, async () => {
    play('demo_first_run', offline);
    await fireEvent.click(await screen.findByTestId('demo-offer'));
    await pausedAt('before_request');
    await screen.findByTestId('tour');
    await fireEvent.keyDown(screen.getByTestId('tour'), { key: 'Enter' });
    const at = tourStop();
    // New session: the tour points at nothing there, and Enter does not move it.
    await fireEvent.keyDown(window, { key: 'n', ctrlKey: true });
    await screen.findByTestId('pick-workspace');
    expect(screen.queryByTestId('tour')).toBeNull();
    await fireEvent.keyDown(window, { key: 'Escape' });
    await screen.findByTestId('tour');
    expect(tourStop()).toBe(at);
  });

  it('keeps the run going while the tour is shown, and reopens the tour from Help', slow, async () => {
    play('demo_first_run', offline);
    await fireEvent.click(await screen.findByTestId('demo-offer'));
    await pausedAt('before_request');
    await screen.findByTestId('tour');
    // Step works with the tour on screen; the tour stays where it was.
    await press('s');
    await pausedAt('after_response');
    expect(tourStop()).toBe('loop');
    await fireEvent.click(screen.getByTestId('tour-skip'));
    expect(screen.queryByTestId('tour')).toBeNull();
    await press('?');
    await fireEvent.click(within(screen.getByTestId('help-overlay')).getByTestId('help-tour'));
    expect(screen.queryByTestId('help-overlay')).toBeNull();
    expect(tourStop()).toBe('loop');
    for (let i = 0; i < 5; i++) await fireEvent.click(screen.getByTestId('tour-next'));
    expect(screen.queryByTestId('tour')).toBeNull();
  });

  it('does not open the tour by itself once it was seen', slow, async () => {
    localStorage.setItem(TOUR_SEEN_KEY, '1');
    play('demo_first_run', offline);
    await fireEvent.click(await screen.findByTestId('demo-offer'));
    await pausedAt('before_request');
    expect(screen.queryByTestId('tour')).toBeNull();
  });
});

describe('the demo with Ollama running', () => {
  it('is offered beside a new session, and is always in the model picker, named as scripted', slow, async () => {
    const replay = play('demo_first_run');
    const welcome = await screen.findByTestId('welcome');
    expect(within(welcome).getByTestId('demo-offer').textContent).toContain('no Ollama needed');
    expect(screen.queryByTestId('demo-welcome')).toBeNull();
    await fireEvent.click(screen.getByTestId('new-session'));
    const options = await screen.findAllByTestId('model-option');
    const demo = options.find((o) => o.getAttribute('data-model') === 'demo')!;
    expect(demo.textContent).toContain(DEMO_LABEL);
    expect(within(demo).getByTestId('scripted').textContent).toBe('scripted, no AI');
    // Ollama's models come first, and one of them is chosen.
    expect(options[0]!.getAttribute('data-model')).not.toBe('demo');
    await fireEvent.click(within(demo).getByRole('radio'));
    // The demo needs no folder: it copies its own project.
    expect(screen.getByTestId('demo-workspace-help')).toBeTruthy();
    expect((screen.getByTestId('create-session') as HTMLButtonElement).disabled).toBe(false);
    expect(replay.commandsOf('create')).toEqual([]);
  });

  it('is in the model picker when Ollama is away, chosen, so a session can start', slow, async () => {
    play('demo_first_run', offline);
    await screen.findByTestId('demo-welcome');
    await press('n', { ctrlKey: true });
    const options = await screen.findAllByTestId('model-option');
    expect(options.map((o) => o.getAttribute('data-model'))).toEqual(['demo']);
    expect((within(options[0]!).getByRole('radio') as HTMLInputElement).checked).toBe(true);
    expect(screen.queryByTestId('create-blocked')).toBeNull();
  });
});
