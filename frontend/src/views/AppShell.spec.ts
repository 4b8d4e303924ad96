// @vitest-environment jsdom
// The app shell on replays of the Go engine's recordings: the first start,
// Ollama not running, a stored timeline, the keyboard, live streaming, a
// refused send and creating a session.
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { ended, finish, openSession, play, played, send } from './testing';

afterEach(finish);

describe('AppShell', () => {
  it('explains itself when there are no sessions', async () => {
    play('new_session');
    expect(await screen.findByTestId('welcome')).toBeTruthy();
    expect(screen.getByTestId('no-sessions')).toBeTruthy();
  });

  it('shows what to do when Ollama is not running', async () => {
    play('new_session', { status: { reachable: false, message: 'Start Ollama with "ollama serve".' } });
    const banner = await screen.findByTestId('ollama-banner');
    expect(banner.textContent).toContain('ollama serve');
    expect(screen.getByTestId('ollama-status').textContent).toContain('not reachable');
  });

  it('opens a session and shows its timeline with why it stopped', async () => {
    play('tour', { from: 'run 1 done' });
    await openSession();
    await screen.findByTestId('card-user');
    expect(screen.getAllByTestId('card-request')).toHaveLength(3);
    expect(screen.getAllByTestId('card-response')).toHaveLength(3);
    expect(screen.getAllByTestId('card-call')[0]!.textContent).toContain('list_dir');
    expect(screen.getAllByTestId('card-observation')[0]!.textContent).toContain('README.md');
    const end = screen.getByTestId('card-end');
    expect(within(end).getByTestId('stop-reason').textContent).toContain('Answered');
    expect(within(end).getByText('demo').tagName).toBe('STRONG');
  });

  it('moves between cards with j and k', async () => {
    play('approve_command', { from: 'end' });
    await openSession();
    await screen.findByTestId('card-user');
    (document.activeElement as HTMLElement | null)?.blur();
    await fireEvent.keyDown(window, { key: 'j' });
    expect(document.activeElement?.getAttribute('data-testid')).toBe('card-user');
    await fireEvent.keyDown(window, { key: 'j' });
    expect(document.activeElement?.getAttribute('data-testid')).toBe('card-request');
    await fireEvent.keyDown(window, { key: 'ArrowDown', altKey: true });
    expect(document.activeElement?.getAttribute('data-testid')).toBe('card-response');
    await fireEvent.keyDown(window, { key: 'k' });
    expect(document.activeElement?.getAttribute('data-testid')).toBe('card-request');
  });

  it('approves the focused approval with the a key', async () => {
    const replay = play('approve_command');
    await openSession();
    await send('Write hello.txt with a command');
    const card = await screen.findByTestId('approval-card');
    expect(card.textContent).toContain('echo hello > hello.txt');
    // The approval takes the keyboard focus when it arrives.
    await waitFor(() => expect(document.activeElement?.getAttribute('data-testid')).toBe('card-call'));
    await fireEvent.keyDown(window, { key: 'a' });
    await waitFor(() => expect(screen.queryByTestId('approval-card')).toBeNull());
    await ended();
    expect(replay.commandsOf('answer')).toEqual([{ do: 'answer', session: 'session-1', call_id: 'call_1', allow: true, scope: 'once' }]);
  });

  it('leads to a question wherever the view is, and goes away once it is answered', async () => {
    const replay = play('approve_command');
    await openSession();
    expect(screen.queryByTestId('goto-ask')).toBeNull();
    await send('Write hello.txt with a command');
    await screen.findByTestId('approval-card');
    const go = await screen.findByTestId('goto-ask');
    expect(go.textContent).toContain('A call waits for your answer');
    (document.activeElement as HTMLElement | null)?.blur();
    await fireEvent.click(go);
    await waitFor(() => expect(document.activeElement?.getAttribute('data-testid')).toBe('card-call'));
    await fireEvent.keyDown(window, { key: 'a' });
    await waitFor(() => expect(screen.queryByTestId('goto-ask')).toBeNull());
    await ended();
    expect(replay.commandsOf('answer')).toHaveLength(1);
  });

  it('streams the answer live and stops with Esc', async () => {
    const replay = play('stop_streaming');
    await openSession();
    await send('Greet me');
    await waitFor(() => expect(screen.getByTestId('response-text').textContent).toBe('Hello there'));
    expect(screen.getByTestId('streaming')).toBeTruthy();
    expect(screen.getByTestId('stop-button')).toBeTruthy();
    (document.activeElement as HTMLElement | null)?.blur();
    await fireEvent.keyDown(window, { key: 'Escape' });
    await ended();
    await played(replay);
    expect(within(screen.getByTestId('card-end')).getByTestId('stop-reason').getAttribute('data-reason')).toBe('cancelled');
    // What had streamed is kept, marked as cut off.
    expect(screen.getByTestId('response-text').textContent).toBe('Hello there');
  });

  it('shows why a send was refused and keeps the message', async () => {
    const replay = play('new_session', { from: 'created' });
    await openSession();
    await screen.findByTestId('empty-session');
    const model = screen.getByTestId('session-model') as HTMLSelectElement;
    await fireEvent.change(model, { target: { value: 'llama3.2:1b' } });
    await send('Hi');
    expect((await screen.findByTestId('send-error')).textContent).toContain('ollama pull llama3.2:1b');
    expect((screen.getByTestId('composer-input') as HTMLTextAreaElement).value).toBe('Hi');
    await fireEvent.change(model, { target: { value: 'qwen3:0.6b' } });
    await fireEvent.keyDown(screen.getByTestId('composer-input'), { key: 'Enter', ctrlKey: true });
    await ended();
    expect(screen.queryByTestId('send-error')).toBeNull();
    replay.expectWaitingFor('delete');
    expect(replay.commandsOf('set_model').map((c) => c['model'])).toEqual(['llama3.2:1b', 'qwen3:0.6b']);
  });

  it('creates a session with Ctrl+N, a folder and a model that can use tools', async () => {
    const replay = play('new_session', { pick: '/home/me/project' });
    await screen.findByTestId('welcome');
    await fireEvent.keyDown(window, { key: 'n', ctrlKey: true });
    const create = (await screen.findByTestId('create-session')) as HTMLButtonElement;
    expect(create.disabled).toBe(true);
    expect(screen.getByTestId('create-blocked').textContent).toContain('workspace');
    await fireEvent.click(screen.getByTestId('pick-workspace'));
    await waitFor(() => expect((screen.getByTestId('workspace-path') as HTMLInputElement).value).toBe('/home/me/project'));
    // A model without tools is named as such before the start: it will only chat.
    const gemma = screen.getAllByTestId('model-option').find((o) => o.textContent?.includes('gemma3:1b'))!;
    await fireEvent.click(within(gemma).getByRole('radio'));
    expect(screen.getByText("gemma3:1b can't use tools")).toBeTruthy();
    const qwen = screen.getAllByTestId('model-option').find((o) => o.textContent?.includes('qwen3:0.6b'))!;
    await fireEvent.click(within(qwen).getByRole('radio'));
    await fireEvent.click(screen.getByTestId('create-session'));
    expect(await screen.findByTestId('empty-session')).toBeTruthy();
    expect(replay.callsOf('pickFolder')).toHaveLength(1);
    expect(replay.commandsOf('create')).toEqual([{ do: 'create', workspace: '/home/me/project', model: 'qwen3:0.6b' }]);
  });

  it('takes a typed workspace path when there is no folder picker to use', async () => {
    const replay = play('new_session');
    await screen.findByTestId('welcome');
    await fireEvent.click(screen.getByTestId('new-session'));
    const path = (await screen.findByTestId('workspace-path')) as HTMLInputElement;
    await fireEvent.input(path, { target: { value: '  /home/me/project  ' } });
    const qwen = screen.getAllByTestId('model-option').find((o) => o.textContent?.includes('qwen3:0.6b'))!;
    await fireEvent.click(within(qwen).getByRole('radio'));
    await fireEvent.click(screen.getByTestId('create-session'));
    await waitFor(() => expect(replay.commandsOf('create')).toEqual([{ do: 'create', workspace: '/home/me/project', model: 'qwen3:0.6b' }]));
    expect(await screen.findByTestId('empty-session')).toBeTruthy();
  });

  it('opens the shortcut help with ? and closes it with Esc', async () => {
    play('new_session');
    await screen.findByTestId('welcome');
    await fireEvent.keyDown(window, { key: '?' });
    expect(screen.getByTestId('help-overlay').textContent).toContain('Next card');
    await fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByTestId('help-overlay')).toBeNull();
  });

  it('deletes a session at once, and Undo brings it back', async () => {
    const replay = play('new_session', { from: 'answered' });
    await openSession();
    await fireEvent.click(screen.getByRole('button', { name: /^Delete session/ }));
    await waitFor(() => expect(screen.getByTestId('no-sessions')).toBeTruthy());
    expect(screen.queryByTestId('timeline')).toBeNull();
    const toast = screen.getAllByTestId('toast').find((t) => t.textContent?.includes('Deleted'))!;
    await fireEvent.click(within(toast).getByTestId('toast-action'));
    await waitFor(() => expect(screen.getAllByTestId('session-item')).toHaveLength(1));
    // The delete that can be taken back is not the engine's delete command.
    expect(replay.calls.map((c) => c.method)).toEqual(expect.arrayContaining(['deleteSessionLater', 'undoDelete']));
    replay.expectWaitingFor('delete');
  });
});

describe('AppShell database', () => {
  it('says when the database could not be opened', async () => {
    play('new_session', { status: { db_error: 'database is locked', db_path: '/home/me/loupe.db' } });
    const banner = await screen.findByTestId('db-error-banner');
    expect(banner.textContent).toContain('database is locked');
    expect(banner.textContent).toContain('/home/me/loupe.db');
  });
});
