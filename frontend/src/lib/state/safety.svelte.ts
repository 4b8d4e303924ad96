// The app's safety state: which OS protections commands get, the
// workspace folders' settings, and putting files back (undo a turn,
// restore to before a step), with the user's yes first when files changed
// outside Loupe. LoupeApp holds one and shows it under its own names.
import type { Bridge } from '../bridge/types';
import { cleanRule, limitsKey, limitsToLoad } from '../safety';
import type { Conflict, Protections, Rule, RuleCheck, RuleLimits, ToolInfo } from '../types';
import { message } from './errors';
import { WorkspaceState } from './workspace.svelte';

/** Files to put back that changed outside Loupe: the user says yes (overwrite) or no first. */
export interface RestoreConfirm {
  sessionId: string;
  /** Undo of a run (a turn), or a restore to before an event. */
  target: { run: number } | { seq: number };
  conflicts: Conflict[];
}

export class SafetyState {
  /** Which OS protections commands get here; null until known. */
  protections = $state.raw<Protections | null>(null);
  /** Commands are confined by the OS (true until the probe says otherwise). */
  sandboxed = $derived(this.protections == null || this.protections.sandboxed);
  /** A restore is on its way. */
  restoring = $state(false);
  /** A restore waits for the user's yes: files changed outside Loupe. */
  restoreConfirm = $state.raw<RestoreConfirm | null>(null);
  /**
   * How many commands each session's Undo, Restore or fork copy waits for
   * to end (of other sessions in the same folder, or its MCP servers'
   * calls), by session; a session that waits for none is absent.
   */
  waits = $state.raw<Record<string, number>>({});
  /** The built-in tools, as the registry lists them (App.Tools); empty until known. */
  tools = $state.raw<readonly ToolInfo[]>([]);
  /** How each rule reads and what is wrong with it, as Go judges it (App.CheckRule), by limitsKey; filled by loadRuleChecks. */
  ruleChecks = $state.raw<Record<string, RuleCheck>>({});
  /** What command rules cannot hold, by limitsKey (the backend's permission.Rule.Limits); filled by loadRuleLimits. */
  ruleLimits = $state.raw<Record<string, RuleLimits>>({});

  readonly #bridge: Bridge;
  /** The open session's id, or null. */
  readonly #currentId: () => string | null;
  readonly #notify: (msg: string, tone?: 'info' | 'error') => void;
  #workspaces = new Map<string, WorkspaceState>();
  #limitsAsked = new Set<string>();
  #checksAsked = new Set<string>();

  constructor(bridge: Bridge, currentId: () => string | null, notify: (msg: string, tone?: 'info' | 'error') => void) {
    this.#bridge = bridge;
    this.#currentId = currentId;
    this.#notify = notify;
  }

