// What a compaction card and the Compact now button say: which rounds a
// summary replaced, what made Loupe compact, and why the button is off.
import type { CompactionPayload } from '../types';
import { formatCount } from './metrics';

const where = (run: number, round: number) => (round === 0 ? `run ${run}'s message` : `run ${run} round ${round}`);

/** The span a compaction replaced, in words: "rounds 1–3 of run 2" or "run 1's message to run 2 round 4". */
export function compactionSpan(p: CompactionPayload): string {
  if (p.from_run !== p.through_run) return `${where(p.from_run, p.from_round)} to ${where(p.through_run, p.through_round)}`;
  const first = p.from_round === 0 ? 1 : p.from_round;
  const rounds = first === p.through_round ? `round ${first}` : `rounds ${first}\u2013${p.through_round}`;
  if (p.through_round === 0) return `the message of run ${p.from_run}`;
  return `${p.from_round === 0 ? 'the message and ' : ''}${rounds} of run ${p.from_run}`;
}

/** What made Loupe compact, as the card's chip says it. */
export function compactionTrigger(trigger: string): string {
  switch (trigger) {
    case 'threshold':
      return 'context nearly full';
    case 'does_not_fit':
      return 'prompt did not fit';
    case 'button':
      return 'Compact now';
  }
  return trigger;
}

/** "~4,948 → ~3,323 tokens", or '' when the estimates are not known. */
export function compactionTokens(p: CompactionPayload): string {
  if (!(p.tokens_before > 0) || !(p.tokens_after > 0)) return '';
  return `~${formatCount(p.tokens_before)} \u2192 ~${formatCount(p.tokens_after)} tokens`;
}

export function explainCompaction(p: CompactionPayload): string {
  const why =
    p.trigger === 'button'
      ? 'You pressed Compact now.'
      : p.trigger === 'does_not_fit'
        ? 'Ollama refused the prompt as longer than num_ctx, so Loupe compacted and sent it again.'
        : 'The prompt came near the share of num_ctx set in Settings.';
  return (
    `${why} The model wrote this summary of the older turns (the request and answer just before this card). ` +
    'From here on every request sends the system prompt, this summary and the latest rounds; each tool call still goes with its result. ' +
    'The events it replaced stay in the log and on the timeline.'
  );
}

/** Why Compact now cannot be pressed, or '' when it can. */
export function compactBlocked(s: { active: boolean; compacting: boolean; runs: number }): string {
  if (s.compacting) return 'The model is writing the summary.';
  if (s.active) return 'A run is going: compact when it ends (or stop it).';
  if (s.runs === 0) return 'Nothing to compact yet.';
  return '';
}
