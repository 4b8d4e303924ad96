// @vitest-environment jsdom
// Named Ollama hosts and the workspace's AGENTS.md, in the whole app, on
// replays of the Go scenarios "named_host" and "project_instructions"
// (backend/session/recordings_test.go): the new-session dialog picks a
// host and lists that host's models, the request card says where the
// request went; Settings shows the whole system prompt with AGENTS.md
// marked, and "What the model saw" shows it as its own part.
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { ended, finish, openSession, play, played, send, slow } from './testing';

afterEach(finish);

describe('a session on a named Ollama host', () => {
  it('picks the host, lists its models, and shows on the request where it went, with no Ollama on this machine', slow, async () => {
    // The local Ollama is not running: a session on gpu-box does not need it.
    const replay = play('named_host', {
      pick: '/home/me/project',
      status: { reachable: false, version: '', message: 'Ollama is not running at http://127.0.0.1:11434 — start it with `ollama serve`' },
    });
    // A first start with no Ollama offers the demo; New is there too.
    await screen.findByTestId('demo-welcome');
    await fireEvent.click(screen.getByTestId('new-session'));
    await fireEvent.click(await screen.findByTestId('pick-workspace'));
    await waitFor(() => expect((screen.getByTestId('workspace-path') as HTMLInputElement).value).toBe('/home/me/project'));
    const picker = await screen.findByTestId('host-picker');
    const options = within(picker).getAllByTestId('host-option');
    expect(options.map((o) => o.getAttribute('data-host'))).toEqual(['', 'gpu-box']);
    expect(options[1]!.textContent).toContain('http://10.0.0.5:11434');
    // The local host does not answer: only the demo is listed; the gpu box's models show once it is chosen.
    expect(screen.queryAllByTestId('model-option').map((o) => o.getAttribute('data-model'))).toEqual(['demo']);
    await fireEvent.click(within(options[1]!).getByRole('radio'));
    await waitFor(() => expect(screen.getAllByTestId('model-option').map((o) => o.getAttribute('data-model'))).toEqual(['qwen3:32b', 'demo']));
    expect(replay.callsOf('listModelsOn')).toEqual([['gpu-box']]);
    await fireEvent.click(screen.getByTestId('create-session'));
    expect(await screen.findByTestId('empty-session')).toBeTruthy();
    expect(replay.commandsOf('create')).toEqual([{ do: 'create', workspace: '/home/me/project', model: 'qwen3:32b', host: 'gpu-box' }]);
    expect(screen.getByTestId('session-host').textContent).toContain('on gpu-box');
    await waitFor(() => expect((screen.getByTestId('session-model') as HTMLSelectElement).selectedOptions[0]!.textContent).toBe('qwen3:32b'));
    await send('Hi');
    await ended();
    const card = screen.getByTestId('card-request');
    const host = within(card).getByTestId('request-host');
    expect(host.textContent).toContain('on gpu-box');
    expect(host.getAttribute('title')).toBe('Sent to Ollama at http://10.0.0.5:11434');
    await played(replay);
  });

  it('names the host when it does not answer, and lists its models once it does', slow, async () => {
    const replay = play('named_host', { pick: '/home/me/project' });
    replay.reject('listModelsOn', 'Ollama host "gpu-box": Ollama is not running at http://10.0.0.5:11434 — start it with `ollama serve`');
    await screen.findByTestId('welcome');
    await fireEvent.click(screen.getByTestId('new-session'));
    const picker = await screen.findByTestId('host-picker');
    await fireEvent.click(within(within(picker).getAllByTestId('host-option')[1]!).getByRole('radio'));
    const banner = await screen.findByText('gpu-box does not answer');
    expect(banner.closest('[role]')?.textContent ?? document.body.textContent).toContain('Ollama is not running at http://10.0.0.5:11434');
    await fireEvent.click(screen.getByRole('button', { name: 'Check again' }));
    await waitFor(() => expect(screen.getAllByTestId('model-option').map((o) => o.getAttribute('data-model'))).toEqual(['qwen3:32b', 'demo']));
  });
});

describe('the workspace\u2019s AGENTS.md', () => {
  it('is marked in the system prompt Settings shows, and is its own part of what the model saw', slow, async () => {
    const replay = play('project_instructions');
    await openSession();
    await fireEvent.click(screen.getByTestId('open-settings'));
    const preview = await screen.findByTestId('system-prompt-preview');
    await fireEvent.click(within(preview).getByText('The whole system prompt Loupe sends'));
    const part = await within(preview).findByTestId('system-part-instructions', {}, { timeout: 5000 });
    expect(part.textContent).toContain('From AGENTS.md');
    expect(part.textContent).toContain('Never edit files under vendor/.');
    expect(within(preview).getByTestId('system-part-prompt').textContent).toContain('You are a coding agent. Use the tools');
    expect(within(preview).getByTestId('system-part-prompt').textContent).not.toContain('vendor/');
    expect(replay.callsOf('systemPrompt')).toEqual([['You are a coding agent. Use the tools; answer in plain text when done.', '/home/me/project']]);
    await fireEvent.click(screen.getByTestId('settings-cancel'));

    await screen.findByTestId('learn-bar');
    await send('What do you do before you answer?');
    await ended();
    await fireEvent.click(within(screen.getByTestId('card-request')).getByTestId('model-saw-toggle'));
    const system = await screen.findByTestId('model-saw-system');
    const sent = await within(system).findByTestId('system-part-instructions');
    expect(sent.textContent).toContain('Run `go test ./...` before you answer.');
    expect(within(system).getByTestId('system-part-prompt').textContent).not.toContain('AGENTS.md');
    await played(replay);
  });
});
