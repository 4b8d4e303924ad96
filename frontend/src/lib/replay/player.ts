// Plays a recording of the Go engine (recording.ts): the steps the engine
// took go out as they were recorded, and at each command step the player
// waits for the UI to send that command (the method and its arguments must
// be the recorded ones). Anything else is a problem that fails the spec
// (check()), and a command the UI never sends leaves it waiting
// (expectDone()). Reads are answered from what the recording holds up to
// where it is. ReplayBridge (bridge.ts) is the Bridge over it.
import { BridgeError, type Listener, type Unsubscribe } from '../bridge/types';
import { EventHub } from '../bridge/hub';
import { isRecord, parseEvent, settingsOf, type Delta, type JsonValue, type Settings, type SettingsWire, type Summary, type TraceEvent } from '../types';
import { summaryAfter } from '../timeline/standing';
import { commandOf, describe, sameJson, stepKind, type RecordedCall, type Recording, type Step } from './recording';
import type { ReplayCall, ReplayOptions } from './options';

/** Names replay errors in the UI and marks replay code in a bundle (scripts/check-bundle.mjs). */
export const REPLAY_MARK = 'loupe:replay';

export class RecordingPlayer {
  readonly recording: Recording;
  /** Every call the UI made, commands and reads. */
  readonly calls: ReplayCall[] = [];
  /** What went against the recording: a spec fails when this is not empty. */
  readonly problems: string[] = [];

  protected readonly hub: EventHub;
  readonly #steps: Step[];
  readonly #paceMs: number;
  protected readonly lenient: boolean;
  /** The next step to play. */
  #pos = 0;
  protected current: Summary | null;
  protected played: TraceEvent[] = [];
  protected settings: Settings;
  readonly #rejects = new Map<string, string[]>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  protected closed = false;

  constructor(recording: Recording, opts: ReplayOptions = {}) {
    this.recording = recording;
    this.#steps = recording.steps;
    this.hub = new EventHub(opts.schedule ?? ((f) => queueMicrotask(f)));
    this.#paceMs = opts.paceMs ?? 0;
    this.lenient = opts.lenient ?? false;
    // What a recording holds Go wrote from the types go.ts declares.
    this.current = recording.session ? (recording.session as unknown as Summary) : null;
    this.settings = settingsOf(recording.settings as unknown as SettingsWire);
    if (opts.from !== undefined) {
      const at = this.#steps.findIndex((s) => s.mark === opts.from);
      if (at < 0) throw new Error(`${REPLAY_MARK}: ${recording.scenario} has no mark "${opts.from}"`);
      // History: what happened before is stored, not streamed.
      while (this.#pos < at) {
        const s = this.#steps[this.#pos++]!;
        if (s.command) this.#took(s.command, s.command.args);
        else this.#apply(s, false);
      }
    }
    this.#play();
  }

  // --- for specs ---------------------------------------------------------------

  /** Fails when the UI sent a command the recording does not have next. */
  check(): void {
    if (this.problems.length) throw new Error(`${REPLAY_MARK}: ${this.recording.scenario}: ${this.problems.join('; ')}`);
  }

  /** The step the replay waits at ("" at the end). */
  get waitingFor(): string {
    const s = this.#steps[this.#pos];
    if (!s) return '';
    if (s.command) return `${s.command.method}(${s.command.args.map((a) => JSON.stringify(a)).join(', ')})`;
    return stepKind(s);
  }

  /** Fails unless every recorded command was sent, and nothing else (use inside waitFor). */
  expectDone(): void {
    this.check();
    this.playNow();
    if (this.#pos < this.#steps.length) throw new Error(`${REPLAY_MARK}: ${this.recording.scenario} still waits for ${this.waitingFor}`);
  }

  /** Fails unless the replay waits for this command next, by method or by what it does ("step"…) (use inside waitFor). */
  expectWaitingFor(method: string): void {
    this.check();
    this.playNow();
    const c = this.#steps[this.#pos]?.command;
    const named = c && (c.method === method || commandOf(c.method, c.args)?.['do'] === method);
    if (!named) throw new Error(`${REPLAY_MARK}: waits for ${this.waitingFor || 'nothing'}, not ${method}`);
  }

  /** The recorded outside change happens now (a file edited by hand). */
  outside(): void {
    this.playNow();
    const s = this.#steps[this.#pos];
    if (s?.outside === undefined) throw new Error(`${REPLAY_MARK}: waits for ${this.waitingFor || 'nothing'}, not an outside change`);
    this.#pos++;
    this.#play();
  }

  /** The next call of method fails with message, without using up the recording (for the UI's error paths). */
  reject(method: string, message: string): void {
    this.#rejects.set(method, [...(this.#rejects.get(method) ?? []), message]);
  }

  /** Throws the rejection a spec set for the next call of method, if any (reject). */
  protected refuseIfRejected(method: string, command = method): void {
    const rejected = this.#rejects.get(method)?.shift();
    if (rejected !== undefined) throw new BridgeError(rejected, command);
  }

  /** The events played so far. */
  get events(): readonly TraceEvent[] {
    return this.played;
  }

  get summary(): Summary | null {
    return this.current;
  }

  callsOf(method: string): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  /** The commands the UI sent (App.Do) that do what is named ("step"…), in order. */
  commandsOf(what: string): Record<string, unknown>[] {
    return this.calls.map((c) => commandOf(c.method, c.args)).filter((c): c is Record<string, unknown> => c?.['do'] === what);
  }

  /** Delivers queued batches now. */
  flush(): void {
    this.hub.flush();
  }

  // --- playing -----------------------------------------------------------------

  /** Applies one step to the state; live, it also goes to the listeners. */
  #apply(s: Step, live: boolean): void {
    if (s.event !== undefined) {
      const e = parseEvent(s.event);
      if (!e) {
        this.problems.push(`step ${this.#pos - 1} is not an event the UI can parse`);
        return;
      }
      this.played.push(e);
      // The session list learns how a session stands from its events, as
      // the window does.
      if (this.current) this.current = summaryAfter(this.current, e);
      if (live) this.hub.push('events', e);
    } else if (s.delta !== undefined) {
      if (live) this.hub.push('deltas', s.delta as unknown as Delta);
    }
  }

