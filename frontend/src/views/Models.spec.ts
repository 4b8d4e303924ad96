// @vitest-environment jsdom
// Ollama without a terminal, in the whole window: Start Ollama when it is
// installed but not running (and why it failed, with its log), how to get
// it when it is not installed, and the Models page: a pull's progress as
// the Go client made it of the fake Ollama's stream (lib/replay/pulls.json),
// its Cancel, a pull without a network, and a delete that asks first.
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { recordedPulls } from '../lib/replay/pulls';
import type { LocalOllama } from '../lib/types';
import { finish, play, slow } from './testing';

afterEach(finish);

const installed: LocalOllama = {
  on_this_machine: true,
  installed: true,
  binary: '/usr/local/bin/ollama',
  binary_version: '0.17.4',
  started_by_loupe: false,
  log_path: '/home/me/.local/share/loupe/ollama-serve.log',
  install: '',
  install_url: '',
  last_error: '',
};
const notRunning = { reachable: false, message: 'Ollama is not running at http://127.0.0.1:11434 — start it with `ollama serve`', local: installed };

async function openModels(): Promise<void> {
  await fireEvent.click(await screen.findByTestId('open-models'));
  await screen.findByTestId('models-page');
}

async function pull(name: string): Promise<void> {
  await fireEvent.input(screen.getByTestId('pull-name'), { target: { value: name } });
  await fireEvent.click(screen.getByTestId('pull-start'));
}

const installedNames = () => screen.queryAllByTestId('installed-model').map((m) => m.getAttribute('data-model'));

