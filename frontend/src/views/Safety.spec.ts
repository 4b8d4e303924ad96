// @vitest-environment jsdom
// Safety in the whole UI, on replays of the Go engine's recordings
// (backend/session/recordings_test.go): approvals and how long an answer
// counts, undo of a turn or to before a step (with the conflict dialog),
// the settings page (modes, rules and the backend's refusal), the
// workspace panel (with the paths commands may also read) and the
// protections (what commands can read, write and reach). Each answer,
// undo and change the UI sends must be the one the recording has.
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { machineProtections } from '../lib/replay/machine';
import type { Settings } from '../lib/types';
import { ended, finish, openSession, play, played, send, slow } from './testing';

afterEach(finish);

const WS = '/home/me/project';

describe('approvals', () => {
  it('approves a command from its card, and the timeline shows who allowed it and why Loupe asked', slow, async () => {
    const replay = play('approve_command');
    await openSession();
    await send('Write hello.txt with a command');
    const card = await screen.findByTestId('approval-card');
    expect(card.textContent).toContain('echo hello > hello.txt');
    expect(within(card).getAllByTestId('approval-reason').map((r) => r.textContent)).toEqual([
      'it writes to a file (> hello.txt)',
      'no rule allows echo hello',
    ]);
    expect(within(card).getByTestId('approval-dir').textContent).toBe(WS);
    await fireEvent.click(within(card).getByTestId('approve-button'));
    await ended();
    expect(replay.commandsOf('answer')).toEqual([{ do: 'answer', session: 'session-1', call_id: 'call_1', allow: true, scope: 'once' }]);
    expect(within(screen.getByTestId('card-observation')).getByTestId('observation-content').textContent).toContain('exit code 0');
    const call = screen.getByTestId('card-call');
    expect(within(call).getByTestId('permission').textContent).toContain('Allowed by you');
    expect(within(call).getByTestId('permission-reasons').textContent).toContain('no rule allows echo hello');
  });

  it('approves an edit for this session with Shift+A, and the same edit later runs without asking', slow, async () => {
    const replay = play('approve_for_session');
    await openSession();
    await send('Shout hello in the README');
    const card = await screen.findByTestId('approval-card');
    expect(within(card).getByTestId('diff').textContent).toContain('+HELLO from the workspace');
    await waitFor(() => expect(document.activeElement?.getAttribute('data-testid')).toBe('card-call'));
    await fireEvent.keyDown(window, { key: 'A', shiftKey: true });
    await ended();
    await send('Make it calmer');
    await ended(2);
    await played(replay);
    const perms = screen.getAllByTestId('permission').map((p) => p.textContent?.trim());
    expect(perms).toEqual(['Allowed by you (for this session)', 'Allowed by you (for this session)']);
    expect(replay.commandsOf('answer')).toEqual([{ do: 'answer', session: 'session-1', call_id: 'call_1', allow: true, scope: 'session' }]);
    expect(within(screen.getAllByTestId('card-observation')[0]!).getByTestId('diff').textContent).toContain('-hello from the workspace');
  });

  it('offers only "once" for a protected file, Shift+A does not widen it, and d denies', slow, async () => {
    const replay = play('deny_protected');
    await openSession();
    await send('Put a token in .env');
    const card = await screen.findByTestId('approval-card');
    expect(within(card).queryByTestId('approve-session-button')).toBeNull();
    expect(within(card).getByTestId('approval-once-only').textContent).toContain('It changes something protected');
    expect(within(card).getByTestId('approval-reason').textContent).toBe('.env is protected (.env*): Loupe asks before every change to it');
    await waitFor(() => expect(document.activeElement?.getAttribute('data-testid')).toBe('card-call'));
    await fireEvent.keyDown(window, { key: 'A', shiftKey: true });
    expect(replay.commandsOf('answer')).toEqual([]);
    expect((await screen.findAllByTestId('toast')).map((t) => t.textContent).join(' ')).toContain('Only "Approve once" is possible here');
    await fireEvent.keyDown(window, { key: 'd' });
    await ended();
    await played(replay);
    expect(within(screen.getByTestId('card-call')).getByTestId('permission').textContent).toContain('Denied by you');
  });

  it("asks about a sub-agent's command in the sub-agent's lane, and the answer names that loop", slow, async () => {
    const replay = play('sub_agent_asks');
    await openSession();
    await send('Ask a helper to write hi.txt');
    const asks = await screen.findByTestId('sub-agent-asks');
    // The sub-agent's model calls its command "call_1", as the parent's
    // task call is: the question is shown once, in the lane, not on the
    // task call's own card.
    expect(screen.getAllByTestId('approval-card')).toHaveLength(1);
    const card = within(asks).getByTestId('approval-card');
    expect(card.textContent).toContain('echo hi | tee hi.txt');
    await fireEvent.click(within(card).getByTestId('approve-button'));
    await ended();
    await played(replay);
    expect(replay.commandsOf('answer')).toEqual([{ do: 'answer', session: 'session-1', agent: 'call_1', call_id: 'call_1', allow: true, scope: 'once' }]);
    expect(screen.queryByTestId('approval-card')).toBeNull();
  });

  it('remembers "always for this workspace" in the workspace, where it can be forgotten', slow, async () => {
    const replay = play('approve_for_workspace');
    await openSession();
    await send('Shout hello in the README');
    await fireEvent.click(await screen.findByTestId('approve-workspace-button'));
    await ended();
    await fireEvent.click(screen.getByTestId('workspace-button'));
    const grant = await screen.findByTestId('workspace-grant');
    expect(grant.textContent).toBe('Allow edit_file README.md');
    await fireEvent.click(screen.getByTestId('forget-grants'));
    await waitFor(() => expect(screen.getByTestId('workspace-no-grants')).toBeTruthy());
    await played(replay);
  });
});

