// What a hook's card says: which hook ran on what, what it came to (went
// on, blocked, failed), the decision it printed, and the lines of its run.
// Pure: the card draws these, and nothing else reads a hook run.
import type { HookRun } from '../types';

export type HookTone = 'ok' | 'warn' | 'error' | 'info';

export interface HookCardModel {
  title: string;
  /** The chip: "went on", "blocked (exit 2)", "failed (exit 1)", "timed out", with its tone. */
  verdict: string;
  tone: HookTone;
  /** The before_tool decision it printed ("allow: looks fine"), or ''. */
  decision: string;
  /** What the loop did with it, in one sentence. */
  effect: string;
}

const EVENT_WORDS: Record<string, string> = {
  before_tool: 'before',
  after_tool: 'after',
  after_edit: 'after the edit of',
  before_request: 'before the request',
  run_end: 'at the end of the run',
};

function on(h: HookRun): string {
  const words = EVENT_WORDS[h.event] ?? h.event;
  return h.tool ? `${words} ${h.tool}` : words;
}

export function hookCard(h: HookRun): HookCardModel {
  const title = `Hook ${h.hook} ${on(h)}`;
  const failure = h.timed_out ? 'timed out' : h.error ? 'could not run' : `failed (exit ${h.exit_code})`;
  let verdict = 'went on';
  let tone: HookTone = 'ok';
  let effect = '';
  switch (h.outcome) {
    case 'blocked':
      verdict = 'blocked (exit 2)';
      tone = 'error';
      break;
    case 'failed':
      verdict = failure;
      tone = 'error';
      break;
    case 'failed_continued':
      verdict = `${failure}, went on`;
      tone = 'warn';
      break;
  }
  const blocked = h.outcome === 'blocked' || h.outcome === 'failed';
  switch (h.event) {
    case 'before_tool':
      effect = blocked
        ? 'The call was denied; the model reads why.'
        : h.decision === 'deny'
          ? 'It denied the call; the model reads its reason.'
          : h.decision === 'ask'
            ? 'It asks: you decide whether the call runs.'
            : h.decision === 'allow'
              ? 'It allowed the call where Loupe would have asked; a deny rule or a protected path still wins.'
              : 'The call went on to its permission as usual.';
      break;
    case 'after_tool':
    case 'after_edit':
      effect = blocked ? 'Its output was added to the observation, which became an error.' : 'Its output, if any, was added to the observation.';
      break;
    case 'before_request':
      effect = blocked ? 'The run stopped before the request was sent.' : 'The request was sent.';
      break;
    case 'run_end':
      effect = 'The run ended.';
      break;
  }
  const decision = h.decision ? (h.reason ? `${h.decision}: ${h.reason}` : h.decision) : '';
  return { title, verdict, tone, decision, effect };
}
