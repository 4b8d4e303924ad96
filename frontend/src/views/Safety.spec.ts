// @vitest-environment jsdom
// Safety in the whole UI, against the FakeBridge and its scripted loop:
// approvals and how long an answer counts, undo of a turn or to before a
// step (with the conflict dialog), the settings page (modes, rules and the
// backend's refusal), the workspace panel (with the paths commands may also
// read) and the protections (what commands can read, write and reach).
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeBridge, makeSummary, unconfinedProtections } from '../lib/bridge/fake';
import { EventLog } from '../lib/bridge/fixtures';
import { FakeLoop, type FakeCall, type FakeReply } from '../lib/bridge/fakeloop';
import { ThemeState } from '../lib/state';
import type { ModelInfo, Settings } from '../lib/types';
import AppShell from './AppShell.svelte';

afterEach(cleanup);

// Whole-app flows with many renders: generous on a busy 2-core machine.
const slow = { timeout: 20_000 };
const WS = '/home/me/project';
const OLD = '# project\n\nOld text.\n';

const qwen: ModelInfo = {
  name: 'qwen3:0.6b',
  size: 1,
  family: '',
  parameter_size: '',
  quantization: '',
  capabilities: ['tools'],
  context_length: 8192,
  modified_at: '',
};

/** edit_file on README.md replacing `from` with `to`, asked like the backend asks in "Ask for changes and commands". */
function edit(from: string, to: string, extra: Partial<FakeCall> = {}): FakeCall {
  const before = OLD.replace('Old text.', from);
  const after = OLD.replace('Old text.', to);
  return {
    name: 'edit_file',
    args: { path: 'README.md', old_string: from, new_string: to },
    ask: true,
    reasons: ['it changes README.md'],
    result: 'edited README.md: replaced 1 occurrence at line 3',
    display: { path: 'README.md', diff: `--- a/README.md\n+++ b/README.md\n@@ -3 +3 @@\n-${from}\n+${to}\n` },
    changes: [{ path: 'README.md', before, after }],
    ...extra,
  };
}

function setup(replies: (run: number, round: number) => FakeReply, opts: ConstructorParameters<typeof FakeBridge>[0] = {}) {
  const fake = new FakeBridge({ models: [qwen], sessions: [makeSummary({ id: 's1', title: 'One', workspace: WS })], ...opts });
  const loop = new FakeLoop(fake, { reply: ({ run, round }) => replies(run, round) });
  render(AppShell, { props: { bridge: fake, theme: new ThemeState({ storage: null, matchMedia: null }) } });
  return { fake, loop };
}

/** Run 1 edits README.md once and answers. */
const oneEdit = (_run: number, round: number): FakeReply => (round === 1 ? { calls: [edit('Old text.', 'New text.')] } : { content: 'Done.' });

async function open() {
  const item = await screen.findByTestId('session-item');
  await fireEvent.click(within(item).getByRole('button', { name: /^One/ }));
  await screen.findByTestId('learn-bar');
}

async function send(text: string) {
  const input = screen.getByTestId('composer-input');
  await fireEvent.input(input, { target: { value: text } });
  await fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true });
}

/** The run's end card, once there are n of them. */
async function ended(n = 1) {
  await waitFor(() => expect(screen.getAllByTestId('card-end')).toHaveLength(n), { timeout: 5000 });
}

const file = (fake: FakeBridge, path = 'README.md') => fake.filesOf(WS).get(path);