describe('undo', () => {
  it('says how many commands an Undo waits for, and Stop waiting ends the wait', slow, async () => {
    const replay = play('undo_turn');
    await openSession();
    // Another session's command runs in the folder: Undo waits (Go's
    // sandbox.Quiet says how many it waits for on loupe:files-waiting).
    replay.filesWait({ session: 'session-1', commands: 2 });
    const bar = await screen.findByTestId('files-waiting');
    expect(bar.textContent).toContain('Waiting for 2 commands to end in /home/me/project before changing files there');
    expect(bar.textContent).toContain('loupe run in a terminal');
    replay.filesWait({ session: 'session-1', commands: 1 });
    await waitFor(() => expect(screen.getByTestId('files-waiting').textContent).toContain('Waiting for 1 command to end'));
    await fireEvent.click(screen.getByTestId('files-waiting-stop'));
    expect(replay.callsOf('stopWaiting')).toEqual([['session-1']]);
    replay.filesWait({ session: 'session-1', commands: 0 });
    await waitFor(() => expect(screen.queryByTestId('files-waiting')).toBeNull());
  });

  it('cannot undo while a run is going; then undoes a turn: a restore card says so, and the turn shows as undone', slow, async () => {
    const replay = play('undo_turn');
    await openSession();
    await send('Shout hello in the README');
    await fireEvent.click(await screen.findByTestId('approve-button'));
    await ended();
    await send('Shout beta in the notes');
    await screen.findByTestId('approval-card');
    // Run 1's undo waits while run 2 asks.
    const first = screen.getByTestId('undo-run-button') as HTMLButtonElement;
    expect(first.disabled).toBe(true);
    expect(first.title).toContain('Stop the run');
    await fireEvent.click(screen.getByTestId('approve-button'));
    await ended(2);
    const undo = screen.getAllByTestId('undo-run-button')[1] as HTMLButtonElement;
    await waitFor(() => expect(undo.disabled).toBe(false));
    await fireEvent.click(undo);
    const card = await screen.findByTestId('card-restore');
    await played(replay);
    const f = within(card).getByTestId('restore-file');
    expect(f.getAttribute('data-path')).toBe('notes.txt');
    expect(f.getAttribute('data-overwritten')).toBe('false');
    expect(screen.getByTestId('run-undone')).toBeTruthy();
    expect((screen.getAllByTestId('undo-run-button')[1] as HTMLButtonElement).disabled).toBe(true);
  });

  it('asks before overwriting a file changed outside Loupe: Cancel writes nothing, Overwrite puts it back', slow, async () => {
    const replay = play('undo_conflict');
    await openSession();
    await send('Shout hello in the README');
    await ended();
    replay.outside(); // README.md is changed by hand

    await fireEvent.click(screen.getByTestId('undo-run-button'));
    const dialog = await screen.findByTestId('restore-confirm');
    const conflict = within(dialog).getByTestId('restore-conflict');
    expect(conflict.getAttribute('data-path')).toBe('README.md');
    expect(within(conflict).getByTestId('restore-conflict-reason').textContent).toBe('it was changed outside Loupe');
    expect(dialog.textContent).toContain('Undo run 1');
    // Cancel is where the keyboard starts: Enter does no harm.
    expect(document.activeElement?.getAttribute('data-testid')).toBe('restore-cancel');
    await fireEvent.click(within(dialog).getByTestId('restore-cancel'));
    expect(screen.queryByTestId('restore-confirm')).toBeNull();
    expect(screen.queryByTestId('card-restore')).toBeNull();

    // Esc cancels too.
    await fireEvent.click(screen.getByTestId('undo-run-button'));
    await screen.findByTestId('restore-confirm');
    await fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByTestId('restore-confirm')).toBeNull();

    await fireEvent.click(screen.getByTestId('undo-run-button'));
    await fireEvent.click(within(await screen.findByTestId('restore-confirm')).getByTestId('restore-overwrite'));
    const card = await screen.findByTestId('card-restore');
    expect(within(card).getByTestId('restore-file').getAttribute('data-overwritten')).toBe('true');
    await played(replay);
    expect(screen.queryByTestId('restore-confirm')).toBeNull();
  });

  it('names a file that became a link to .git/config, and leaves it alone even on Overwrite', slow, async () => {
    const replay = play('undo_link');
    await openSession();
    await send('Rewrite the notes');
    await ended();
    replay.outside(); // notes.txt is replaced by a link to .git/config

    await fireEvent.click(screen.getByTestId('undo-run-button'));
    const dialog = await screen.findByTestId('restore-confirm');
    const conflict = within(dialog).getByTestId('restore-conflict');
    expect(conflict.getAttribute('data-path')).toBe('notes.txt');
    expect(within(conflict).getByTestId('restore-conflict-reason').textContent).toBe('notes.txt is now a symbolic link to .git/config; not restored');
    expect(within(conflict).getByTestId('restore-conflict-kept').textContent).toContain('stays as it is');
    await fireEvent.click(within(dialog).getByTestId('restore-overwrite'));
    await played(replay);
    await waitFor(() => expect(screen.queryByTestId('restore-confirm')).toBeNull());
    expect(document.body.textContent).toContain('Nothing put back; left as it is: notes.txt');
  });

  it('restores files to before a step: later changes go, earlier ones stay', slow, async () => {
    const replay = play('restore_step');
    await openSession();
    await send('Edit the README in two steps');
    await ended();
    const buttons = screen.getAllByTestId('restore-step-button');
    expect(buttons).toHaveLength(2);
    await fireEvent.click(buttons[1]!);
    const card = await screen.findByTestId('card-restore');
    await played(replay);
    expect(within(card).getByTestId('restore-file').getAttribute('data-path')).toBe('README.md');
  });
});

