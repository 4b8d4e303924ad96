// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeBridge, makeSummary } from '../lib/bridge/fake';
import { EventLog } from '../lib/bridge/fixtures';
import { ThemeState } from '../lib/state';
import type { ModelInfo } from '../lib/types';
import AppShell from './AppShell.svelte';

afterEach(cleanup);

const model = (name: string, capabilities: string[]): ModelInfo => ({
  name,
  size: 1,
  family: '',
  parameter_size: '',
  quantization: '',
  capabilities,
  context_length: 8192,
  modified_at: '',
});

function finishedLog() {
  const log = new EventLog('s1');
  log.user('What is here?');
  log.request();
  log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'list_dir', args: { path: '.' } }] });
  log.toolCall({ call_id: 'c1', name: 'list_dir', args: { path: '.' }, read_only: true });
  log.permission('c1', 'list_dir', 'allow', 'rule: read-only');
  log.result({ call_id: 'c1', name: 'list_dir', content: 'main.go' });
  log.request();
  log.response({ content: 'A Go program.' });
  log.end('answered', 'A **Go** program.');
  return log;
}

function setup(opts: ConstructorParameters<typeof FakeBridge>[0] = {}) {
  const fake = new FakeBridge({
    models: [model('qwen3:0.6b', ['tools']), model('gemma3:1b', ['completion'])],
    ...opts,
  });
  const theme = new ThemeState({ storage: null, matchMedia: null });
  render(AppShell, { props: { bridge: fake, theme } });
  return fake;
}

async function openFirstSession() {
  const item = await screen.findByTestId('session-item');
  await fireEvent.click(within(item).getByRole('button', { name: /^One/ }));
}

