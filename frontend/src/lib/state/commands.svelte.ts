// What the user does to sessions, sent as the backend's one command (Do):
// create, start the demo, delete, change the model, send, stop the run (asking first when
// it is paused), stop one running command, and answer a question. A
// summary a command returns is taken into the session list. Each control
// that waits for its command says so (answering, stoppingCalls) so a
// second click sends nothing.
import type { Bridge } from '../bridge/types';
import { outputKey } from '../timeline';
import type { Approval, Command, Outcome, Scope } from '../types';
import { message } from './errors';
import type { Router } from './routing.svelte';
import type { SessionList } from './summaries.svelte';
import type { Notify } from './toasts.svelte';

/** Sends a command to the backend and takes the summary it returns. */
export type Do = (cmd: Command) => Promise<Outcome>;

export class Commands {
  /** Approvals whose answer is on its way. */
  answering = $state.raw<ReadonlySet<string>>(new Set());
  /** Calls whose stop is on its way, by outputKey. */
  stoppingCalls = $state.raw<ReadonlySet<string>>(new Set());
  /** Stop waits for the user's yes: the run is paused, and edits may be unsent. */
  stopConfirm = $state(false);
  /** Compact now is on its way (the model writes the summary). */
  compacting = $state(false);

  readonly #bridge: Bridge;
  readonly #sessions: SessionList;
  readonly #router: Router;
  readonly #notify: Notify;

  constructor(bridge: Bridge, sessions: SessionList, router: Router, notify: Notify) {
    this.#bridge = bridge;
    this.#sessions = sessions;
    this.#router = router;
    this.#notify = notify;
  }

  /** Sends a command; a summary it returns is taken. */
  do: Do = async (cmd) => {
    const out = await this.#bridge.do(cmd);
    if (out.summary) {
      const cur = this.#router.current;
      const merged = this.#sessions.take(out.summary, cur?.summary ?? null);
      cur?.setSummary(merged);
    }
    return out;
  };

  /** setup.host: the Ollama host it runs on ("": the local one); setup.tools: the tools it offers its model (undefined: every tool). */
  async newSession(workspace: string, model: string, setup: { host?: string; tools?: string[] } = {}): Promise<boolean> {
    try {
      const out = await this.do({ do: 'create', workspace, model, ...(setup.host ? { host: setup.host } : {}), ...(setup.tools ? { tools: setup.tools } : {}) });
      if (!out.summary) throw new Error('the backend did not say which session it made');
      await this.#router.openSession(out.summary.id);
      return true;
    } catch (e) {
      this.#notify(`Could not create the session: ${message(e)}`, 'error');
      return false;
    }
  }

  /** Starts the scripted demo (no Ollama needed) and opens its session, paused before its first request. */
  async startDemo(): Promise<boolean> {
    try {
      const out = await this.do({ do: 'demo' });
      if (!out.summary) throw new Error('the backend did not say which session it made');
      await this.#router.openSession(out.summary.id);
      return true;
    } catch (e) {
      this.#notify(`Could not start the demo: ${message(e)}`, 'error');
      return false;
    }
  }

  async deleteSession(id: string): Promise<void> {
    try {
      await this.do({ do: 'delete', session: id });
      this.#sessions.remove(id);
      this.#router.leave(id);
    } catch (e) {
      this.#notify(`Could not delete the session: ${message(e)}`, 'error');
    }
  }

  async setModel(model: string): Promise<void> {
    const cur = this.#router.current;
    if (!cur) return;
    try {
      await this.do({ do: 'set_model', session: cur.id, model });
    } catch (e) {
      this.#notify(`Could not change the model: ${message(e)}`, 'error');
    }
  }

  /** Chooses the tools the session offers from its next run on; undefined: every tool. */
  async setTools(tools: string[] | undefined): Promise<void> {
    const cur = this.#router.current;
    if (!cur) return;
    try {
      await this.do(tools ? { do: 'set_tools', session: cur.id, tools } : { do: 'set_tools', session: cur.id });
    } catch (e) {
      this.#notify(`Could not change the tools: ${message(e)}`, 'error');
    }
  }