describe('settings', () => {
  async function openSettings() {
    await fireEvent.click(await screen.findByTestId('open-settings'));
    return screen.findByTestId('settings-form');
  }

  it('offers the three modes, warns about Auto, and saves a mode, a tool setting and a rule', slow, async () => {
    const replay = play('settings');
    await openSettings();
    expect((screen.getByTestId('mode-ask') as HTMLInputElement).checked).toBe(true);
    expect(screen.getByTestId('permission-modes').textContent).toContain('Ask every time');
    expect(screen.queryByTestId('auto-warning')).toBeNull();
    await fireEvent.click(screen.getByTestId('mode-auto'));
    expect(screen.getByTestId('auto-warning').textContent).toContain('without asking');
    await fireEvent.click(screen.getByTestId('mode-ask_all'));
    expect(screen.queryByTestId('auto-warning')).toBeNull();

    const select = screen.getAllByTestId('tool-setting').find((s) => s.getAttribute('data-tool') === 'run_command')!;
    await fireEvent.change(select, { target: { value: 'never' } });
    await fireEvent.input(screen.getByTestId('rule-pattern'), { target: { value: 'go test ./...' } });
    await fireEvent.click(screen.getByTestId('rule-add'));
    await fireEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() => expect(screen.queryByTestId('settings-form')).toBeNull());
    const saved = replay.callsOf('saveSettings')[0]![0] as Settings;
    expect(saved.permission_mode).toBe('ask_all');
    replay.expectWaitingFor('saveSettings');
  });

  it('shows the backend\u2019s refusal and keeps what was typed', slow, async () => {
    const replay = play('settings', { from: 'saved' });
    await openSettings();
    const prompt = screen.getByTestId('settings-form').querySelector('textarea')!;
    await fireEvent.input(prompt, { target: { value: 'You work in {{.Workspace' } });
    await fireEvent.click(screen.getByTestId('settings-save'));
    const err = await screen.findByTestId('settings-error');
    expect(err.textContent).toContain('settings not saved: the system prompt template does not parse');
    expect(screen.getByTestId('settings-form')).toBeTruthy();
    expect(prompt.value).toBe('You work in {{.Workspace');
    await fireEvent.input(prompt, { target: { value: 'You work in {{.Workspace}}.' } });
    await fireEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() => expect(screen.queryByTestId('settings-form')).toBeNull());
    replay.expectWaitingFor('saveSettings');
  });

  it('says what a command deny rule cannot see and adds the path rule that holds whatever runs', slow, async () => {
    const replay = play('settings', { from: 'prompt saved' });
    await openSettings();
    await fireEvent.change(screen.getByTestId('rule-effect'), { target: { value: 'deny' } });
    await fireEvent.input(screen.getByTestId('rule-pattern'), { target: { value: 'cat .env' } });
    await fireEvent.click(screen.getByTestId('rule-add'));
    // The backend's own words (permission.Rule.Limits), as recorded.
    expect((await screen.findByTestId('rule-limit')).textContent).toContain('cannot see inside inline interpreter code');
    expect(replay.callsOf('ruleLimits')).toEqual([[{ effect: 'deny', command: 'cat .env' }]]);
    await fireEvent.click(screen.getByTestId('rule-add-path'));
    expect(screen.getAllByTestId('rule-row').map((r) => r.getAttribute('data-effect'))).toEqual(['allow', 'deny', 'deny']);
    expect(screen.getByTestId('rule-path-present').textContent).toContain('deny .env');
    // A path rule has no limits: the backend is not asked about it.
    expect(replay.callsOf('ruleLimits')).toHaveLength(1);
    await fireEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() => expect(screen.queryByTestId('settings-form')).toBeNull());
    await played(replay);
  });
});