describe('approvals', () => {
  it('approves an edit from its card, shows its diff on the timeline, and records the reasons', slow, async () => {
    const { fake } = setup(oneEdit);
    await open();
    await send('fix the README');
    const card = await screen.findByTestId('approval-card');
    expect(within(card).getByTestId('diff').textContent).toContain('+New text.');
    expect(within(card).getByTestId('approval-reason').textContent).toBe('it changes README.md');
    await fireEvent.click(within(card).getByTestId('approve-button'));
    await ended();
    expect(fake.callsOf('answerFor')).toEqual([['ap-call_2_0', true, 'once']]);
    expect(within(screen.getByTestId('card-observation')).getByTestId('diff').textContent).toContain('-Old text.');
    const call = screen.getByTestId('card-call');
    expect(within(call).getByTestId('permission').textContent).toContain('Allowed by you');
    expect(within(call).getByTestId('permission-reasons').textContent).toContain('it changes README.md');
    expect(file(fake)).toBe(OLD.replace('Old text.', 'New text.'));
  });

  it('approves for this session with Shift+A, and the same call later runs without asking', slow, async () => {
    const { fake } = setup((_run, round) => (round === 1 ? { calls: [edit('Old text.', 'New text.')] } : { content: 'Done.' }));
    await open();
    await send('one');
    await screen.findByTestId('approval-card');
    await waitFor(() => expect(document.activeElement?.getAttribute('data-testid')).toBe('card-call'));
    await fireEvent.keyDown(window, { key: 'A', shiftKey: true });
    await ended();
    expect(fake.callsOf('answerFor')).toEqual([['ap-call_2_0', true, 'session']]);
    await send('two');
    await ended(2);
    const perms = screen.getAllByTestId('permission').map((p) => p.textContent?.trim());
    expect(perms).toEqual(['Allowed by you (for this session)', 'Allowed by you (for this session)']);
    expect(fake.callsOf('answerFor')).toHaveLength(1);
  });

  it('offers only "once" for a once-only question, and Shift+A does not widen it', slow, async () => {
    const { fake } = setup((_run, round) =>
      round === 1
        ? {
            calls: [
              {
                name: 'run_command',
                args: { command: 'go test ./...' },
                ask: true,
                onceOnly: true,
                reasons: ['no rule allows go test ./...', 'commands are not sandboxed here: writes: no Landlock'],
                display: { command: 'go test ./...', path: WS },
                result: 'ok',
              },
            ],
          }
        : { content: 'Done.' },
      { protections: unconfinedProtections() },
    );
    await open();
    await send('test');
    const card = await screen.findByTestId('approval-card');
    expect(within(card).queryByTestId('approve-session-button')).toBeNull();
    expect(within(card).getByTestId('approval-once-only').textContent).toContain('not sandboxed');
    // The card names what the command would run without.
    expect(within(card).getByTestId('approval-unsandboxed').textContent).toContain(
      'this command would run without writes, secrets, network, sockets and processes',
    );
    expect(within(card).getAllByTestId('approval-missing').map((m) => m.getAttribute('data-name'))).toEqual(['Writes', 'Secrets', 'Network', 'Sockets', 'Processes']);
    expect(within(card).getByTestId('approval-dir').textContent).toBe(WS);
    await waitFor(() => expect(document.activeElement?.getAttribute('data-testid')).toBe('card-call'));
    await fireEvent.keyDown(window, { key: 'A', shiftKey: true });
    expect(fake.callsOf('answerFor')).toEqual([]);
    expect((await screen.findAllByTestId('toast')).map((t) => t.textContent).join(' ')).toContain('Only "Approve once" is possible here');
    await fireEvent.keyDown(window, { key: 'd' });
    await ended();
    expect(fake.callsOf('answerFor')).toEqual([['ap-call_2_0', false, 'once']]);
  });

  it('remembers "always for this workspace" in the workspace, where it can be forgotten', slow, async () => {
    const { fake } = setup(oneEdit);
    await open();
    await send('fix');
    await fireEvent.click(await screen.findByTestId('approve-workspace-button'));
    await ended();
    await fireEvent.click(screen.getByTestId('workspace-button'));
    const grant = await screen.findByTestId('workspace-grant');
    expect(grant.textContent).toBe('Allow edit_file README.md');
    await fireEvent.click(screen.getByTestId('forget-grants'));
    await waitFor(() => expect(screen.getByTestId('workspace-no-grants')).toBeTruthy());
    expect(fake.callsOf('forgetGrants')).toEqual([[WS]]);
    expect(fake.workspaces.get(WS)?.grants).toEqual([]);
  });
});

