// What the user is typing into the editor of a paused run, before it is
// sent: the request's system prompt, options, tools and messages, a call's
// arguments or the observation that skips it, a result. Kept in the
// session state (not the component) so that Step from the keyboard sends
// the same edits as the button.
import type { JsonValue, Options, Pause, PendingRequest, RequestEdit } from '../types';

/** A pause's identity: its paused checkpoint event, whatever is edited there. */
export function pauseKey(p: Pause): string {
  return String(p.seq);
}

/** JSON text of a value, for the argument editor. */
function jsonText(v: JsonValue | undefined): string {
  return v === undefined ? '{}' : JSON.stringify(v, null, 2);
}

/** Same JSON, whatever the spacing; false when either side is not JSON. */
export function sameJson(a: string, b: string): boolean {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}

/** Same tool names, whatever the order. */
function sameNames(a: readonly string[], b: readonly string[]): boolean {
  const sa = [...new Set(a)].sort();
  const sb = [...new Set(b)].sort();
  return sa.length === sb.length && sa.every((n, i) => n === sb[i]);
}

/**
 * The edit of a pending request that the draft amounts to: only the parts
 * that differ. Null when nothing changed; throws an Error with a readable
 * message when an option is not a number.
 */
export function requestEditOf(
  req: PendingRequest,
  draft: { system: string; numCtx: string; temperature: string; messages: Readonly<Record<number, string>>; tools?: readonly string[] },
): RequestEdit | null {
  const edit: RequestEdit = {};
  if (draft.system !== req.system) edit.system = draft.system;
  const numCtx = Number(draft.numCtx.trim());
  const temperature = Number(draft.temperature.trim());
  if (!Number.isInteger(numCtx) || numCtx <= 0 || draft.numCtx.trim() === '') {
    throw new Error('num_ctx must be a whole number of tokens, like 8192.');
  }
  if (!Number.isFinite(temperature) || temperature < 0 || draft.temperature.trim() === '') {
    throw new Error('temperature must be a number of 0 or more, like 0.2.');
  }
  if (numCtx !== req.options.num_ctx || temperature !== req.options.temperature) {
    const options: Options = { ...req.options, num_ctx: numCtx, temperature };
    edit.options = options;
  }
  if (draft.tools && !sameNames(draft.tools, req.tools ?? [])) edit.tools = [...draft.tools];
  const messages = (req.messages ?? []).flatMap((m) => {
    const v = draft.messages[m.seq];
    return v !== undefined && v !== m.content ? [{ seq: m.seq, content: v }] : [];
  });
  if (messages.length) edit.messages = messages;
  return Object.keys(edit).length ? edit : null;
}

export class PauseDraft {
  /** The pause as the log holds it, with the edits sent since. */
  pause = $state.raw<Pause>() as Pause;
  readonly key: string;
  system = $state('');
  numCtx = $state('');
  temperature = $state('');
  /** Message content by the seq of the event it comes from. */
  messages = $state<Record<number, string>>({});
  /** The tools to offer from this request on (for the rest of the run). */
  tools = $state<string[]>([]);
  args = $state('');
  result = $state('');
  /** The observation that answers a skipped call. */
  skip = $state('');
  /** Why the last apply failed (shown in the editor). */
  error = $state<string | null>(null);
  /** The backend's validation message for the edited arguments. */
  argsError = $state<string | null>(null);

  constructor(pause: Pause) {
    this.pause = pause;
    this.key = pauseKey(pause);
    const req = pause.request;
    if (req) {
      this.system = req.system;
      this.numCtx = String(req.options.num_ctx);
      this.temperature = String(req.options.temperature);
      this.messages = Object.fromEntries((req.messages ?? []).map((m) => [m.seq, m.content]));
      this.tools = [...(req.tools ?? [])];
    }
    this.args = jsonText(pause.args);
    this.result = pause.result?.content ?? '';
  }

  /** The request edit to send, or null; throws on an option that is not a number. */
  requestEdit(): RequestEdit | null {
    const req = this.pause.request;
    if (!req) return null;
    return requestEditOf(req, this);
  }

  get argsChanged(): boolean {
    return this.pause.point === 'before_tool' && !sameJson(this.args, jsonText(this.pause.args));
  }

  get resultChanged(): boolean {
    return this.pause.point === 'after_result' && this.pause.result != null && this.result !== this.pause.result.content;
  }

  /**
   * Records that the typed edits were accepted: they become the new
   * baseline, so Step does not send them again even before the backend's
   * updated pause arrives.
   */
  applied(): void {
    const p = this.pause;
    if (p.point === 'before_request' && p.request) {
      const edit = this.requestEdit();
      if (!edit) return;
      const messages = (p.request.messages ?? []).map((m) => {
        const e = edit.messages?.find((x) => x.seq === m.seq);
        return e ? { ...m, content: e.content } : m;
      });
      // The run offers tools in its own order (the pause's offer).
      const tools = edit.tools ? (p.request.offer ?? edit.tools).filter((t) => edit.tools?.includes(t)) : p.request.tools;
      this.pause = {
        ...p,
        request: { ...p.request, system: edit.system ?? p.request.system, options: edit.options ?? p.request.options, tools, messages },
      };
    } else if (p.point === 'before_tool') {
      this.pause = { ...p, args: JSON.parse(this.args) as JsonValue };
    } else if (p.point === 'after_result' && p.result) {
      this.pause = { ...p, result: { ...p.result, content: this.result } };
    }
  }

  /** Something typed that Step, Continue or Apply would send. */
  get dirty(): boolean {
    switch (this.pause.point) {
      case 'before_request':
        try {
          return this.requestEdit() != null;
        } catch {
          return true;
        }
      case 'before_tool':
        return this.argsChanged;
      case 'after_result':
        return this.resultChanged;
      default:
        return false;
    }
  }
}