describe('workspace', () => {
  it('leads from the "not trusted" notice of a run to the workspace panel', slow, async () => {
    play('workspace');
    await openSession();
    await send('Hi');
    await fireEvent.click(await screen.findByTestId('notice-workspace'));
    expect((await screen.findByTestId('workspace-panel')).getAttribute('data-dir')).toBe(WS);
    expect((await screen.findByTestId('workspace-command')).textContent).toBe('go test ./...');
  });

  it('shows the settings file, trusts it, asks again when it changes, turns network on, and says why a broken file cannot be trusted', slow, async () => {
    const replay = play('workspace', { from: 'run done' });
    await openSession();
    await fireEvent.click(screen.getByTestId('workspace-button'));
    const panel = await screen.findByTestId('workspace-panel');
    await waitFor(() => expect(screen.getByTestId('workspace-rule').textContent).toBe('allow make test'));
    expect(panel.getAttribute('data-trusted')).toBe('false');
    expect(screen.getByTestId('workspace-command').textContent).toBe('go test ./...');
    expect(screen.getByTestId('workspace-settings-json').textContent).toContain('"allow_network": true');
    expect(screen.getByTestId('workspace-trust-help').textContent).toContain('cannot grant permissions, add commands');

    await fireEvent.click(screen.getByTestId('workspace-trust'));
    await waitFor(() => expect(screen.getByTestId('workspace-panel').getAttribute('data-trusted')).toBe('true'));
    expect((screen.getByTestId('workspace-trust') as HTMLInputElement).checked).toBe(true);

    // The file changes on disk: trust was for the old one.
    replay.outside();
    await fireEvent.click(screen.getByTestId('workspace-reload'));
    await waitFor(() => expect(screen.getByTestId('workspace-panel').getAttribute('data-trusted')).toBe('false'));
    // The rule as Go names it (App.CheckRule).
    await waitFor(() => expect(screen.getByTestId('workspace-rule').textContent).toBe('allow rm *'));

    await fireEvent.click(screen.getByTestId('workspace-network'));
    await waitFor(() => expect((screen.getByTestId('workspace-network') as HTMLInputElement).checked).toBe(true));

    const ed = within(screen.getByTestId('workspace-expose'));
    // A relative path is caught before anything is sent.
    await fireEvent.input(ed.getByTestId('expose-input'), { target: { value: 'sdk' } });
    await fireEvent.keyDown(ed.getByTestId('expose-input'), { key: 'Enter' });
    expect(ed.getByTestId('expose-error').textContent).toBe('sdk: give an absolute path (starting with /).');
    // A cancelled picker adds nothing; a chosen folder is saved through the backend.
    await fireEvent.click(ed.getByTestId('expose-pick'));
    await waitFor(() => expect(replay.callsOf('pickFolder')).toHaveLength(1));
    replay.pick = '/opt/sdk';
    await fireEvent.click(ed.getByTestId('expose-pick'));
    await waitFor(() => expect(ed.getAllByTestId('expose-path').map((p) => p.getAttribute('data-path'))).toEqual(['/opt/sdk']));
    // The protections list it too.
    expect(within(screen.getAllByTestId('reach-group')[0]!).getByText('/opt/sdk')).toBeTruthy();

    // The backend refuses the home folder and the field keeps it.
    await fireEvent.input(ed.getByTestId('expose-input'), { target: { value: '/home/me' } });
    await fireEvent.click(ed.getByTestId('expose-add'));
    await waitFor(() => expect(ed.getByTestId('expose-error').textContent).toBe('/home/me cannot be shown to commands: it is or holds your home folder'));
    expect((ed.getByTestId('expose-input') as HTMLInputElement).value).toBe('/home/me');
    expect(ed.getAllByTestId('expose-path')).toHaveLength(1);

    await fireEvent.click(ed.getByTestId('expose-remove'));
    await waitFor(() => expect(ed.queryAllByTestId('expose-path')).toHaveLength(0));

    // The file breaks: it cannot be trusted, and the panel says why.
    replay.outside();
    await fireEvent.click(screen.getByTestId('workspace-reload'));
    expect((await screen.findByTestId('workspace-settings-error')).textContent).toContain('unexpected EOF');
    expect((screen.getByTestId('workspace-trust') as HTMLInputElement).disabled).toBe(true);
    // The recording goes on to try trusting it anyway; the UI does not let one.
    replay.expectWaitingFor('setWorkspace');
  });
});