describe('undo', () => {
  it('undoes a turn: the file is back, a restore card says so, and the turn shows as undone', slow, async () => {
    const { fake } = setup(oneEdit);
    await open();
    await send('fix');
    await fireEvent.click(await screen.findByTestId('approve-button'));
    await ended();
    const undo = screen.getByTestId('undo-run-button') as HTMLButtonElement;
    expect(undo.disabled).toBe(false);
    await fireEvent.click(undo);
    const card = await screen.findByTestId('card-restore');
    expect(fake.callsOf('undoRun')).toEqual([['s1', 1, false]]);
    expect(file(fake)).toBe(OLD);
    const f = within(card).getByTestId('restore-file');
    expect(f.getAttribute('data-path')).toBe('README.md');
    expect(f.getAttribute('data-overwritten')).toBe('false');
    expect(screen.getByTestId('run-undone')).toBeTruthy();
    expect((screen.getByTestId('undo-run-button') as HTMLButtonElement).disabled).toBe(true);
  });

  it('asks before overwriting a file changed outside Loupe: Cancel writes nothing, Overwrite puts it back', slow, async () => {
    const { fake } = setup(oneEdit);
    await open();
    await send('fix');
    await fireEvent.click(await screen.findByTestId('approve-button'));
    await ended();
    fake.filesOf(WS).set('README.md', 'changed by hand');

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
    expect(file(fake)).toBe('changed by hand');

    // Esc cancels too.
    await fireEvent.click(screen.getByTestId('undo-run-button'));
    await screen.findByTestId('restore-confirm');
    await fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByTestId('restore-confirm')).toBeNull();

    await fireEvent.click(screen.getByTestId('undo-run-button'));
    await fireEvent.click(within(await screen.findByTestId('restore-confirm')).getByTestId('restore-overwrite'));
    const card = await screen.findByTestId('card-restore');
    expect(within(card).getByTestId('restore-file').getAttribute('data-overwritten')).toBe('true');
    expect(file(fake)).toBe(OLD);
    expect(fake.callsOf('undoRun')).toEqual([
      ['s1', 1, false],
      ['s1', 1, false],
      ['s1', 1, false],
      ['s1', 1, true],
    ]);
    expect(screen.queryByTestId('restore-confirm')).toBeNull();
  });

  it('restores files to before a step: later changes go, earlier ones stay', slow, async () => {
    const { fake } = setup((_run, round) =>
      round === 1
        ? { calls: [edit('Old text.', 'Step one.', { ask: false })] }
        : round === 2
          ? { calls: [edit('Step one.', 'Step two.', { ask: false })] }
          : { content: 'Done.' },
    );
    await open();
    await send('two steps');
    await ended();
    expect(file(fake)).toBe(OLD.replace('Old text.', 'Step two.'));
    const buttons = screen.getAllByTestId('restore-step-button');
    expect(buttons).toHaveLength(2);
    await fireEvent.click(buttons[1]!);
    await screen.findByTestId('card-restore');
    const second = fake.events.get('s1')!.filter((e) => e.kind === 'tool_call')[1]!;
    expect(fake.callsOf('restoreFiles')).toEqual([['s1', second.seq, false]]);
    expect(file(fake)).toBe(OLD.replace('Old text.', 'Step one.'));
  });

  it('cannot restore while a run is going', slow, async () => {
    setup(oneEdit);
    await open();
    await send('fix');
    await screen.findByTestId('approval-card');
    // The first run has no file change yet; nothing to undo while it waits.
    expect(screen.queryByTestId('undo-run-button')).toBeNull();
    await fireEvent.click(screen.getByTestId('approve-button'));
    await ended();
    await send('again');
    await screen.findByTestId('approval-card');
    const undo = screen.getByTestId('undo-run-button') as HTMLButtonElement;
    expect(undo.disabled).toBe(true);
    expect(undo.title).toContain('Stop the run');
  });
});