  /** Listens to the waits for commands to end; returns what stops it. */
  watchWaits(): () => void {
    return this.#bridge.onFilesWaiting((batch) => {
      const next = { ...this.waits };
      for (const w of batch) {
        if (w.commands > 0) next[w.session] = w.commands;
        else delete next[w.session];
      }
      this.waits = next;
    });
  }

  /** Ends the session's waits: its Undo, Restore or fork copy fails, having changed nothing. */
  async stopWaiting(session: string): Promise<void> {
    try {
      await this.#bridge.stopWaiting(session);
    } catch (e) {
      this.#notify(`Could not stop waiting: ${message(e)}`, 'error');
    }
  }

  async loadProtections(): Promise<void> {
    try {
      this.protections = await this.#bridge.protections();
    } catch (e) {
      this.#notify(`Could not find out which protections commands get: ${message(e)}`, 'error');
    }
  }

  async loadTools(): Promise<void> {
    try {
      this.tools = await this.#bridge.tools();
    } catch (e) {
      this.#notify(`Could not list the tools: ${message(e)}`, 'error');
    }
  }

  /** Asks Go how a rule reads and what is wrong with it; the answer is kept in ruleChecks too. */
  async checkRule(r: Rule): Promise<RuleCheck> {
    const key = limitsKey(r);
    const known = this.ruleChecks[key];
    if (known) return known;
    const c = await this.#bridge.checkRule(cleanRule(r));
    this.ruleChecks = { ...this.ruleChecks, [key]: c };
    return c;
  }

  /** Asks Go about each rule not asked about yet (the list shown, the examples, the path rules offered). */
  async loadRuleChecks(rules: readonly Rule[]): Promise<void> {
    const todo = rules.filter((r) => !(limitsKey(r) in this.ruleChecks) && !this.#checksAsked.has(limitsKey(r)));
    for (const r of todo) this.#checksAsked.add(limitsKey(r));
    const failed: string[] = [];
    await Promise.all(
      todo.map(async (r) => {
        try {
          await this.checkRule(r);
        } catch (e) {
          this.#checksAsked.delete(limitsKey(r));
          failed.push(message(e));
        }
      }),
    );
    if (failed.length) this.#notify(`Could not check a rule: ${failed[0]}`, 'error');
  }

  /** Asks the backend what the rules cannot hold, for those not asked about yet. */
  async loadRuleLimits(rules: readonly Rule[]): Promise<void> {
    const todo = limitsToLoad(rules, this.ruleLimits).filter((r) => !this.#limitsAsked.has(limitsKey(r)));
    for (const r of todo) this.#limitsAsked.add(limitsKey(r));
    const failed: string[] = [];
    await Promise.all(
      todo.map(async (r) => {
        try {
          const l = await this.#bridge.ruleLimits(r);
          this.ruleLimits = { ...this.ruleLimits, [limitsKey(r)]: l };
        } catch (e) {
          this.#limitsAsked.delete(limitsKey(r)); // ask again next time
          failed.push(message(e));
        }
      }),
    );
    if (failed.length) this.#notify(`Could not find out what a rule cannot check: ${failed[0]}`, 'error');
  }

  /** The safety settings of a workspace folder (one state per folder, kept while the app runs). */
  workspaceOf(dir: string): WorkspaceState {
    let ws = this.#workspaces.get(dir);
    if (!ws) {
      ws = new WorkspaceState(this.#bridge, dir);
      this.#workspaces.set(dir, ws);
    }
    return ws;
  }

  /** "Undo this turn": puts the files back as they were before the run. */
  undoRun(run: number): Promise<void> {
    return this.#restore({ run }, false);
  }

  /** "Restore files to before this step": puts back every file changed at or after event seq. */
  restoreFiles(seq: number): Promise<void> {
    return this.#restore({ seq }, false);
  }

  /** The user said yes: overwrite the files that changed outside Loupe. */
  confirmRestore(): Promise<void> {
    const c = this.restoreConfirm;
    if (!c || this.#currentId() !== c.sessionId) {
      this.restoreConfirm = null;
      return Promise.resolve();
    }
    return this.#restore(c.target, true);
  }

  cancelRestore(): void {
    this.restoreConfirm = null;
  }

  async #restore(target: RestoreConfirm['target'], force: boolean): Promise<void> {
    const id = this.#currentId();
    if (!id || this.restoring) return;
    this.restoring = true;
    try {
      const out = await this.#bridge.do(
        'run' in target ? { do: 'undo_run', session: id, run: target.run, force } : { do: 'restore_files', session: id, seq: target.seq, force },
      );
      const res = out.restore ?? { done: false, restored: [], conflicts: [] };
      if (!res.done) {
        this.restoreConfirm = { sessionId: id, target, conflicts: res.conflicts ?? [] };
        return;
      }
      this.restoreConfirm = null;
      const n = (res.restored ?? []).length;
      const kept = (res.conflicts ?? []).filter((c) => c.kept).map((c) => c.path);
      const left = kept.length === 0 ? '' : `; left as ${kept.length === 1 ? 'it is' : 'they are'}: ${kept.join(', ')}`;
      if (n === 0 && kept.length === 0) this.#notify('Nothing to put back: no file was changed there.');
      else if (n === 0) this.#notify(`Nothing put back${left}`);
      else this.#notify(`Put back ${n === 1 ? '1 file' : `${n} files`}: ${(res.restored ?? []).join(', ')}${left}`);
    } catch (e) {
      this.restoreConfirm = null;
      // Stop waiting is the user's choice, not a failure (workspace.ErrStoppedWaiting).
      if (message(e).startsWith('stopped waiting')) this.#notify('Stopped waiting: no file was changed.');
      else this.#notify(`Could not restore the files: ${message(e)}`, 'error');
    } finally {
      this.restoring = false;
    }
  }
}
