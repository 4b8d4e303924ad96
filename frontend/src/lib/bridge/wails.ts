// The only module that imports the Wails bindings (../../../wailsjs).
// Results are converted to our own types here, so that the generated
// binding classes never leak into the rest of the UI.
import * as App from '../../../wailsjs/go/main/App';
import { BrowserOpenURL, EventsOnMultiple } from '../../../wailsjs/runtime/runtime';
import {
  CHANNELS,
  approvalClosedOf,
  approvalOf,
  deltaOf,
  isRecord,
  parseEvent,
  type Approval,
  type ApprovalClosed,
  type Breakpoints,
  type Delta,
  type ModelInfo,
  type Protections,
  type RequestEdit,
  type RestoreResult,
  type Rule,
  type RuleLimits,
  type Scope,
  type SessionSnapshot,
  type Settings,
  type StatusInfo,
  type Summary,
  type TraceEvent,
  type WorkspaceInfo,
  protectionsOf,
  restoreResultOf,
  ruleLimitsOf,
  settingsOf,
  summaryOf,
  workspaceInfoOf,
} from '../types';
import { EventHub, frameScheduler, type Scheduler } from './hub';
import { toBridgeError, type Bridge, type Listener, type Unsubscribe } from './types';

/** True when the page runs inside a Wails window (bindings are injected). */
export function wailsAvailable(): boolean {
  const w = globalThis as { go?: { main?: { App?: unknown } }; runtime?: unknown };
  return Boolean(w.go?.main?.App && w.runtime);
}

async function call<T>(command: string, run: () => Promise<unknown>): Promise<T> {
  try {
    return (await run()) as T;
  } catch (e) {
    throw toBridgeError(command, e);
  }
}

function list<T>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

/** Parses a list of events from the backend, dropping anything malformed. */
export function parseEvents(v: unknown): TraceEvent[] {
  const out: TraceEvent[] = [];
  for (const raw of list<unknown>(v)) {
    const e = parseEvent(raw);
    if (e) out.push(e);
    else console.warn('loupe: dropped a malformed event', raw);
  }
  return out;
}

export class WailsBridge implements Bridge {
  #hub: EventHub;
  #off: Unsubscribe[] = [];