describe('settings', () => {
  async function openSettings() {
    await fireEvent.click(await screen.findByTestId('open-settings'));
    return screen.findByTestId('settings-form');
  }

  it('offers the three modes, warns about Auto, and saves rules and tool settings', slow, async () => {
    const { fake } = setup(oneEdit);
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
    await waitFor(() => expect(fake.callsOf('saveSettings')).toHaveLength(1));
    const saved = fake.callsOf('saveSettings')[0]![0] as Settings;
    expect(saved.permission_mode).toBe('ask_all');
    expect(saved.tools).toEqual({ run_command: 'never' });
    expect(saved.rules).toEqual([{ effect: 'allow', command: 'go test ./...' }]);
    await waitFor(() => expect(screen.queryByTestId('settings-form')).toBeNull());
  });

  it('shows the backend\u2019s refusal and keeps what was typed', slow, async () => {
    const { fake } = setup(oneEdit, { settings: { rules: [{ effect: 'deny', path: 'src/[ab' }] } });
    await openSettings();
    expect(screen.getByTestId('rule-row-error').textContent).toContain('not a valid glob');
    await fireEvent.click(screen.getByTestId('settings-save'));
    const err = await screen.findByTestId('settings-error');
    expect(err.textContent).toBe('settings not saved: permission settings: rule "deny src/[ab": path pattern "src/[ab" is not a valid glob');
    expect(screen.getByTestId('settings-form')).toBeTruthy();
    await fireEvent.click(screen.getByTestId('rule-remove'));
    await fireEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() => expect(screen.queryByTestId('settings-form')).toBeNull());
    expect(fake.settings.rules).toEqual([]);
  });

  it('says what a command deny rule cannot see and adds the path rule that holds whatever runs', slow, async () => {
    const { fake } = setup(oneEdit, { settings: { rules: [{ effect: 'deny', command: 'cat .env' }] } });
    fake.ruleLimitsByRule.set('deny cat .env', {
      limits: ['Loupe cannot see inside inline interpreter code (python3 -c, perl -e, node -e), scripts (sh build.sh, ./run.sh, source env.sh), make or npm run …'],
      path_rules: [{ effect: 'deny', path: '.env' }],
    });
    await openSettings();
    expect((await screen.findByTestId('rule-limit')).textContent).toContain('cannot see inside inline interpreter code');
    expect(fake.callsOf('ruleLimits')).toEqual([[{ effect: 'deny', command: 'cat .env' }]]);
    await fireEvent.click(screen.getByTestId('rule-add-path'));
    expect(screen.getAllByTestId('rule-row').map((r) => r.getAttribute('data-effect'))).toEqual(['deny', 'deny']);
    expect(screen.getByTestId('rule-path-present').textContent).toContain('deny .env');
    // A path rule has no limits: the backend is not asked about it.
    expect(fake.callsOf('ruleLimits')).toHaveLength(1);
    await fireEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() => expect(fake.callsOf('saveSettings')).toHaveLength(1));
    expect((fake.callsOf('saveSettings')[0]![0] as Settings).rules).toEqual([
      { effect: 'deny', command: 'cat .env' },
      { effect: 'deny', path: '.env' },
    ]);
  });
});

