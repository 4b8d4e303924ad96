// The card of a sub-agent's nested lane, collapsed: what it was asked,
// how many rounds it took, its tokens, how it ended and its answer. Read
// from its own events only (the lane), as everything the window says is
// read from the log.
import type { SubAgentLane } from './group';

export interface SubAgentCard {
  id: string;
  /** The task call that started it. */
  callId: string;
  goal: string;
  tools: string[];
  rounds: number;
  /** Tokens its requests took (prompt) and its answers gave (eval): counted in the session's totals, not in its parent's context. */
  promptTokens: number;
  evalTokens: number;
  /** 'running', 'paused' (stepped into, waiting at one of its checkpoints), or how its run ended (a run_end reason). */
  outcome: string;
  answered: boolean;
  /** Its final answer (what its parent reads), or its last words. */
  answer: string;
  detail: string;
}

export function subAgentCard(lane: SubAgentLane): SubAgentCard {
  const own = lane.events.filter((e) => e.agent === lane.id);
  const card: SubAgentCard = {
    id: lane.id,
    callId: lane.id.slice(lane.id.lastIndexOf('/') + 1),
    goal: '',
    tools: [],
    rounds: 0,
    promptTokens: 0,
    evalTokens: 0,
    outcome: 'running',
    answered: false,
    answer: '',
    detail: '',
  };
  let paused = false;
  for (const e of own) {
    switch (e.kind) {
      case 'user_message':
        card.goal = e.payload.text;
        break;
      case 'model_request':
        card.rounds = Math.max(card.rounds, e.round);
        if (e.payload.tool_names) card.tools = [...e.payload.tool_names];
        break;
      case 'model_response':
        card.promptTokens += e.payload.metrics?.prompt_eval_count ?? 0;
        card.evalTokens += e.payload.metrics?.eval_count ?? 0;
        card.answer = e.payload.content;
        break;
      case 'checkpoint':
        paused = e.payload.state === 'paused';
        break;
      case 'run_end':
        paused = false;
        card.outcome = e.payload.reason;
        card.answered = e.payload.reason === 'answered';
        card.answer = e.payload.final_text ?? card.answer;
        card.detail = e.payload.detail ?? '';
        card.rounds = e.payload.rounds || card.rounds;
        break;
    }
  }
  if (paused) card.outcome = 'paused';
  return card;
}
