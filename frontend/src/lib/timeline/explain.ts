// One or two plain sentences per timeline card about what happened and
// why, shown when the "Explain" switch is on. Written for someone who is
// learning how a coding agent works.
import {
  isRecord,
  type CheckpointPayload,
  type EditPayload,
  type JsonValue,
  type ModelRequestPayload,
  type ModelResponsePayload,
  type RestorePayload,
  type ToolResultPayload,
} from '../types';
import { formatCount } from './metrics';
import type { CallItem } from './group';
import type { CallState } from './status';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function argString(args: JsonValue | undefined, key: string): string {
  return isRecord(args) && typeof args[key] === 'string' ? (args[key] as string) : '';
}

export function explainUser(): string {
  return 'This is your message. Loupe adds it to the history, and every request from now on sends it to the model together with the system prompt and the tool schemas.';
}

/**
 * The tools a request offered, by name: its tool set's names (tool_names),
 * or the specs of a log written before tool sets. The request card and
 * its Explain both count these.
 */
export function requestTools(p: ModelRequestPayload): string[] {
  return p.tool_names ?? (p.tools ?? []).map((t) => t.name);
}

/** The messages of history a request sent: all but the system prompt. */
export function requestHistory(p: ModelRequestPayload): number {
  return Math.max(0, p.message_count - (p.system ? 1 : 0));
}

export function explainRequest(p: ModelRequestPayload, round: number): string {
  const history = requestHistory(p);
  const tools = requestTools(p).length;
  const again = round > 1 ? 'everything again: ' : '';
  return (
    `Loupe sent the model ${again}the system prompt, ${plural(history, 'message')} of history and the schemas of ${plural(tools, 'tool')}; ` +
    'the model remembers nothing between requests. ' +
    (p.options.num_ctx > 0
      ? `num_ctx ${formatCount(p.options.num_ctx)} is its context window: the most tokens it can read at once, prompt and answer together.`
      : 'Its context window (num_ctx: the most tokens it can read at once) is not recorded: the file this session was imported from does not say.')
  );
}

export function explainResponse(p: ModelResponsePayload): string {
  const calls = p.incomplete ? [] : (p.tool_calls ?? []);
  if (p.incomplete) {
    return p.done_reason === 'length'
      ? 'The model ran out of room (done_reason "length") before it finished. Loupe never runs tool calls from a message that was cut off.'
      : 'The message ended before the model finished (the stream broke or was stopped). Loupe never runs tool calls from an incomplete message.';
  }
  if (calls.length === 0 && p.unrecovered) {
    return (
      `The model wrote what looks like a tool call as text (${p.unrecovered.form}) instead of asking for it, and Loupe could not make it a call: ${p.unrecovered.why}. ` +
      'Nothing ran, and this is not a final answer: the loop stops so you can see why.'
    );
  }
  if (calls.length === 0) {
    return 'The model answered without asking for a tool, so this is its final answer and the loop stops here.';
  }
  return (
    `The model asked for ${plural(calls.length, 'tool call')}. It cannot run anything itself: it only wrote ` +
    `${calls.length === 1 ? 'a name and arguments' : 'names and arguments'}, and Loupe checks them, asks for permission and runs them.`
  );
}

/**
 * What a call does, in the tense of where it stands: the same state its
 * card shows (callStatus). A call that has not run yet (paused before it,
 * waiting for an answer, not reached) is told as what will happen; one
 * that ran, as what happened.
 */
