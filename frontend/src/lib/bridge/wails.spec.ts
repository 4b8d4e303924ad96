// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHANNELS, type TraceEvent } from '../types';
import { EventLog } from '../testing/events';
import type { Scheduler } from './hub';
import { BridgeError } from './types';
import { WailsBridge, wailsAvailable } from './wails';

type Handler = (...data: unknown[]) => void;

/** Stands in for what the Wails window injects: window.runtime and window.go. */
function installWails() {
  const handlers = new Map<string, Handler[]>();
  const registrations: string[] = [];
  const runtime = {
    EventsOnMultiple: vi.fn((name: string, cb: Handler) => {
      registrations.push(name);
      handlers.set(name, [...(handlers.get(name) ?? []), cb]);
      return () => handlers.set(name, (handlers.get(name) ?? []).filter((h) => h !== cb));
    }),
    EventsOff: vi.fn(),
    EventsEmit: vi.fn(),
    BrowserOpenURL: vi.fn(),
  };
  const App: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  const w = window as unknown as { runtime?: unknown; go?: unknown };
  w.runtime = runtime;
  w.go = { main: { App } };
  return {
    runtime,
    App,
    registrations,
    emit: (name: string, data: unknown) => {
      for (const h of handlers.get(name) ?? []) h(data);
    },
  };
}

function manual() {
  const pending: (() => void)[] = [];
  const schedule: Scheduler = (f) => pending.push(f);
  return { schedule, frame: () => pending.splice(0).forEach((f) => f()) };
}