  /** Sends the composer's text; keeps it when Send is refused. */
  async send(): Promise<void> {
    const cur = this.#router.current;
    if (!cur || cur.sending) return;
    const text = cur.draft.trim();
    if (!text) return;
    cur.sending = true;
    cur.sendError = null;
    try {
      await this.do({ do: 'send', session: cur.id, text });
      cur.draft = '';
    } catch (e) {
      cur.sendError = message(e);
    } finally {
      cur.sending = false;
    }
  }

  /** Compact now: the model summarises the session's older turns, between runs. */
  async compact(): Promise<void> {
    const cur = this.#router.current;
    if (!cur || this.compacting) return;
    this.compacting = true;
    try {
      const out = await this.do({ do: 'compact', session: cur.id });
      const c = out.compaction;
      this.#notify(
        c
          ? `Compacted: ${c.messages} messages summarised${c.tokens_before > 0 ? `, the prompt ~${c.tokens_before} → ~${c.tokens_after} tokens` : ''}.`
          : 'Compacted.',
      );
    } catch (e) {
      this.#notify(`Could not compact: ${message(e)}`, 'error');
    } finally {
      this.compacting = false;
    }
  }

  /**
   * Stop as the user asks for it (Esc, the Stop buttons): a run paused at a
   * checkpoint, where a Stop loses the pause and any edit not sent yet,
   * asks first; a run that goes stops at once.
   */
  requestStop(): void {
    const cur = this.#router.current;
    if (!cur?.active) return;
    if (cur.standing.pause != null) {
      this.stopConfirm = true;
      return;
    }
    void this.stop();
  }

  /** The user said yes to stopping the paused run. */
  async confirmStop(): Promise<void> {
    this.stopConfirm = false;
    await this.stop();
  }

  cancelStop(): void {
    this.stopConfirm = false;
  }

  async stop(): Promise<void> {
    const cur = this.#router.current;
    if (!cur) return;
    try {
      await this.do({ do: 'stop', session: cur.id });
    } catch (e) {
      this.#notify(`Could not stop the run: ${message(e)}`, 'error');
    }
  }

  /**
   * Stops one running command of the current session; the run goes on,
   * and the call's result (an event) says it was stopped.
   */
  async stopCall(callId: string): Promise<void> {
    const id = this.#router.current?.id;
    const key = id ? outputKey(id, callId) : '';
    if (!id || this.stoppingCalls.has(key)) return;
    this.stoppingCalls = new Set([...this.stoppingCalls, key]);
    try {
      await this.do({ do: 'stop_call', session: id, call_id: callId });
    } catch (e) {
      this.#notify(`Could not stop the command: ${message(e)}`, 'error');
    } finally {
      const next = new Set(this.stoppingCalls);
      next.delete(key);
      this.stoppingCalls = next;
    }
  }

  /** A stop of this call of the current session is on its way. */
  isStopping(callId: string): boolean {
    const id = this.#router.current?.id;
    return id != null && this.stoppingCalls.has(outputKey(id, callId));
  }

  /**
   * Answers an approval: once, for this session or always for this
   * workspace. A longer answer to a once-only question is refused by the
   * backend and the question stays open.
   */
  async answer(a: Approval, allow: boolean, scope: Scope = 'once'): Promise<void> {
    if (this.answering.has(a.id)) return;
    this.answering = new Set([...this.answering, a.id]);
    try {
      // The answer is an event: the question closes when it arrives.
      await this.do({ do: 'answer', session: a.session_id, ...(a.agent ? { agent: a.agent } : {}), call_id: a.call_id, allow, scope });
    } catch (e) {
      this.#notify(`Could not answer: ${message(e)}`, 'error');
    } finally {
      const next = new Set(this.answering);
      next.delete(a.id);
      this.answering = next;
    }
  }

  /** The open question about a call of the current session's own loop, if any. */
  approvalForCall(callId: string): Approval | undefined {
    return this.#router.current?.asks.find((a) => a.call_id === callId && !a.agent);
  }

  /** The open questions of the sub-agent of the task call laneId (its lane's). */
  approvalsOfLane(laneId: string): Approval[] {
    return this.#router.current?.asks.filter((a) => a.agent === laneId) ?? [];
  }
}