export function explainCall(c: CallItem, state?: CallState): string {
  const p = c.call?.payload;
  const args = c.argsEdit ? c.argsEdit.payload.after : (p?.args ?? c.asked?.args);
  if (p && !p.valid) {
    return p.error_kind === 'unknown_tool'
      ? `There is no tool called "${c.name}". Loupe ran nothing and told the model which tools exist, so it can try again.`
      : 'The arguments do not fit the tool\u2019s schema. Loupe ran nothing and sent the problem back, so the model can correct the call.';
  }
  const perm = c.permission?.payload;
  if (perm && perm.decision !== 'allow') {
    return `The call was refused${perm.by ? ` by ${perm.by}` : ''}, so it did not run. The model is told it was denied and has to do without.`;
  }
  const r = c.result?.payload;
  if (r?.error_kind === 'skipped') return 'You skipped this call: it did not run, and the model gets the observation you wrote instead.';
  if (r?.error_kind === 'stopped') {
    return 'You stopped this call while it ran; the rest of the run went on. The model is told it was stopped, with the output so far.';
  }
  if (r?.error_kind === 'cancelled' || r?.error_kind === 'interrupted') {
    return 'The call did not finish (the run was stopped or Loupe exited). Every call still gets a result, so the history stays consistent.';
  }
  const edited = c.argsEdit ? ' You changed its arguments before it ran.' : '';
  if (!r) return explainPending(c, args, state, c.argsEdit ? ' You changed its arguments at the pause.' : '');
  const remembered = perm?.by.startsWith('you (') ? ' Loupe remembered an earlier answer of yours, so it did not ask again.' : '';
  const who = perm ? ` It was allowed${perm.by ? ` by ${perm.by}` : ''}.${remembered}` : '';
  const held = state?.status === 'paused' ? ' The result waits at the pause: it goes back to the model when you press Step or Continue.' : '';
  const sends = held ? 'will send' : 'sends';
  switch (c.name) {
    case 'read_file':
      return `The model cannot read files itself: Loupe read ${argString(args, 'path') || 'the file'} and ${sends} the text back to it.${who}${edited}${held}`;
    case 'list_dir':
    case 'glob':
    case 'grep':
      return `The model cannot see the workspace: Loupe looked it up and ${sends} the answer back as text.${who}${edited}${held}`;
    case 'write_file':
    case 'edit_file':
      return (
        `The model only described the change: Loupe changed ${argString(args, 'path') || 'the file'} in the workspace.${who}${edited}` +
        ((r.changes ?? []).length > 0 ? ' Loupe kept the file as it was before, so "Restore files" or "Undo this turn" can put it back.' : '') +
        held
      );
    case 'run_command':
      return `Loupe ran the command in the workspace and ${sends} its output and exit code back; the model only wrote the command line. The operating system confines it where it can (Settings → Protections), whatever the rules allowed.${who}${edited}${held}`;
    default:
      return `Loupe ran ${c.name} for the model and ${sends} the result back.${who}${edited}${held}`;
  }
}

/** A call that has no result yet: what will happen to it, from where it stands. */
function explainPending(c: CallItem, args: JsonValue | undefined, state: CallState | undefined, edited: string): string {
  let now: string;
  switch (state?.status) {
    case 'paused':
      now = 'The run is paused before this call: it has not been checked against the rules nor run. You can change its arguments or skip it.';
      break;
    case 'awaiting_approval':
      now = 'Loupe is waiting for your answer: nothing runs unless you approve.';
      break;
    case 'queued':
      now = 'The run is paused before Loupe gets to this call: nothing of it has been checked or run yet.';
      break;
    case 'running':
      now = `It was allowed${c.permission?.payload.by ? ` by ${c.permission.payload.by}` : ''} and Loupe is running it now.`;
      break;
    case 'cancelled':
      return 'The run ended before this call ran, so it never ran. Every call still gets a result, so the history stays consistent.';
    default:
      now = 'Loupe is checking the call: a known tool, arguments that fit its schema, and what the rules say.';
  }
  const when = state?.status === 'running' ? 'When it finishes' : state?.status === 'awaiting_approval' ? 'If you approve' : 'When it runs';
  let then: string;
  switch (c.name) {
    case 'read_file':
      then = `The model cannot read files itself. ${when}, Loupe will read ${argString(args, 'path') || 'the file'} and send the text back to it.`;
      break;
    case 'list_dir':
    case 'glob':
    case 'grep':
      then = `The model cannot see the workspace. ${when}, Loupe will look it up and send the answer back as text.`;
      break;
    case 'write_file':
    case 'edit_file':
      then = `The model only described the change. ${when}, Loupe will change ${argString(args, 'path') || 'the file'} in the workspace, keeping the file as it was so it can be put back.`;
      break;
    case 'run_command':
      then = `The model only wrote the command line. ${when}, Loupe will run it in the workspace, confined by the operating system where it can, and send its output and exit code back.`;
      break;
    default:
      then = `${when}, Loupe will run ${c.name} for the model and send the result back.`;
  }
  return `${now} ${then}${edited}`;
}

