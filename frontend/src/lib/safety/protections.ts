// Which OS protections commands get, as the settings page and the global
// banner say it. Mirrors sandbox.Protections' List, Sandboxed and Summary,
// which are Go methods and do not cross the bridge.
import type { Protection, Protections } from '../types';

/** The protections in the order the settings page shows them. */
export function protectionList(p: Protections): Protection[] {
  return [p.Writes, p.Network, p.Processes, p.Secrets, p.Limits];
}

/**
 * The required protections a command would lack, in plain words
 * ("writes: Landlock is not available"). With allowNetwork the network is
 * not expected to be blocked. Limits are not required.
 */
export function missingProtections(p: Protections, allowNetwork = false): string[] {
  const out: string[] = [];
  for (const x of [p.Writes, p.Network, p.Processes, p.Secrets]) {
    if (x.Active || (allowNetwork && x.Name === p.Network.Name)) continue;
    out.push(`${x.Name.toLowerCase()}: ${x.Detail}`);
  }
  return out;
}

/** Writes, network, processes and secrets are all confined: commands are sandboxed. */
export function isSandboxed(p: Protections): boolean {
  return missingProtections(p).length === 0;
}

/** Why commands are not sandboxed ("" when they are), for "Commands are not sandboxed: <why>". */
export function notSandboxedWhy(p: Protections): string {
  return missingProtections(p).join('; ');
}

/** One line, as sandbox.Protections.Summary writes it. */
export function protectionsSummary(p: Protections): string {
  const missing = missingProtections(p);
  let s =
    missing.length > 0
      ? `commands are not sandboxed: ${missing.join('; ')}`
      : `commands are sandboxed: ${p.Writes.Detail}; network ${p.Network.Detail}; ${p.Processes.Detail}`;
  if (!p.Limits.Active) s += ` (limits: ${p.Limits.Detail})`;
  return s;
}
