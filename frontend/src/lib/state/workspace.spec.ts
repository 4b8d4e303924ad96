import { describe, expect, it } from 'vitest';
import { ReplayBridge } from '../replay/bridge';
import { recording } from '../replay/recordings';
import { WorkspaceState } from './workspace.svelte';

const WS = '/home/me/project';

// On the workspace recording: the backend's answers, in its words.
describe('WorkspaceState', () => {
  it('shows the workspace as each change left it', async () => {
    const replay = new ReplayBridge(recording('workspace'), { from: 'run done' });
    const ws = new WorkspaceState(replay, WS);
    await ws.load();
    expect(ws.info).toMatchObject({ dir: WS, trusted: false, has_settings: true, settings: { commands: ['go test ./...'] } });
    expect(await ws.setTrusted(true)).toBe(true);
    expect(ws.info?.trusted).toBe(true);
    replay.outside();
    expect(await ws.setNetwork(true)).toBe(true);
    expect(ws.info?.allow_network).toBe(true);
    expect(ws.busy).toBe(false);
    expect(ws.error).toBeNull();
    replay.check();
  });

  it('keeps the backend\u2019s refusal on show after reading the workspace back', async () => {
    const replay = new ReplayBridge(recording('workspace'), { from: 'exposed' });
    const ws = new WorkspaceState(replay, WS);
    expect(await ws.setExpose(['/opt/sdk', '/home/me'])).toBe(false);
    expect(ws.exposeError).toBe('/home/me cannot be shown to commands: it is or holds your home folder');
    expect(ws.info?.expose).toEqual(['/opt/sdk']);
    replay.check();
  });

  it('says why a broken settings file cannot be trusted', async () => {
    const replay = new ReplayBridge(recording('workspace'), { from: 'broken' });
    const ws = new WorkspaceState(replay, WS);
    expect(await ws.setTrusted(true)).toBe(false);
    expect(ws.error).toMatch(/^cannot trust it: workspace settings .loupe\/settings.json ignored: /);
    expect(ws.info?.trusted).toBe(false);
    replay.expectDone();
  });

  it('says why the workspace could not be read', async () => {
    const replay = new ReplayBridge(recording('workspace'));
    replay.reject('workspace', 'workspace /gone cannot be opened');
    const ws = new WorkspaceState(replay, '/gone');
    await ws.load();
    expect(ws.info).toBeNull();
    expect(ws.error).toBe('workspace /gone cannot be opened');
  });
});