describe('AppShell', () => {
  it('explains itself when there are no sessions', async () => {
    setup();
    expect(await screen.findByTestId('welcome')).toBeTruthy();
    expect(screen.getByTestId('no-sessions')).toBeTruthy();
  });

  it('shows what to do when Ollama is not running', async () => {
    setup({ status: { reachable: false, message: 'Start Ollama with "ollama serve".' } });
    const banner = await screen.findByTestId('ollama-banner');
    expect(banner.textContent).toContain('ollama serve');
    expect(screen.getByTestId('ollama-status').textContent).toContain('not reachable');
  });

  it('opens a session and shows its timeline with why it stopped', async () => {
    const log = finishedLog();
    setup({ sessions: [makeSummary({ id: 's1', title: 'One', last_reason: 'answered' })], events: log.events });
    await openFirstSession();
    await screen.findByTestId('card-user');
    expect(screen.getAllByTestId('card-request')).toHaveLength(2);
    expect(screen.getAllByTestId('card-response')).toHaveLength(2);
    expect(screen.getByTestId('card-call').textContent).toContain('list_dir');
    expect(screen.getByTestId('card-observation').textContent).toContain('main.go');
    const end = screen.getByTestId('card-end');
    expect(within(end).getByTestId('stop-reason').textContent).toContain('Answered');
    expect(within(end).getByText('Go').tagName).toBe('STRONG');
  });

  it('moves between cards with j and k', async () => {
    setup({ sessions: [makeSummary({ id: 's1', title: 'One' })], events: finishedLog().events });
    await openFirstSession();
    await screen.findByTestId('card-user');
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
    const log = new EventLog('s1');
    log.user('run the tests');
    log.request();
    log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'run_command', args: { command: 'go test ./...' } }] });
    log.toolCall({ call_id: 'c1', name: 'run_command', args: { command: 'go test ./...' } });
    const fake = setup({ sessions: [makeSummary({ id: 's1', title: 'One', running: true })], events: log.events });
    await openFirstSession();
    await screen.findByTestId('card-call');
    fake.emitApproval({
      id: 'ap1',
      session_id: 's1',
      call_id: 'c1',
      tool: 'run_command',
      args: { command: 'go test ./...' },
      display: { command: 'go test ./...', path: '/w' },
      summary: 'Run a command',
    });
    const card = await screen.findByTestId('approval-card');
    expect(card.textContent).toContain('go test ./...');
    // The approval takes the keyboard focus when it arrives.
    await waitFor(() => expect(document.activeElement?.getAttribute('data-testid')).toBe('card-call'));
    await fireEvent.keyDown(window, { key: 'a' });
    await waitFor(() => expect(fake.callsOf('answerFor')).toEqual([['ap1', true, 'once']]));
    await waitFor(() => expect(screen.queryByTestId('approval-card')).toBeNull());
  });

  it('streams the answer live and stops with Esc', async () => {
    const log = new EventLog('s1');
    log.user('hi');
    log.request();
    const fake = setup({ sessions: [makeSummary({ id: 's1', title: 'One', running: true })], events: log.events });
    await openFirstSession();
    await screen.findByTestId('card-request');
    fake.emitDelta({ session_id: 's1', run: 1, round: 1, content: 'Hello ', thinking: '' });
    fake.emitDelta({ session_id: 's1', run: 1, round: 1, content: 'there', thinking: '' });
    await waitFor(() => expect(screen.getByTestId('response-text').textContent).toBe('Hello there'));
    expect(screen.getByTestId('streaming')).toBeTruthy();
    expect(screen.getByTestId('stop-button')).toBeTruthy();
    (document.activeElement as HTMLElement | null)?.blur();
    await fireEvent.keyDown(window, { key: 'Escape' });
    expect(fake.callsOf('stop')).toEqual([['s1']]);
  });

  it('sends from the composer and shows a refusal', async () => {
    const fake = setup({ sessions: [makeSummary({ id: 's1', title: 'One' })] });
    await openFirstSession();
    await screen.findByTestId('empty-session');
    fake.failures['send'] = 'A run is already going in this session.';
    const input = screen.getByTestId('composer-input');
    await fireEvent.input(input, { target: { value: 'list files' } });
    await fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true });
    expect((await screen.findByTestId('send-error')).textContent).toContain('already going');
    expect((input as HTMLTextAreaElement).value).toBe('list files');
  });

  it('creates a session with Ctrl+N, a folder and a model that can use tools', async () => {
    const fake = setup();
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
    await waitFor(() => expect(fake.callsOf('newSession')).toEqual([['/home/me/project', 'qwen3:0.6b']]));
    expect(await screen.findByTestId('empty-session')).toBeTruthy();
  });

  it('takes a typed workspace path when there is no folder picker to use', async () => {
    const fake = setup();
    await screen.findByTestId('welcome');
    await fireEvent.click(screen.getByTestId('new-session'));
    const path = (await screen.findByTestId('workspace-path')) as HTMLInputElement;
    await fireEvent.input(path, { target: { value: '  /srv/code  ' } });
    const qwen = screen.getAllByTestId('model-option').find((o) => o.textContent?.includes('qwen3:0.6b'))!;
    await fireEvent.click(within(qwen).getByRole('radio'));
    await fireEvent.click(screen.getByTestId('create-session'));
    await waitFor(() => expect(fake.callsOf('newSession')).toEqual([['/srv/code', 'qwen3:0.6b']]));
  });

  it('opens the shortcut help with ? and closes it with Esc', async () => {
    setup();
    await screen.findByTestId('welcome');
    await fireEvent.keyDown(window, { key: '?' });
    expect(screen.getByTestId('help-overlay').textContent).toContain('Next card');
    await fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByTestId('help-overlay')).toBeNull();
  });
});

describe('AppShell approvals', () => {
  it('still offers an approval whose call is not in the timeline', async () => {
    const fake = setup({ sessions: [makeSummary({ id: 's1', title: 'One', running: true })] });
    await openFirstSession();
    await screen.findByTestId('empty-session');
    fake.emitApproval({ id: 'ap9', session_id: 's1', call_id: 'unknown', tool: 'write_file', args: { path: 'a' }, display: null, summary: '' });
    await fireEvent.click(await screen.findByTestId('deny-button'));
    await waitFor(() => expect(fake.callsOf('answerFor')).toEqual([['ap9', false, 'once']]));
  });
});

describe('AppShell database', () => {
  it('says when the database could not be opened', async () => {
    setup({ status: { db_error: 'database is locked', db_path: '/home/me/loupe.db' } });
    const banner = await screen.findByTestId('db-error-banner');
    expect(banner.textContent).toContain('database is locked');
    expect(banner.textContent).toContain('/home/me/loupe.db');
  });
});