  /** Plays until the next step the UI or the spec must take (a command, an outside change) or the end. */
  #play(): void {
    if (this.#paceMs > 0) {
      this.#schedulePaced();
      return;
    }
    this.playNow();
  }

  protected playNow(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    for (let s = this.#steps[this.#pos]; s && !s.command && s.outside === undefined; s = this.#steps[this.#pos]) {
      this.#pos++;
      this.#apply(s, true);
    }
  }

  #schedulePaced(): void {
    if (this.#timer || this.closed) return;
    const s = this.#steps[this.#pos];
    if (!s || s.command || s.outside !== undefined) return;
    // Deltas stream faster than events commit.
    const wait = s.delta !== undefined ? this.#paceMs / 6 : s.event !== undefined ? this.#paceMs : 0;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#pos++;
      this.#apply(s, true);
      this.#schedulePaced();
    }, wait);
  }

  /** A command the recording took: what it changes of the replay's own state. */
  #took(c: RecordedCall, args: unknown[]): void {
    if (c.error !== undefined) return;
    if (c.method === 'saveSettings') this.settings = settingsOf(args[0] as SettingsWire);
    const cmd = commandOf(c.method, args);
    if (!cmd) return;
    if (isRecord(c.result) && isRecord(c.result['summary'])) this.current = c.result['summary'] as unknown as Summary;
    if (cmd['do'] === 'delete') {
      this.current = null;
      this.played = [];
      this.hub.forget(String(cmd['session']));
    }
  }

  /** The UI sends a command: it must be the one the recording has next. */
  protected async command(method: string, args: unknown[]): Promise<JsonValue | undefined> {
    this.calls.push({ method, args });
    this.refuseIfRejected(method);
    // What the engine sent before this point has arrived by now.
    this.playNow();
    const s = this.#steps[this.#pos];
    const c = s?.command;
    const sent = `${method}(${args.map((a) => JSON.stringify(a)).join(', ')})`;
    const sentCmd = commandOf(method, args);
    const anyText = this.lenient && sentCmd?.['do'] === 'send' && c != null && commandOf(c.method, c.args)?.['do'] === 'send';
    if (!c || c.method !== method || (!anyText && !sameJson(args, c.args))) {
      const want = s ? (c ? `${c.method}(${c.args.map((a) => JSON.stringify(a)).join(', ')})` : stepKind(s)) : 'nothing more';
      const problem = `the UI sent ${sent} where the recording has ${want}`;
      if (!this.lenient) this.problems.push(problem);
      throw new BridgeError(this.lenient ? `This demo plays a recorded session: ${c ? `next it does ${describe(c)}` : 'it has nothing more to show'}.` : `${REPLAY_MARK}: ${problem}`, String(sentCmd?.['do'] ?? method));
    }
    this.#pos++;
    this.#took(c, args);
    // The engine answers once the call has returned, as it does in the
    // window: a bound method returns before its run gets far.
    setTimeout(() => this.#play(), 0);
    if (c.error !== undefined) throw new BridgeError(c.error, String(sentCmd?.['do'] ?? method));
    return c.result;
  }

  /**
   * A read answered from the recording: the last answer recorded before the
   * step the replay waits at, else the first one after it.
   */
  protected query(method: string, args: unknown[]): JsonValue | undefined {
    this.calls.push({ method, args });
    this.refuseIfRejected(method);
    this.playNow();
    const found = this.recorded(method, args);
    if (!found) throw new BridgeError(`${REPLAY_MARK}: ${this.recording.scenario} has no answer to ${method}`, method);
    if (found.error !== undefined) throw new BridgeError(found.error, method);
    return found.result;
  }

  /** The recorded answer to a read, as #query picks it (with past, only one played already); undefined when there is none. */
  protected recorded(method: string, args: unknown[], past = false): RecordedCall | undefined {
    let found: RecordedCall | undefined;
    for (let i = 0; i < (past ? this.#pos : this.#steps.length); i++) {
      const q = this.#steps[i]!.query;
      if (!q || q.method !== method || !sameJson(args, q.args)) continue;
      if (i >= this.#pos && found) break;
      found = q;
      if (i >= this.#pos) break;
    }
    return found;
  }

  /** Stops playing. */
  close(): void {
    this.closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  onEvents(fn: Listener<TraceEvent>): Unsubscribe {
    return this.hub.on('events', fn);
  }

  onDeltas(fn: Listener<Delta>): Unsubscribe {
    return this.hub.on('deltas', fn);
  }
}
