// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { ReplayBridge } from '../replay/bridge';
import { recording } from '../replay/recordings';
import { Commands } from './commands.svelte';
import { Router } from './routing.svelte';
import { SettingsState } from './settings.svelte';
import { SessionList } from './summaries.svelte';

const settle = () => new Promise((r) => setTimeout(r, 0));

/** Commands with the parts they act on, the open session fed by the replay's events. */
async function setup(name: string) {
  const replay = new ReplayBridge(recording(name));
  const notify = vi.fn();
  const sessions = new SessionList(replay, notify);
  const router = new Router(replay, sessions, new SettingsState(replay, notify, () => {}));
  const commands = new Commands(replay, sessions, router, notify);
  const off = replay.onEvents((b) => {
    sessions.after(b);
    router.current?.applyEvents(b);
  });
  await sessions.refresh();
  await router.openSession('session-1');
  return { replay, sessions, router, commands, notify, off };
}

describe('Commands', () => {
  it('stops a running command once however often Stop is pressed, and says so meanwhile', async () => {
    const { replay, router, commands, off } = await setup('stop_command');
    router.current!.draft = 'Run the tests';
    await commands.send();
    await settle();
    expect(commands.isStopping('call_1')).toBe(false);
    const first = commands.stopCall('call_1');
    expect(commands.isStopping('call_1')).toBe(true);
    await Promise.all([first, commands.stopCall('call_1')]);
    expect(commands.isStopping('call_1')).toBe(false);
    expect(replay.commandsOf('stop_call')).toEqual([{ do: 'stop_call', session: 'session-1', call_id: 'call_1' }]);
    await settle();
    replay.expectDone();
    replay.check();
    off();
  });

  it('asks before stopping a paused run, and stops only on yes', async () => {
    const { replay, router, commands, off } = await setup('stop_paused');
    await commands.do({ do: 'set_stepping', session: 'session-1', on: true });
    router.current!.draft = 'Say hi';
    await commands.send();
    await settle();
    expect(router.current!.pause).not.toBeNull();
    commands.requestStop();
    expect(commands.stopConfirm).toBe(true);
    commands.cancelStop();
    expect(commands.stopConfirm).toBe(false);
    expect(replay.commandsOf('stop')).toEqual([]);
    commands.requestStop();
    await commands.confirmStop();
    expect(commands.stopConfirm).toBe(false);
    expect(replay.commandsOf('stop')).toEqual([{ do: 'stop', session: 'session-1' }]);
    await settle();
    expect(router.current!.running).toBe(false);
    replay.check();
    off();
  });

  it('creates a session and opens it', async () => {
    const replay = new ReplayBridge(recording('new_session'));
    const notify = vi.fn();
    const sessions = new SessionList(replay, notify);
    const router = new Router(replay, sessions, new SettingsState(replay, notify, () => {}));
    const commands = new Commands(replay, sessions, router, notify);
    const create = replay.recording.steps.find((s) => s.command?.method === 'do')!.command!.args[0] as { workspace: string; model: string };
    expect(await commands.newSession(create.workspace, create.model)).toBe(true);
    expect(router.view).toBe('session');
    expect(router.current?.id).toBe('session-1');
    expect(sessions.list.map((s) => s.id)).toEqual(['session-1']);
    expect(notify).not.toHaveBeenCalled();
  });
});