describe('workspace', () => {
  it('shows the settings file and its rules, trusts it, and asks again when it changes', slow, async () => {
    const { fake } = setup(oneEdit);
    fake.setWorkspaceFile(WS, { rules: [{ effect: 'allow', command: 'make test' }], commands: ['go test ./...'], allow_network: true });
    await open();
    await fireEvent.click(screen.getByTestId('workspace-button'));
    const panel = await screen.findByTestId('workspace-panel');
    expect(panel.getAttribute('data-trusted')).toBe('false');
    expect(screen.getByTestId('workspace-rule').textContent).toBe('allow make test');
    expect(screen.getByTestId('workspace-command').textContent).toBe('go test ./...');
    expect(screen.getByTestId('workspace-settings-json').textContent).toContain('"allow_network": true');
    expect(screen.getByTestId('workspace-trust-help').textContent).toContain('cannot grant permissions, add commands');

    await fireEvent.click(screen.getByTestId('workspace-trust'));
    await waitFor(() => expect(screen.getByTestId('workspace-panel').getAttribute('data-trusted')).toBe('true'));
    expect(fake.callsOf('trustWorkspace')).toEqual([[WS, true]]);
    expect((screen.getByTestId('workspace-trust') as HTMLInputElement).checked).toBe(true);

    // The file changes on disk: trust was for the old one.
    fake.setWorkspaceFile(WS, { rules: [{ effect: 'allow', command: 'rm *' }] });
    await fireEvent.click(screen.getByTestId('workspace-reload'));
    await waitFor(() => expect(screen.getByTestId('workspace-panel').getAttribute('data-trusted')).toBe('false'));
    expect(screen.getByTestId('workspace-rule').textContent).toBe('allow rm *');
  });

  it('leads from the "not trusted" notice of a run to the workspace panel', slow, async () => {
    const log = new EventLog('s1');
    log.user('hi');
    log.notice('workspace_untrusted', 'this workspace has .loupe/settings.json; its rules are ignored until you trust the workspace (Settings → Workspace)');
    log.end('answered');
    const fake = new FakeBridge({ models: [qwen], sessions: [makeSummary({ id: 's1', title: 'One', workspace: WS })], events: log.events });
    fake.setWorkspaceFile(WS, { commands: ['make'] });
    render(AppShell, { props: { bridge: fake, theme: new ThemeState({ storage: null, matchMedia: null }) } });
    await open();
    await fireEvent.click(await screen.findByTestId('notice-workspace'));
    expect((await screen.findByTestId('workspace-panel')).getAttribute('data-dir')).toBe(WS);
    expect(screen.getByTestId('workspace-command').textContent).toBe('make');
  });

  it('turns network on for commands, and says why a broken file cannot be trusted', slow, async () => {
    const { fake } = setup(oneEdit);
    fake.setWorkspaceFile(WS, null, 'line 2: invalid character');
    await open();
    await fireEvent.click(screen.getByTestId('workspace-button'));
    expect((await screen.findByTestId('workspace-settings-error')).textContent).toContain('line 2: invalid character');
    expect((screen.getByTestId('workspace-trust') as HTMLInputElement).disabled).toBe(true);
    await fireEvent.click(screen.getByTestId('workspace-network'));
    await waitFor(() => expect((screen.getByTestId('workspace-network') as HTMLInputElement).checked).toBe(true));
    expect(fake.callsOf('setWorkspaceNetwork')).toEqual([[WS, true]]);
  });
});

