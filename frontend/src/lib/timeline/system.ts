// The parts of a system prompt: what Settings' template gave, and the
// workspace's AGENTS.md that the engine added, where the request says it
// sits (in UTF-8 bytes, as Go counts).
import type { Instructions } from '../types';

export interface SystemPart {
  kind: 'prompt' | 'instructions';
  text: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Splits a system prompt at the part the request marks as the workspace's
 * instructions file. A part that does not fit the text (a log edited by
 * hand, an older engine) leaves the prompt whole.
 */
export function systemParts(system: string, instructions?: Instructions | null): SystemPart[] {
  if (!instructions || instructions.len <= 0) return system ? [{ kind: 'prompt', text: system }] : [];
  const bytes = encoder.encode(system);
  const { start, len } = instructions;
  if (start < 0 || start + len > bytes.length) return [{ kind: 'prompt', text: system }];
  const out: SystemPart[] = [];
  const before = decoder.decode(bytes.subarray(0, start));
  const part = decoder.decode(bytes.subarray(start, start + len));
  const after = decoder.decode(bytes.subarray(start + len));
  if (before) out.push({ kind: 'prompt', text: before });
  out.push({ kind: 'instructions', text: part });
  if (after) out.push({ kind: 'prompt', text: after });
  return out;
}