describe('protections', () => {
  it('says plainly when commands are not sandboxed, and which protections are missing', slow, async () => {
    play('approve_command', { protections: machineProtections('unconfined_no_landlock') });
    const banner = await screen.findByTestId('sandbox-banner');
    expect(banner.textContent).toContain('Commands are not sandboxed: writes: Landlock is not available; secrets:');
    expect(banner.textContent).toContain('Loupe asks before every command.');
    await fireEvent.click(screen.getByTestId('sandbox-details'));
    const prot = await screen.findByTestId('protections');
    expect(prot.getAttribute('data-sandboxed')).toBe('false');
    expect(screen.getByTestId('protections-summary').textContent).toContain(
      'Commands are not sandboxed: writes, secrets, network, sockets, ipc and processes are missing',
    );
    expect(screen.getByTestId('protections-summary').textContent).toContain('Loupe asks before every command');
    const groups = screen.getAllByTestId('reach-group');
    expect(groups.map((g) => g.getAttribute('data-key'))).toEqual(['read', 'write', 'connect', 'limits']);
    const rows = groups.map((g) =>
      within(g)
        .getAllByTestId('protection')
        .map((p) => `${p.getAttribute('data-name')}:${within(p).getByTestId('protection-state').textContent}`)
        .join(' '),
    );
    expect(rows).toEqual(['Secrets:Missing', 'Writes:Missing', 'Network:Missing Sockets:Missing IPC:Missing', 'Limits:Active Processes:Missing']);
    const connect = groups[2]!;
    expect(within(connect).getByTestId('reach-missing').textContent).toContain('Missing here: Network, Sockets and IPC.');
    expect(within(connect).getAllByTestId('protection-detail')[1]!.textContent).toContain('tmux, ssh-agent, D-Bus, Docker');
  });

  it('shows no banner when commands are sandboxed', slow, async () => {
    play('approve_command');
    await openSession();
    await fireEvent.click(screen.getByTestId('open-settings'));
    expect((await screen.findByTestId('protections')).getAttribute('data-sandboxed')).toBe('true');
    expect(screen.queryByTestId('sandbox-banner')).toBeNull();
  });

  it('lists what the open workspace’s commands can read, write and connect to', slow, async () => {
    play('workspace', { from: 'exposed' });
    await openSession();
    await fireEvent.click(screen.getByTestId('open-settings'));
    const prot = await screen.findByTestId('protections');
    await waitFor(() => expect(within(prot).getAllByTestId('reach-group')[0]!.textContent).toContain('/opt/sdk'));
    const [read, write, connect] = within(prot).getAllByTestId('reach-group');
    expect(read!.textContent).toContain('/usr');
    expect(write!.textContent).toContain('.git/config');
    expect(write!.textContent).toContain('secrets/**');
    expect(connect!.textContent).toContain('allowed for this workspace’s commands (you turned it on)');
    expect(within(prot).queryByTestId('reach-missing')).toBeNull();
  });
});

describe('help', () => {
  it('lists the approval keys', async () => {
    play('approve_command');
    await screen.findByTestId('session-item');
    await fireEvent.keyDown(window, { key: '?' });
    const help = screen.getByTestId('help-overlay').textContent ?? '';
    expect(help).toContain('Approve the focused approval, once');
    expect(help).toContain('Approve the focused approval for this session');
    expect(help).toContain('Deny the focused approval');
  });
});