/** held: the run waits at an after_result pause, so the result has not gone back yet. */
export function explainObservation(r: ToolResultPayload, edited: boolean, held = false): string {
  let s = held
    ? 'This text is all the model will learn from the call: the run is paused before it goes back, so you can still change it. Step or Continue adds it to the history, and the next request sends it.'
    : 'This text is all the model learns from the call: Loupe adds it to the history, and the next request sends it to the model.';
  if (r.error_kind === 'skipped') s += ' You wrote it instead of running the tool.';
  else if (r.is_error) s += ' It is an error, so the model can change course.';
  if (r.truncated) s += ' It was cut to fit the output limit: the model never saw the rest.';
  if (edited) s += held ? ' You edited it at the pause: the model will see your version.' : ' You edited it before it went back: the model sees your version.';
  return s;
}

const noticeText: Record<string, string> = {
  loop_detected: 'The model asked for the same call again and again, so Loupe stepped in instead of letting it go round in circles.',
  round_cap: 'The run reached the most rounds it may take; Loupe stops it so it cannot go on forever.',
  truncated: 'The answer hit a limit and was cut off, so Loupe will not run any tool call from it.',
  empty_answer:
    'The model sent nothing at all. Ollama drops a tool call it cannot parse, so an empty answer often means a broken call.',
  no_tools: 'This model cannot use tools, so Loupe sends no tool schemas and the run is a plain chat.',
  not_sandboxed:
    'This machine cannot confine commands (Settings → Protections says what is missing), so Loupe asks you before every command, whatever your rules allow, and does not remember the answer.',
  workspace_untrusted:
    'The workspace has its own settings file. Anyone who wrote the folder could have written it, so its allow rules, commands and network setting count only once you trust it (Settings → Workspace); its deny and ask rules count already.',
  workspace_settings: 'The workspace\u2019s .loupe/settings.json could not be used as it is, so Loupe ignores all of it; the notice says why.',
  context_cut: 'Ollama read every token the context holds: a prompt that long was probably cut to fit, and the model did not see its oldest part.',
  context_dropped:
    'Ollama counted far fewer prompt tokens than this session\u2019s own earlier counts lead Loupe to expect, and its cache does not explain it: it probably dropped the oldest messages to fit the context.',
  printed_call_unrecovered:
    'The model wrote a tool call as text instead of asking for it, and Loupe could not read it as a call of a tool it offered (the notice says which form and why). Nothing ran; a model that makes native tool calls, or a message saying what to do, gets it going again.',
  context_allocated:
    'Ollama holds the model with another context than the num_ctx Loupe asked for (it caps it at the model\u2019s own length, for one): the context meter counts against what Ollama holds.',
};

export function explainNotice(code: string): string {
  return noticeText[code] ?? 'A decision the harness made by itself, outside the model; it is shown so nothing happens out of sight.';
}

export function explainError(): string {
  return 'The run itself failed here (not a tool), so the loop stops. Calls that were still open get an "interrupted" result.';
}

export function explainEnd(reason: string): string {
  switch (reason) {
    case 'answered':
      return 'The loop ends when the model replies without asking for a tool: that reply is the final answer.';
    case 'round_cap':
      return 'Every round is one request and its tool calls; the limit keeps a confused model from looping forever.';
    case 'cancelled':
      return 'You stopped the run. Calls that had not finished were given a "cancelled" result.';
    case 'truncated':
      return 'The model\u2019s last message was cut off, so its calls were not run and the loop stopped.';
    case 'repeated_calls':
      return 'The model asked for the same calls round after round; Loupe stopped the loop instead of letting it go in circles.';
    case 'does_not_fit':
      return 'Ollama would silently drop the oldest messages of a prompt longer than num_ctx; Loupe asks it to refuse instead, so the model never works from a cut history without you knowing.';
    case 'printed_call':
      return 'Small models sometimes write a tool call as text instead of asking for it. Loupe reads the forms they use; this one it could not, so nothing ran and the loop stopped rather than take it for an answer.';
    case 'timeout':
      return 'Loupe waits for Ollama only so long: a stream that goes silent would otherwise hold the loop forever. Send a message to try again.';
    default:
      return 'Every run ends with a reason; the badge says which one.';
  }
}

