// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReplayBridge, type ReplayOptions } from '../replay/bridge';
import { recording } from '../replay/recordings';
import { OllamaStatus, STATUS_RETRY_MS, STATUS_WATCH_MS } from './status.svelte';

/** Ollama's status on a replay's machine, watched from the start. */
function setup(opts: ReplayOptions = {}) {
  const replay = new ReplayBridge(recording('approve_command'), opts);
  const notify = vi.fn();
  const onBack = vi.fn();
  const status = new OllamaStatus(replay, notify, onBack);
  const stop = status.watch();
  return { replay, status, notify, onBack, stop };
}

describe('OllamaStatus', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps checking an unreachable Ollama and loads models once it answers', async () => {
    vi.useFakeTimers();
    const { status, replay, onBack, stop } = setup({ status: { reachable: false, message: 'Start Ollama with "ollama serve".' } });
    await vi.advanceTimersByTimeAsync(0);
    expect(status.status?.message).toContain('ollama serve');
    // The model picker stops waiting: there is nothing to list.
    expect(status.modelsLoaded).toBe(true);
    expect(replay.callsOf('listModels')).toHaveLength(0);
    replay.statusInfo = { ...replay.statusInfo, reachable: true };
    await vi.advanceTimersByTimeAsync(STATUS_RETRY_MS);
    expect(status.status?.reachable).toBe(true);
    expect(status.models.map((m) => m.name)).toEqual(replay.models.map((m) => m.name));
    expect(onBack).toHaveBeenCalledTimes(1);
    stop();
  });

  it('re-checks of its own accord without a spinner, and the same answer leaves the status as it was', async () => {
    vi.useFakeTimers();
    const { status, replay, stop } = setup({ status: { reachable: false, message: 'Start Ollama with "ollama serve".' } });
    await vi.advanceTimersByTimeAsync(0);
    const first = status.status;
    let shown = 0;
    const look = setInterval(() => (shown += status.checking ? 1 : 0), 1);
    await vi.advanceTimersByTimeAsync(STATUS_RETRY_MS * 4);
    clearInterval(look);
    expect(replay.callsOf('status').length).toBeGreaterThan(3);
    expect(shown, 'no "checking" shown for the timer\'s checks').toBe(0);
    // Nothing that reads the status is told of a change: it is the same object.
    expect(status.status).toBe(first);
    // A check asked for is shown.
    const asked = status.refresh();
    expect(status.checking).toBe(true);
    await asked;
    stop();
  });

  it('shows a stopped Ollama without a click, and a model pulled once it is back', async () => {
    vi.useFakeTimers();
    const { status, replay, onBack, stop } = setup();
    await vi.advanceTimersByTimeAsync(0);
    expect(status.status?.reachable).toBe(true);
    expect(onBack).toHaveBeenCalledTimes(1);
    replay.statusInfo = { ...replay.statusInfo, reachable: false, message: 'Start Ollama with "ollama serve".' };
    await vi.advanceTimersByTimeAsync(STATUS_WATCH_MS);
    expect(status.status?.reachable).toBe(false);
    replay.statusInfo = { ...replay.statusInfo, reachable: true, message: '' };
    replay.models = [...replay.models, { ...replay.models[0]!, name: 'pulled:latest' }];
    await vi.advanceTimersByTimeAsync(STATUS_RETRY_MS);
    expect(status.models.map((m) => m.name)).toContain('pulled:latest');
    expect(status.modelInfo('pulled:latest')?.name).toBe('pulled:latest');
    expect(onBack).toHaveBeenCalledTimes(2);
    stop();
  });

  it('checks again when the window gets the focus back, and not once stopped', async () => {
    vi.useFakeTimers();
    const { replay, stop } = setup();
    await vi.advanceTimersByTimeAsync(0);
    expect(replay.callsOf('status')).toHaveLength(1);
    window.dispatchEvent(new Event('focus'));
    await vi.advanceTimersByTimeAsync(0);
    expect(replay.callsOf('status')).toHaveLength(2);
    stop();
    window.dispatchEvent(new Event('focus'));
    await vi.advanceTimersByTimeAsync(STATUS_WATCH_MS * 2);
    expect(replay.callsOf('status')).toHaveLength(2);
  });

  it('says when Ollama cannot be asked at all, keeping the host it knew', async () => {
    vi.useFakeTimers();
    const { status, replay, stop } = setup();
    await vi.advanceTimersByTimeAsync(0);
    const host = status.status!.ollama_host;
    replay.status = () => Promise.reject(new Error('the backend is gone'));
    await status.refresh();
    expect(status.status).toMatchObject({ reachable: false, message: 'the backend is gone', ollama_host: host });
    stop();
  });

  it('tells a failed model list, except from a background check', async () => {
    vi.useFakeTimers();
    const { status, replay, notify, stop } = setup();
    await vi.advanceTimersByTimeAsync(0);
    const before = status.models;
    replay.listModels = () => Promise.reject(new Error('connection refused'));
    await status.refreshModels(true);
    expect(notify).not.toHaveBeenCalled();
    await status.refreshModels();
    expect(notify).toHaveBeenCalledWith('Could not list models: connection refused', 'error');
    // What was listed before stays.
    expect(status.models).toBe(before);
    stop();
  });
});