describe('WailsBridge', () => {
  let wails: ReturnType<typeof installWails>;

  beforeEach(() => {
    wails = installWails();
  });
  afterEach(() => {
    const w = window as unknown as { runtime?: unknown; go?: unknown };
    delete w.runtime;
    delete w.go;
  });

  it('knows when it runs inside Wails', () => {
    expect(wailsAvailable()).toBe(true);
    delete (window as unknown as { go?: unknown }).go;
    expect(wailsAvailable()).toBe(false);
  });

  it('registers each runtime event exactly once, however many listeners subscribe', () => {
    const bridge = new WailsBridge(manual().schedule);
    bridge.onEvents(() => {});
    bridge.onEvents(() => {});
    bridge.onDeltas(() => {});
    expect([...wails.registrations].sort()).toEqual(Object.values(CHANNELS).sort());
    bridge.close();
  });

  it('delivers events batched per frame, parsed and de-duplicated', () => {
    const m = manual();
    const bridge = new WailsBridge(m.schedule);
    const got: TraceEvent[][] = [];
    bridge.onEvents((b) => got.push(b));
    const log = new EventLog('s1');
    const e1 = log.user('hello');
    const e2 = log.request();
    wails.emit(CHANNELS.event, e1);
    wails.emit(CHANNELS.event, e2);
    wails.emit(CHANNELS.event, e1);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    wails.emit(CHANNELS.event, { nonsense: true });
    warn.mockRestore();
    expect(got).toHaveLength(0);
    m.frame();
    expect(got).toHaveLength(1);
    expect(got[0]!.map((e) => e.seq)).toEqual([1, 2]);
    bridge.close();
  });

  it('passes deltas, sessions and approvals through', () => {
    const m = manual();
    const bridge = new WailsBridge(m.schedule);
    const deltas = vi.fn();
    const sessions = vi.fn();
    const closed = vi.fn();
    bridge.onDeltas(deltas);
    bridge.onSessions(sessions);
    bridge.onApprovalsClosed(closed);
    wails.emit(CHANNELS.delta, { session_id: 's1', run: 1, round: 2, content: 'He' });
    wails.emit(CHANNELS.session, { id: 's1', title: 't', running: true });
    wails.emit(CHANNELS.approvalClosed, { id: 'ap1', decision: 'allow' });
    m.frame();
    expect(deltas).toHaveBeenCalledWith([{ session_id: 's1', run: 1, round: 2, content: 'He', thinking: '' }]);
    expect(sessions.mock.calls[0]![0][0]).toMatchObject({ id: 's1', running: true });
    expect(closed).toHaveBeenCalledWith([{ id: 'ap1', decision: 'allow' }]);
    bridge.close();
  });

  it('stops listening to the runtime when closed', () => {
    const m = manual();
    const bridge = new WailsBridge(m.schedule);
    const fn = vi.fn();
    bridge.onEvents(fn);
    bridge.close();
    wails.emit(CHANNELS.event, new EventLog().user('x'));
    m.frame();
    expect(fn).not.toHaveBeenCalled();
  });

  it('calls the bound Go methods with their arguments', async () => {
    const bridge = new WailsBridge(manual().schedule);
    wails.App['Send'] = vi.fn(async () => undefined);
    wails.App['RawRequest'] = vi.fn(async () => '{"model":"m"}');
    wails.App['AnswerFor'] = vi.fn(async () => undefined);
    await bridge.send('s1', 'do it');
    expect(wails.App['Send']).toHaveBeenCalledWith('s1', 'do it');
    expect(await bridge.rawRequest('s1', 7)).toBe('{"model":"m"}');
    expect(wails.App['RawRequest']).toHaveBeenCalledWith('s1', 7);
    await bridge.answerFor('ap1', false, 'once');
    expect(wails.App['AnswerFor']).toHaveBeenCalledWith('ap1', false, 'once');
    bridge.close();
  });

  it('turns a rejected Go call (a string) into a readable BridgeError', async () => {
    const bridge = new WailsBridge(manual().schedule);
    wails.App['Send'] = () => Promise.reject('model gemma3:1b does not support tools');
    const err = await bridge.send('s1', 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BridgeError);
    expect((err as BridgeError).message).toBe('model gemma3:1b does not support tools');
    bridge.close();
  });

  it('treats nil lists from Go as empty and checks snapshot events', async () => {
    const bridge = new WailsBridge(manual().schedule);
    wails.App['ListSessions'] = async () => null;
    wails.App['ListModels'] = async () => null;
    const log = new EventLog('s1');
    log.user('hi');
    wails.App['OpenSession'] = async () => ({
      summary: { id: 's1' },
      events: [...log.events, { kind: 'broken' }],
      approvals: null,
    });
    expect(await bridge.listSessions()).toEqual([]);
    expect(await bridge.listModels()).toEqual([]);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const snap = await bridge.openSession('s1');
    warn.mockRestore();
    expect(snap.events.map((e) => e.kind)).toEqual(['user_message']);
    expect(snap.approvals).toEqual([]);
    bridge.close();
  });

  it("keeps the preview marks of an opened session's events, and fetches an event whole as its stored JSON", async () => {
    const bridge = new WailsBridge(manual().schedule);
    const log = new EventLog('s1');
    const user = log.user('the start of a long message');
    const marks = { '/text': { bytes: 9000, lines: 200 } };
    wails.App['OpenSession'] = async () => ({ summary: { id: 's1' }, events: [{ ...user, preview: marks }], approvals: [] });
    const snap = await bridge.openSession('s1');
    expect(snap.events[0]!.preview).toEqual(marks);
    const stored = '{"text":"the whole \\u003c message"}';
    const payload = vi.fn(async () => stored);
    wails.App['EventPayload'] = payload;
    expect(await bridge.eventPayload('s1', user.seq)).toBe(stored);
    expect(payload).toHaveBeenCalledWith('s1', user.seq);
    wails.App['EventPayload'] = async () => Promise.reject('store: session "s1" has no event 7: not found');
    await expect(bridge.eventPayload('s1', 7)).rejects.toThrow(/has no event 7/);
    bridge.close();
  });

  it('calls the step-through methods and passes their refusals on', async () => {
    const bridge = new WailsBridge(manual().schedule);
    for (const name of ['SetStepping', 'SetBreakpoints', 'Step', 'Continue', 'EditRequest', 'EditArgs', 'SkipCall', 'EditResult']) {
      wails.App[name] = vi.fn(async () => undefined);
    }
    await bridge.setStepping('s1', true);
    await bridge.setBreakpoints('s1', { points: ['before_tool'], tools: null });
    await bridge.step('s1');
    await bridge.continueRun('s1');
    await bridge.editRequest('s1', { system: 'Be brief.', messages: [{ seq: 3, content: 'x' }] });
    await bridge.editArgs('s1', '{"path":"a"}');
    await bridge.skipCall('s1', 'skipped it');
    await bridge.editResult('s1', 'new result');
    expect(wails.App['SetStepping']).toHaveBeenCalledWith('s1', true);
    // Go decodes a JSON array, never null, for the breakpoints' lists.
    expect(wails.App['SetBreakpoints']).toHaveBeenCalledWith('s1', { points: ['before_tool'], tools: [] });
    expect(wails.App['Step']).toHaveBeenCalledWith('s1');
    expect(wails.App['Continue']).toHaveBeenCalledWith('s1');
    expect(wails.App['EditRequest']).toHaveBeenCalledWith('s1', { system: 'Be brief.', messages: [{ seq: 3, content: 'x' }] });
    expect(wails.App['EditArgs']).toHaveBeenCalledWith('s1', '{"path":"a"}');
    expect(wails.App['SkipCall']).toHaveBeenCalledWith('s1', 'skipped it');
    expect(wails.App['EditResult']).toHaveBeenCalledWith('s1', 'new result');
    wails.App['EditArgs'] = () => Promise.reject('invalid arguments for read_file: missing required property "path"');
    const err = await bridge.editArgs('s1', '{}').catch((e: unknown) => e);
    expect((err as BridgeError).message).toContain('missing required property "path"');
    wails.App['Step'] = () => Promise.reject('step-through is not available yet');
    await expect(bridge.step('s1')).rejects.toThrow('step-through is not available yet');
    bridge.close();
  });

  it('fills in the step-through fields of a summary', async () => {
    const m = manual();
    const bridge = new WailsBridge(m.schedule);
    const pause = { point: 'before_tool', run: 1, round: 2, call_id: 'c1', tool: 'read_file', args: { path: 'a' } };
    wails.App['ListSessions'] = async () => [
      { id: 'old', title: 'from an older backend' },
      { id: 'new', stepping: true, breakpoints: { points: null, tools: ['run_command'] }, paused: pause },
    ];
    const [old, cur] = await bridge.listSessions();
    expect(old).toMatchObject({ id: 'old', stepping: false, breakpoints: { points: [], tools: [] }, paused: null });
    expect(cur).toMatchObject({ id: 'new', stepping: true, breakpoints: { points: [], tools: ['run_command'] }, paused: pause });
    const sessions = vi.fn();
    bridge.onSessions(sessions);
    wails.emit(CHANNELS.session, { id: 's1', paused: null, breakpoints: null });
    m.frame();
    expect(sessions.mock.calls[0]![0][0]).toMatchObject({ id: 's1', stepping: false, paused: null, breakpoints: { points: [], tools: [] } });
    bridge.close();
  });

  it('calls the safety methods with the Go names and fills in what Go leaves nil', async () => {
    const bridge = new WailsBridge(manual().schedule);
    for (const name of ['AnswerFor', 'TrustWorkspace', 'SetWorkspaceNetwork', 'SetWorkspaceExpose', 'ForgetGrants']) wails.App[name] = vi.fn(async () => undefined);
    wails.App['PickFolder'] = vi.fn(async () => '/opt/sdk');
    wails.App['Protections'] = async () => ({
      LandlockABI: 0,
      Writes: { Name: 'Writes', Active: false, Detail: 'no Landlock' },
      Network: { Name: 'Network', Active: true, Detail: 'netns' },
      Processes: { Name: 'Processes', Active: true, Detail: 'pidns' },
      Secrets: { Name: 'Secrets', Active: true, Detail: 'mountns' },
      Sockets: { Name: 'Sockets', Active: true, Detail: 'no host sockets' },
      Limits: { Name: 'Limits', Active: true, Detail: 'rlimits' },
    });
    wails.App['Workspace'] = vi.fn(async () => ({ dir: '/w', trusted: false, has_settings: false, settings: {}, allow_network: false, grants: null }));
    wails.App['RestoreFiles'] = vi.fn(async () => ({ done: false, restored: null, conflicts: [{ path: 'a', reason: 'it was changed outside Loupe' }] }));
    wails.App['UndoRun'] = vi.fn(async () => ({ done: true, restored: ['a'], conflicts: null }));
    wails.App['GetSettings'] = async () => ({ max_rounds: 5, num_ctx_cap: 4096, temperature: 0, permission_mode: 'ask_all', tools: null, rules: null, system_prompt: '' });
    wails.App['SaveSettings'] = vi.fn(async () => undefined);

    await bridge.answerFor('ask-1', true, 'session');
    expect(wails.App['AnswerFor']).toHaveBeenCalledWith('ask-1', true, 'session');
    const p = await bridge.protections();
    expect(p.Writes).toEqual({ Name: 'Writes', Active: false, Detail: 'no Landlock' });
    expect(p.Sockets).toEqual({ Name: 'Sockets', Active: true, Detail: 'no host sockets' });
    // Go's nil slices (expose, grants) arrive as null or not at all.
    expect(await bridge.workspace('/w')).toMatchObject({ dir: '/w', grants: [], expose: [], settings: { rules: [], commands: [] } });
    wails.App['Workspace'] = vi.fn(async () => ({ dir: '/w', trusted: false, has_settings: false, settings: {}, allow_network: false, expose: ['/opt/sdk'], grants: [] }));
    expect((await bridge.workspace('/w')).expose).toEqual(['/opt/sdk']);
    await bridge.setWorkspaceExpose('/w', ['/opt/sdk', '/data']);
    expect(wails.App['SetWorkspaceExpose']).toHaveBeenCalledWith('/w', ['/opt/sdk', '/data']);
    expect(await bridge.pickFolder('Choose a folder commands may read')).toBe('/opt/sdk');
    expect(wails.App['PickFolder']).toHaveBeenCalledWith('Choose a folder commands may read');
    wails.App['SetWorkspaceExpose'] = () => Promise.reject('/home/me cannot be shown to commands: it is or holds your home folder');
    await expect(bridge.setWorkspaceExpose('/w', ['/home/me'])).rejects.toThrow('it is or holds your home folder');
    await bridge.trustWorkspace('/w', true);
    await bridge.setWorkspaceNetwork('/w', false);
    await bridge.forgetGrants('/w');
    expect(wails.App['TrustWorkspace']).toHaveBeenCalledWith('/w', true);
    expect(wails.App['SetWorkspaceNetwork']).toHaveBeenCalledWith('/w', false);
    expect(wails.App['ForgetGrants']).toHaveBeenCalledWith('/w');
    expect(await bridge.restoreFiles('s1', 7, false)).toEqual({ done: false, restored: [], conflicts: [{ path: 'a', reason: 'it was changed outside Loupe' }] });
    expect(wails.App['RestoreFiles']).toHaveBeenCalledWith('s1', 7, false);
    expect(await bridge.undoRun('s1', 2, true)).toEqual({ done: true, restored: ['a'], conflicts: [] });
    expect(wails.App['UndoRun']).toHaveBeenCalledWith('s1', 2, true);
    const settings = await bridge.getSettings();
    expect(settings).toMatchObject({ permission_mode: 'ask_all', tools: {}, rules: [] });
    await bridge.saveSettings({ ...settings, rules: [{ effect: 'deny', path: '.env*' }], tools: { run_command: 'ask' } });
    expect(wails.App['SaveSettings']).toHaveBeenCalledWith(expect.objectContaining({ rules: [{ effect: 'deny', path: '.env*' }], tools: { run_command: 'ask' } }));
    wails.App['AnswerFor'] = () => Promise.reject('permission: this can only be answered for this call (it touches something protected)');
    await expect(bridge.answerFor('ask-2', true, 'workspace')).rejects.toThrow('only be answered for this call');
    bridge.close();
  });

  it('opens links through the runtime, not in the window', () => {
    const bridge = new WailsBridge(manual().schedule);
    bridge.openURL('https://ollama.com');
    expect(wails.runtime.BrowserOpenURL).toHaveBeenCalledWith('https://ollama.com');
    bridge.close();
  });
});