  constructor(schedule: Scheduler = frameScheduler) {
    this.#hub = new EventHub(schedule);
    // Each runtime event is registered exactly once, for the life of the
    // bridge; UI code subscribes to the hub instead.
    this.#off.push(
      EventsOnMultiple(
        CHANNELS.event,
        (v: unknown) => {
          const e = parseEvent(v);
          if (e) this.#hub.push('events', e);
          else console.warn('loupe: dropped a malformed event', v);
        },
        -1,
      ),
      EventsOnMultiple(
        CHANNELS.delta,
        (v: unknown) => {
          const d = deltaOf(v);
          if (d) this.#hub.push('deltas', d);
        },
        -1,
      ),
      EventsOnMultiple(
        CHANNELS.session,
        (v: unknown) => {
          if (isRecord(v) && typeof v['id'] === 'string') this.#hub.push('sessions', summaryOf(v));
        },
        -1,
      ),
      EventsOnMultiple(
        CHANNELS.approval,
        (v: unknown) => {
          const a = approvalOf(v);
          if (a) this.#hub.push('approvals', a);
        },
        -1,
      ),
      EventsOnMultiple(
        CHANNELS.approvalClosed,
        (v: unknown) => {
          const c = approvalClosedOf(v);
          if (c) this.#hub.push('approvalsClosed', c);
        },
        -1,
      ),
    );
  }

  /** Unregisters the runtime listeners. */
  close(): void {
    for (const off of this.#off) off();
    this.#off = [];
  }

  status(): Promise<StatusInfo> {
    return call('Status', () => App.Status());
  }

  async listModels(): Promise<ModelInfo[]> {
    return list(await call('ListModels', () => App.ListModels()));
  }

  async listSessions(): Promise<Summary[]> {
    return list<Record<string, unknown>>(await call('ListSessions', () => App.ListSessions())).map(summaryOf);
  }

  async newSession(workspace: string, model: string): Promise<Summary> {
    return summaryOf(await call<Record<string, unknown>>('NewSession', () => App.NewSession(workspace, model)));
  }

  async deleteSession(id: string): Promise<void> {
    await call('DeleteSession', () => App.DeleteSession(id));
    this.#hub.forget(id);
  }

  async setModel(id: string, model: string): Promise<void> {
    await call('SetModel', () => App.SetModel(id, model));
  }

  async openSession(id: string): Promise<SessionSnapshot> {
    const r = await call<unknown>('OpenSession', () => App.OpenSession(id));
    if (!isRecord(r) || !isRecord(r['summary'])) throw toBridgeError('OpenSession', 'The session could not be read.');
    return {
      summary: summaryOf(r['summary']),
      events: parseEvents(r['events']),
      approvals: list<Approval>(r['approvals']),
    };
  }

  async eventPayload(sessionId: string, seq: number): Promise<string> {
    const body = await call<unknown>('EventPayload', () => App.EventPayload(sessionId, seq));
    if (typeof body !== 'string') throw toBridgeError('EventPayload', 'The event could not be read.');
    return body;
  }

  async send(id: string, text: string): Promise<void> {
    await call('Send', () => App.Send(id, text));
  }

  async stop(id: string): Promise<void> {
    await call('Stop', () => App.Stop(id));
  }

  async answerFor(approvalId: string, allow: boolean, scope: Scope): Promise<void> {
    await call('AnswerFor', () => App.AnswerFor(approvalId, allow, scope));
  }

  async pickWorkspace(): Promise<string> {
    const dir = await call<unknown>('PickWorkspace', () => App.PickWorkspace());
    return typeof dir === 'string' ? dir : '';
  }

  async pickFolder(title: string): Promise<string> {
    const dir = await call<unknown>('PickFolder', () => App.PickFolder(title));
    return typeof dir === 'string' ? dir : '';
  }

  async rawRequest(sessionId: string, seq: number): Promise<string> {
    const body = await call<unknown>('RawRequest', () => App.RawRequest(sessionId, seq));
    return typeof body === 'string' ? body : JSON.stringify(body);
  }

  async getSettings(): Promise<Settings> {
    return settingsOf(await call<unknown>('GetSettings', () => App.GetSettings()));
  }

  async saveSettings(s: Settings): Promise<void> {
    // The generated parameter type is a class with helper methods; the Go
    // side only reads the JSON fields, which a plain object carries.
    const plain = { ...s, tools: { ...s.tools }, rules: s.rules.map((r) => ({ ...r })) };
    await call('SaveSettings', () => App.SaveSettings(plain as unknown as Parameters<typeof App.SaveSettings>[0]));
  }

  async ruleLimits(rule: Rule): Promise<RuleLimits> {
    const plain = { ...rule };
    return ruleLimitsOf(await call<unknown>('RuleLimits', () => App.RuleLimits(plain as unknown as Parameters<typeof App.RuleLimits>[0])));
  }

  async workspace(dir: string): Promise<WorkspaceInfo> {
    return workspaceInfoOf(await call<unknown>('Workspace', () => App.Workspace(dir)));
  }

  async trustWorkspace(dir: string, trust: boolean): Promise<void> {
    await call('TrustWorkspace', () => App.TrustWorkspace(dir, trust));
  }

  async setWorkspaceNetwork(dir: string, allow: boolean): Promise<void> {
    await call('SetWorkspaceNetwork', () => App.SetWorkspaceNetwork(dir, allow));
  }

  async setWorkspaceExpose(dir: string, paths: string[]): Promise<void> {
    await call('SetWorkspaceExpose', () => App.SetWorkspaceExpose(dir, [...paths]));
  }

  async forgetGrants(dir: string): Promise<void> {
    await call('ForgetGrants', () => App.ForgetGrants(dir));
  }

  async protections(): Promise<Protections> {
    return protectionsOf(await call<unknown>('Protections', () => App.Protections()));
  }

  async restoreFiles(id: string, seq: number, force: boolean): Promise<RestoreResult> {
    return restoreResultOf(await call<unknown>('RestoreFiles', () => App.RestoreFiles(id, seq, force)));
  }

  async undoRun(id: string, run: number, force: boolean): Promise<RestoreResult> {
    return restoreResultOf(await call<unknown>('UndoRun', () => App.UndoRun(id, run, force)));
  }

  async setStepping(id: string, on: boolean): Promise<void> {
    await call('SetStepping', () => App.SetStepping(id, on));
  }

  async setBreakpoints(id: string, bp: Breakpoints): Promise<void> {
    const plain = { points: [...(bp.points ?? [])], tools: [...(bp.tools ?? [])] };
    await call('SetBreakpoints', () => App.SetBreakpoints(id, plain as unknown as Parameters<typeof App.SetBreakpoints>[1]));
  }

  async step(id: string): Promise<void> {
    await call('Step', () => App.Step(id));
  }

  async continueRun(id: string): Promise<void> {
    await call('Continue', () => App.Continue(id));
  }

  async editRequest(id: string, edit: RequestEdit): Promise<void> {
    // Plain JSON, like saveSettings: the Go side reads the fields only.
    await call('EditRequest', () => App.EditRequest(id, { ...edit } as unknown as Parameters<typeof App.EditRequest>[1]));
  }

  async editArgs(id: string, args: string): Promise<void> {
    await call('EditArgs', () => App.EditArgs(id, args));
  }

  async skipCall(id: string, observation: string): Promise<void> {
    await call('SkipCall', () => App.SkipCall(id, observation));
  }

  async editResult(id: string, content: string): Promise<void> {
    await call('EditResult', () => App.EditResult(id, content));
  }

  openURL(url: string): void {
    BrowserOpenURL(url);
  }

  onEvents(fn: Listener<TraceEvent>): Unsubscribe {
    return this.#hub.on('events', fn);
  }

  onDeltas(fn: Listener<Delta>): Unsubscribe {
    return this.#hub.on('deltas', fn);
  }

  onSessions(fn: Listener<Summary>): Unsubscribe {
    return this.#hub.on('sessions', fn);
  }

  onApprovals(fn: Listener<Approval>): Unsubscribe {
    return this.#hub.on('approvals', fn);
  }

  onApprovalsClosed(fn: Listener<ApprovalClosed>): Unsubscribe {
    return this.#hub.on('approvalsClosed', fn);
  }
}