describe('Ollama without a terminal', () => {
  it('starts Ollama from the sidebar when it is installed but not running', slow, async () => {
    const replay = play('new_session', {
      status: notRunning,
      start: { status: { reachable: true, version: '0.17.4', message: '', local: { ...installed, started_by_loupe: true } } },
    });
    const status = await screen.findByTestId('ollama-status');
    await waitFor(() => expect(status.getAttribute('data-state')).toBe('not-running'));
    expect(status.textContent).toContain('Ollama is not running');
    // The home page says the same, with the same button.
    expect(screen.getByTestId('banner-start-ollama')).toBeTruthy();
    await fireEvent.click(within(status).getByTestId('start-ollama'));
    await waitFor(() => expect(status.getAttribute('data-state')).toBe('running'));
    expect(status.textContent).toContain('Ollama 0.17.4');
    expect(screen.getByTestId('ollama-started-by-loupe').textContent).toContain('started by Loupe');
    expect(replay.callsOf('startOllama')).toHaveLength(1);
    expect(screen.queryByTestId('ollama-banner')).toBeNull();
  });

  it('says why Ollama did not start, and opens its log', slow, async () => {
    const why =
      'Ollama did not start at http://127.0.0.1:11434: `ollama serve` exited (exit status 1): Error: listen tcp 127.0.0.1:11434: bind: address already in use — see its log, /home/me/.local/share/loupe/ollama-serve.log';
    const replay = play('new_session', { status: notRunning, start: { error: why } });
    await fireEvent.click(await screen.findByTestId('start-ollama'));
    expect((await screen.findByTestId('start-error')).textContent).toContain('address already in use');
    await fireEvent.click(screen.getByTestId('open-ollama-log'));
    expect(replay.opened).toEqual(['file:///home/me/.local/share/loupe/ollama-serve.log']);
  });

  it('says in one short message how to get Ollama when it is not installed', slow, async () => {
    const replay = play('new_session', {
      status: {
        ...notRunning,
        local: {
          ...installed,
          installed: false,
          binary: '',
          binary_version: '',
          install: 'Ollama is not installed. Install it with `curl -fsSL https://ollama.com/install.sh | sh` or from https://ollama.com/download, then start it here.',
          install_url: 'https://ollama.com/download',
        },
      },
    });
    const status = await screen.findByTestId('ollama-status');
    await waitFor(() => expect(status.getAttribute('data-state')).toBe('not-installed'));
    expect(status.textContent).toContain('Ollama is not installed');
    expect(within(status).getByTestId('install-hint').querySelector('code')?.textContent).toBe('curl -fsSL https://ollama.com/install.sh | sh');
    expect(within(status).queryByTestId('start-ollama')).toBeNull();
    await fireEvent.click(within(status).getByTestId('install-ollama'));
    expect(replay.opened).toEqual(['https://ollama.com/download']);
  });

  it('pulls a model with its progress, and lists it once installed', slow, async () => {
    const replay = play('new_session', { pulls: recordedPulls(), pullStepMs: 40 });
    await openModels();
    expect(installedNames()).not.toContain('qwen3:8b');
    await pull('qwen3:8b');
    const row = await screen.findByTestId('pull');
    await waitFor(() => expect(within(row).getByTestId('pull-percent').textContent).toBe('50%'));
    expect(within(row).getByRole('progressbar').getAttribute('aria-valuenow')).toBe('50');
    expect(within(row).getByTestId('pull-bytes').textContent).toBe('2.4 GB of 4.9 GB');
    await waitFor(() => expect(screen.queryByTestId('pull')).toBeNull(), { timeout: 5000 });
    await waitFor(() => expect(installedNames()).toContain('qwen3:8b'));
    const model = screen.getAllByTestId('installed-model').find((m) => m.getAttribute('data-model') === 'qwen3:8b')!;
    expect(model.textContent).toContain('qwen3');
    expect(model.textContent).toContain('40,960 ctx');
    expect(model.textContent).toContain('thinking');
    expect(replay.callsOf('pullModel')).toEqual([['qwen3:8b']]);
    await waitFor(() => expect(screen.getAllByTestId('toast').map((t) => t.textContent?.trim())).toContain('qwen3:8b is installed.'));
  });

  it('cancels a pull: its row goes and nothing is installed', slow, async () => {
    const replay = play('new_session', { pulls: recordedPulls(), pullStepMs: 60 });
    await openModels();
    await pull('qwen3:8b');
    const row = await screen.findByTestId('pull');
    await waitFor(() => expect(within(row).getByTestId('pull-percent').textContent).toBe('25%'));
    await fireEvent.click(within(row).getByTestId('pull-cancel'));
    await waitFor(() => expect(screen.queryByTestId('pull')).toBeNull());
    expect(replay.callsOf('cancelPull')).toEqual([['qwen3:8b']]);
    expect(installedNames()).not.toContain('qwen3:8b');
    await waitFor(() => expect(screen.getAllByTestId('toast').map((t) => t.textContent?.trim())).toContain('The pull of qwen3:8b was cancelled; nothing of it is installed.'));
  });

  it('says when a pull fails for want of a network, and the row can be dismissed', slow, async () => {
    play('new_session', { pulls: recordedPulls() });
    await openModels();
    await pull('llama3.2');
    const err = await screen.findByTestId('pull-error');
    expect(err.textContent).toContain('cannot reach the model registry');
    expect(err.textContent).toContain('online');
    await fireEvent.click(screen.getByTestId('pull-dismiss'));
    expect(screen.queryByTestId('pull')).toBeNull();
    expect(installedNames()).not.toContain('llama3.2');
  });

  it('deletes a model only once asked and answered yes', slow, async () => {
    const replay = play('new_session');
    await openModels();
    const row = () => screen.getAllByTestId('installed-model').find((m) => m.getAttribute('data-model') === 'gemma3:1b')!;
    await fireEvent.click(within(row()).getByRole('button', { name: 'Delete gemma3:1b' }));
    const dialog = await screen.findByTestId('delete-model-confirm');
    expect(dialog.textContent).toContain('Delete gemma3:1b?');
    expect(document.activeElement).toBe(screen.getByTestId('delete-model-keep'));
    // Esc keeps it, and leaves the page where it is.
    await fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByTestId('delete-model-confirm')).toBeNull();
    expect(screen.getByTestId('models-page')).toBeTruthy();
    expect(replay.callsOf('deleteModel')).toHaveLength(0);

    await fireEvent.click(within(row()).getByRole('button', { name: 'Delete gemma3:1b' }));
    await fireEvent.click(await screen.findByTestId('delete-model-yes'));
    await waitFor(() => expect(installedNames()).not.toContain('gemma3:1b'));
    expect(replay.callsOf('deleteModel')).toEqual([['gemma3:1b']]);
    expect(installedNames()).toContain('qwen3:0.6b');
  });

  it('sends a newcomer with no models to the Models page', slow, async () => {
    play('new_session', { models: [] });
    await fireEvent.click(await screen.findByTestId('banner-pull-model'));
    expect(await screen.findByTestId('models-page')).toBeTruthy();
    expect(screen.getByTestId('models-none').textContent).toContain('No models yet');
  });
});

describe('a new session without Ollama or models', () => {
  it('starts Ollama and goes to the Models page from the new-session page', slow, async () => {
    const replay = play('new_session', {
      status: notRunning,
      models: [],
      start: { status: { reachable: true, version: '0.17.4', message: '', local: { ...installed, started_by_loupe: true } } },
    });
    await fireEvent.click(await screen.findByTestId('new-session'));
    await fireEvent.click(await screen.findByTestId('new-start-ollama'));
    await waitFor(() => expect(replay.callsOf('startOllama')).toHaveLength(1));
    await fireEvent.click(await screen.findByTestId('new-pull-model'));
    expect(await screen.findByTestId('models-page')).toBeTruthy();
  });
});
