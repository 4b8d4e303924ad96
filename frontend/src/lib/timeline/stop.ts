// Why a loop stopped, in plain words.

export type Tone = 'ok' | 'warn' | 'error' | 'neutral';

export interface StopText {
  /** Short badge text. */
  label: string;
  /** One sentence explaining it. */
  explanation: string;
  tone: Tone;
}

const reasons: Record<string, StopText> = {
  answered: {
    label: 'Answered',
    explanation: 'The model replied without asking for a tool, so the loop ended with its answer.',
    tone: 'ok',
  },
  round_cap: {
    label: 'Round limit reached',
    explanation: 'The loop stopped at the maximum number of rounds before the model gave a final answer.',
    tone: 'warn',
  },
  cancelled: {
    label: 'Stopped by you',
    explanation: 'You stopped the run. Calls that had not finished were marked cancelled.',
    tone: 'neutral',
  },
  error: {
    label: 'Error',
    explanation: 'The run stopped because of an error; the error card above says what went wrong.',
    tone: 'error',
  },
  truncated: {
    label: 'Answer cut off',
    explanation:
      'The model\u2019s message ended early (token limit or a broken stream), so its tool calls were not run.',
    tone: 'warn',
  },
  repeated_calls: {
    label: 'Repeated calls',
    explanation: 'The model asked for the same tool calls three rounds in a row, so Loupe stopped the loop.',
    tone: 'warn',
  },
  timeout: {
    label: 'Ollama went quiet',
    explanation:
      'Ollama sent nothing for too long (before the first token, or in the middle of the answer). What arrived is kept; its tool calls were not run.',
    tone: 'warn',
  },
  does_not_fit: {
    label: 'Does not fit',
    explanation:
      'The prompt was longer than the context (num_ctx). Ollama was asked not to cut it, so nothing was lost: the card above says what took the room and the ways out.',
    tone: 'warn',
  },
  printed_call: {
    label: 'Call not recovered',
    explanation:
      'The model wrote what looks like a tool call as text, in a form Loupe could not make a call of, so nothing ran and this is not a final answer.',
    tone: 'warn',
  },
  interrupted: {
    label: 'Interrupted',
    explanation: 'Loupe exited while this run was going. Calls that had not finished were marked interrupted.',
    tone: 'warn',
  },
};

export function stopText(reason: string, detail = ''): StopText {
  const known = reasons[reason];
  const base = known ?? { label: reason ? reason.replace(/_/g, ' ') : 'Stopped', explanation: '', tone: 'neutral' as const };
  return detail ? { ...base, explanation: base.explanation ? `${base.explanation} ${detail}` : detail } : base;
}
