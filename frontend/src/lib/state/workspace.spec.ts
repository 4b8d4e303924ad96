import { describe, expect, it } from 'vitest';
import { FakeBridge } from '../bridge/fake';
import { WorkspaceState } from './workspace.svelte';

describe('WorkspaceState', () => {
  it('reads the workspace back after each change', async () => {
    const fake = new FakeBridge();
    fake.setWorkspaceFile('/w', { commands: ['make'] });
    const ws = new WorkspaceState(fake, '/w');
    await ws.load();
    expect(ws.info).toMatchObject({ dir: '/w', trusted: false, has_settings: true, settings: { commands: ['make'] } });
    expect(await ws.setTrusted(true)).toBe(true);
    expect(ws.info?.trusted).toBe(true);
    expect(await ws.setNetwork(true)).toBe(true);
    expect(ws.info?.allow_network).toBe(true);
    expect(ws.busy).toBe(false);
    expect(ws.error).toBeNull();
  });

  it('keeps the backend\u2019s refusal on show after reading the workspace back', async () => {
    const fake = new FakeBridge();
    fake.setWorkspaceFile('/w', null, 'line 1: unexpected end of JSON input');
    const ws = new WorkspaceState(fake, '/w');
    await ws.load();
    expect(await ws.setTrusted(true)).toBe(false);
    expect(ws.error).toBe('cannot trust it: workspace settings .loupe/settings.json ignored: line 1: unexpected end of JSON input');
    expect(ws.info?.trusted).toBe(false);
    expect(fake.callsOf('workspace')).toHaveLength(2);
  });

  it('says why the workspace could not be read', async () => {
    const fake = new FakeBridge();
    fake.failures['workspace'] = 'workspace /gone: no such directory';
    const ws = new WorkspaceState(fake, '/gone');
    await ws.load();
    expect(ws.info).toBeNull();
    expect(ws.error).toBe('workspace /gone: no such directory');
  });
});