const pointText: Record<string, { now: string; then: string }> = {
  before_request: {
    now: 'before the request is sent: the system prompt, messages and options can still be changed',
    then: 'before the request was sent: the system prompt, messages and options could still be changed',
  },
  after_response: {
    now: 'after the model answered, before any of its tool calls is checked or run',
    then: 'after the model answered, before any of its tool calls ran',
  },
  before_tool: {
    now: 'before the call runs, and before permission is asked: its arguments can be changed, or the call skipped',
    then: 'before the call ran, and before permission was asked: its arguments could be changed, or the call skipped',
  },
  after_result: {
    now: 'after the tool ran, before its result goes back to the model: the result can be changed',
    then: 'after the tool ran, before its result went back to the model: the result could be changed',
  },
};

/** An after_response pause at an answer without calls: there is no call to check. */
const afterFinalAnswer = {
  now: 'after the model answered without asking for a tool: this is its final answer, and going on ends the run',
  then: 'after the model answered without asking for a tool: its final answer',
};

/** Why the policy asked or refused: the reasons the permission event carries. */
export function explainPermissionReasons(reasons: readonly string[] | null | undefined): string {
  const list = reasons ?? [];
  if (list.length === 0) return '';
  return `Loupe's rules decided this, not the model: ${list.join('; ')}.`;
}

export function explainRestore(p: RestorePayload): string {
  const n = (p.restored ?? []).length;
  const what = p.run ? `before run ${p.run}` : `before event ${p.to_seq}`;
  let s =
    `You asked Loupe to put ${plural(n, 'file')} back as ${n === 1 ? 'it was' : 'they were'} ${what}. ` +
    'Every change a tool makes is recorded with the file\u2019s previous content, which is what Loupe wrote back; the model was not asked.';
  if ((p.overwritten ?? []).length > 0) s += ' Some files had changed outside Loupe since; you chose to overwrite them.';
  return s;
}

/**
 * A pause, from the same state as its card: waiting (what will happen when
 * the user goes on), or over (what happened).
 */
export function explainCheckpoint(p: CheckpointPayload, waiting = false, action?: string, answerCalls: number | null = null): string {
  const where = p.point === 'after_response' && answerCalls === 0 ? afterFinalAnswer : pointText[p.point];
  const why = p.breakpoint ? 'A breakpoint' : 'Step mode';
  if (waiting) {
    return `${why} paused the loop ${where?.now ?? 'at a checkpoint'}. Nothing moves until you press Step (to the next checkpoint) or Continue (to a breakpoint or the end of the run).`;
  }
  const went: Record<string, string> = {
    step: 'You pressed Step, and the loop went on to the next checkpoint.',
    continue: 'You pressed Continue, and the loop went on to a breakpoint or the end of the run.',
    skip: 'You skipped the call: it never ran, and the model got your observation.',
  };
  const after = action ? (went[action] ?? 'Then the loop went on.') : 'The run ended while it waited here.';
  return `${why} paused the loop ${where?.then ?? 'at a checkpoint'}. ${after}`;
}

const targetText: Record<string, string> = {
  system: 'the system prompt',
  options: 'the request options',
  message: 'a message of the history',
  args: 'the call\u2019s arguments (checked against the tool\u2019s schema again)',
  result: 'the tool\u2019s result',
};

/** Names as a phrase: "a", "a and b", "a, b and c". */
function listed(names: readonly string[]): string {
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

export function explainEdit(p: EditPayload): string {
  if (p.target === 'tools') {
    const names = (v: unknown) => (Array.isArray(v) ? v.filter((n): n is string => typeof n === 'string') : []);
    const before = names(p.before);
    const after = names(p.after);
    const off = before.filter((n) => !after.includes(n));
    const on = after.filter((n) => !before.includes(n));
    const did = [off.length ? `switched off ${listed(off)}` : '', on.length ? `switched on ${listed(on)}` : ''].filter(Boolean).join(' and ');
    const left = after.length ? `only the schemas of ${listed(after)}` : 'no tool schemas (it can only answer in text)';
    return `You ${did || 'changed the tools offered'} while the run was paused. For the rest of the run the model gets ${left}, and a call of another tool is refused as an unknown tool; the log keeps both lists.`;
  }
  return `You changed ${targetText[p.target] ?? p.target} while the run was paused. From then on the model sees the new version; the log keeps both.`;
}
