import { describe, expect, it } from 'vitest';
import { sandboxedProtections, unconfinedProtections } from '../bridge/fake';
import { protectionsOf } from '../types';
import { isSandboxed, missingProtections, notSandboxedWhy, protectionList, protectionsSummary } from './protections';

describe('protections', () => {
  it('are sandboxed when writes, network, processes and secrets are all active, whatever the limits', () => {
    const p = sandboxedProtections();
    expect(isSandboxed(p)).toBe(true);
    expect(notSandboxedWhy(p)).toBe('');
    p.Limits = { ...p.Limits, Active: false, Detail: 'setrlimit failed' };
    expect(isSandboxed(p)).toBe(true);
    expect(protectionsSummary(p)).toMatch(/^commands are sandboxed: .* \(limits: setrlimit failed\)$/);
  });

  it('say which required protection is missing and why, as sandbox.Protections.Summary does', () => {
    const p = sandboxedProtections();
    p.Network = { Name: 'Network', Active: false, Detail: 'no network namespace' };
    p.Secrets = { Name: 'Secrets', Active: false, Detail: 'no mount namespace' };
    expect(isSandboxed(p)).toBe(false);
    expect(missingProtections(p)).toEqual(['network: no network namespace', 'secrets: no mount namespace']);
    expect(notSandboxedWhy(p)).toBe('network: no network namespace; secrets: no mount namespace');
    expect(protectionsSummary(p)).toBe('commands are not sandboxed: network: no network namespace; secrets: no mount namespace');
    // A workspace that allows the network does not expect it blocked.
    expect(missingProtections(p, true)).toEqual(['secrets: no mount namespace']);
  });

  it('list in the settings page order', () => {
    expect(protectionList(unconfinedProtections()).map((x) => x.Name)).toEqual(['Writes', 'Network', 'Processes', 'Secrets', 'Limits']);
  });

  it('are read from the Go field names, a missing one counting as inactive', () => {
    const p = protectionsOf({ LandlockABI: 4, Writes: { Name: 'Writes', Active: true, Detail: 'landlock' } });
    expect(p.LandlockABI).toBe(4);
    expect(p.Writes.Active).toBe(true);
    expect(p.Network).toEqual({ Name: 'Network', Active: false, Detail: '' });
    expect(isSandboxed(p)).toBe(false);
  });
});