describe('protections', () => {
  it('says plainly when commands are not sandboxed, and which protections are missing', slow, async () => {
    setup(oneEdit, { protections: unconfinedProtections('Landlock is not available') });
    const banner = await screen.findByTestId('sandbox-banner');
    expect(banner.textContent).toContain('Commands are not sandboxed: writes: Landlock is not available; secrets:');
    expect(banner.textContent).toContain('Loupe asks before every command.');
    await fireEvent.click(screen.getByTestId('sandbox-details'));
    const prot = await screen.findByTestId('protections');
    expect(prot.getAttribute('data-sandboxed')).toBe('false');
    expect(screen.getByTestId('protections-summary').textContent).toContain(
      'Commands are not sandboxed: writes, secrets, network, sockets and processes are missing',
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
    expect(rows).toEqual(['Secrets:Missing', 'Writes:Missing', 'Network:Missing Sockets:Missing', 'Limits:Active Processes:Missing']);
    const connect = groups[2]!;
    expect(within(connect).getByTestId('reach-missing').textContent).toContain('Missing here: Network and Sockets.');
    expect(within(connect).getAllByTestId('protection-detail')[1]!.textContent).toContain('tmux, ssh-agent, D-Bus, Docker');
  });

  it('shows no banner when commands are sandboxed', slow, async () => {
    setup(oneEdit);
    await open();
    await fireEvent.click(screen.getByTestId('open-settings'));
    expect((await screen.findByTestId('protections')).getAttribute('data-sandboxed')).toBe('true');
    expect(screen.queryByTestId('sandbox-banner')).toBeNull();
  });

  it('lists what the open workspace’s commands can read, write and connect to', slow, async () => {
    const { fake } = setup(oneEdit, { settings: { rules: [{ effect: 'deny', path: 'secrets/**' }] } });
    fake.workspaces.set(WS, { file: null, digest: '', trustedDigest: '', allowNetwork: true, expose: ['/opt/sdk'], grants: [] });
    await open();
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

describe('paths commands can also read', () => {
  async function openWorkspace() {
    await open();
    await fireEvent.click(screen.getByTestId('workspace-button'));
    return within(await screen.findByTestId('workspace-expose'));
  }

  it('adds a typed path, removes it, and saves each change through the backend', slow, async () => {
    const { fake } = setup(oneEdit);
    const ed = await openWorkspace();
    expect(ed.getByTestId('expose-none').textContent).toContain('nothing else');
    await fireEvent.input(ed.getByTestId('expose-input'), { target: { value: ' /opt/sdk/ ' } });
    await fireEvent.click(ed.getByTestId('expose-add'));
    await waitFor(() => expect(ed.getAllByTestId('expose-path').map((p) => p.getAttribute('data-path'))).toEqual(['/opt/sdk']));
    expect(fake.callsOf('setWorkspaceExpose')).toEqual([[WS, ['/opt/sdk']]]);
    await waitFor(() => expect((ed.getByTestId('expose-input') as HTMLInputElement).value).toBe(''));
    // The protections list it too.
    expect(within(screen.getAllByTestId('reach-group')[0]!).getByText('/opt/sdk')).toBeTruthy();

    await fireEvent.click(ed.getByTestId('expose-remove'));
    await waitFor(() => expect(ed.queryAllByTestId('expose-path')).toHaveLength(0));
    expect(fake.callsOf('setWorkspaceExpose')).toEqual([[WS, ['/opt/sdk']], [WS, []]]);
  });

  it('catches a relative path before saving, and shows the backend’s refusal, keeping what was typed', slow, async () => {
    const { fake } = setup(oneEdit);
    const ed = await openWorkspace();
    await fireEvent.input(ed.getByTestId('expose-input'), { target: { value: 'sdk' } });
    await fireEvent.keyDown(ed.getByTestId('expose-input'), { key: 'Enter' });
    expect(ed.getByTestId('expose-error').textContent).toBe('sdk: give an absolute path (starting with /).');
    expect(fake.callsOf('setWorkspaceExpose')).toEqual([]);

    await fireEvent.input(ed.getByTestId('expose-input'), { target: { value: '/home/me' } });
    await fireEvent.click(ed.getByTestId('expose-add'));
    await waitFor(() => expect(ed.getByTestId('expose-error').textContent).toBe('/home/me cannot be shown to commands: it is or holds your home folder'));
    expect((ed.getByTestId('expose-input') as HTMLInputElement).value).toBe('/home/me');
    expect(ed.queryAllByTestId('expose-path')).toHaveLength(0);
  });

  it('adds a folder chosen in the native picker, and nothing when the picker is cancelled', slow, async () => {
    const { fake } = setup(oneEdit);
    const ed = await openWorkspace();
    fake.folderToPick = '';
    await fireEvent.click(ed.getByTestId('expose-pick'));
    await waitFor(() => expect(fake.callsOf('pickFolder')).toHaveLength(1));
    expect(fake.callsOf('setWorkspaceExpose')).toEqual([]);
    fake.folderToPick = '/srv/data';
    await fireEvent.click(ed.getByTestId('expose-pick'));
    await waitFor(() => expect(ed.getAllByTestId('expose-path').map((p) => p.getAttribute('data-path'))).toEqual(['/srv/data']));
    expect(fake.callsOf('setWorkspaceExpose')).toEqual([[WS, ['/srv/data']]]);
  });
});

describe('help', () => {
  it('lists the approval keys', async () => {
    setup(oneEdit);
    await screen.findByTestId('session-item');
    await fireEvent.keyDown(window, { key: '?' });
    const help = screen.getByTestId('help-overlay').textContent ?? '';
    expect(help).toContain('Approve the focused approval, once');
    expect(help).toContain('Approve the focused approval for this session');
    expect(help).toContain('Deny the focused approval');
  });
});
