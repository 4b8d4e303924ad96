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

  it('passes deltas through as Go sends them', () => {
    const m = manual();
    const bridge = new WailsBridge(m.schedule);
    const deltas = vi.fn();
    bridge.onDeltas(deltas);
    wails.emit(CHANNELS.delta, { session_id: 's1', run: 1, round: 2, content: 'He' });
    m.frame();
    expect(deltas).toHaveBeenCalledTimes(1);
    expect(deltas).toHaveBeenCalledWith([{ session_id: 's1', run: 1, round: 2, content: 'He' }]);
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

  it('sends every session command through Do, as Go encodes it (empty fields left out)', async () => {
    const bridge = new WailsBridge(manual().schedule);
    wails.App['Do'] = vi.fn(async () => ({}));
    wails.App['RawRequest'] = vi.fn(async () => '{"model":"m"}');
    await bridge.do({ do: 'send', session: 's1', text: 'do it' });
    expect(wails.App['Do']).toHaveBeenLastCalledWith({ do: 'send', session: 's1', text: 'do it' });
    expect(await bridge.rawRequest('s1', 7)).toBe('{"model":"m"}');
    expect(wails.App['RawRequest']).toHaveBeenCalledWith('s1', 7);
    // A denial: allow false is Go's zero value, left out like omitempty does.
    await bridge.do({ do: 'answer', session: 's1', call_id: 'c1', allow: false, scope: 'once' });
    expect(wails.App['Do']).toHaveBeenLastCalledWith({ do: 'answer', session: 's1', call_id: 'c1', scope: 'once' });
    await bridge.do({ do: 'answer', session: 's1', call_id: 'c2', allow: true, scope: 'session' });
    expect(wails.App['Do']).toHaveBeenLastCalledWith({ do: 'answer', session: 's1', call_id: 'c2', allow: true, scope: 'session' });
    bridge.close();
  });

  it('turns a rejected Go call (a string) into a readable BridgeError', async () => {
    const bridge = new WailsBridge(manual().schedule);
    wails.App['Do'] = () => Promise.reject('model gemma3:1b does not support tools');
    const err = await bridge.do({ do: 'send', session: 's1', text: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BridgeError);
    expect((err as BridgeError).message).toBe('model gemma3:1b does not support tools');
    expect((err as BridgeError).command).toBe('send');
    bridge.close();
  });

  it('treats nil lists from Go as empty and drops what is not an event from a snapshot', async () => {
    const bridge = new WailsBridge(manual().schedule);
    wails.App['Sessions'] = async () => null;
    wails.App['Models'] = async () => null;
    const log = new EventLog('s1');
    log.user('hi');
    wails.App['Open'] = vi.fn(async () => ({
      summary: { id: 's1' },
      events: [...log.events, { kind: 'broken' }],
    }));
    expect(await bridge.listSessions()).toEqual([]);
    expect(await bridge.listModels()).toEqual([]);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const snap = await bridge.openSession('s1');
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
    expect(wails.App['Open']).toHaveBeenCalledWith('s1');
    expect(snap.events.map((e) => e.kind)).toEqual(['user_message']);
    expect(snap.summary).toEqual({ id: 's1' });
    bridge.close();
  });

  it("keeps the preview marks of an opened session's events, and fetches an event whole as its stored JSON", async () => {
    const bridge = new WailsBridge(manual().schedule);
    const log = new EventLog('s1');
    const user = log.user('the start of a long message');
    const marks = { '/text': { bytes: 9000, lines: 200 } };
    wails.App['Open'] = async () => ({ summary: { id: 's1' }, events: [{ ...user, preview: marks }] });
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

  it('sends the step-through commands with the pause they are for, and passes their refusals on', async () => {
    const bridge = new WailsBridge(manual().schedule);
    wails.App['Do'] = vi.fn(async () => ({}));
    const sent = async (c: Parameters<WailsBridge['do']>[0]) => {
      await bridge.do(c);
      return (wails.App['Do'] as ReturnType<typeof vi.fn>).mock.lastCall?.[0];
    };
    expect(await sent({ do: 'set_stepping', session: 's1', on: true })).toEqual({ do: 'set_stepping', session: 's1', on: true });
    expect(await sent({ do: 'set_stepping', session: 's1', on: false })).toEqual({ do: 'set_stepping', session: 's1' });
    expect(await sent({ do: 'set_breakpoints', session: 's1', breakpoints: { points: ['before_tool'], tools: [] } })).toEqual({
      do: 'set_breakpoints',
      session: 's1',
      breakpoints: { points: ['before_tool'], tools: [] },
    });
    expect(await sent({ do: 'step', session: 's1', at: 12 })).toEqual({ do: 'step', session: 's1', at: 12 });
    expect(await sent({ do: 'continue', session: 's1', at: 12 })).toEqual({ do: 'continue', session: 's1', at: 12 });
    expect(await sent({ do: 'edit_request', session: 's1', at: 5, request: { system: 'Be brief.', messages: [{ seq: 3, content: 'x' }] } })).toEqual({
      do: 'edit_request',
      session: 's1',
      at: 5,
      request: { system: 'Be brief.', messages: [{ seq: 3, content: 'x' }] },
    });
    expect(await sent({ do: 'edit_args', session: 's1', at: 9, text: '{"path":"a"}' })).toEqual({ do: 'edit_args', session: 's1', at: 9, text: '{"path":"a"}' });
    expect(await sent({ do: 'skip', session: 's1', at: 9, text: 'skipped it' })).toEqual({ do: 'skip', session: 's1', at: 9, text: 'skipped it' });
    expect(await sent({ do: 'edit_result', session: 's1', at: 11, text: 'new result' })).toEqual({ do: 'edit_result', session: 's1', at: 11, text: 'new result' });
    wails.App['Do'] = () => Promise.reject('invalid arguments for read_file: missing required property "path"');
    const err = await bridge.do({ do: 'edit_args', session: 's1', at: 9, text: '{}' }).catch((e: unknown) => e);
    expect((err as BridgeError).message).toContain('missing required property "path"');
    wails.App['Do'] = () => Promise.reject('step: the run is not paused at 12');
    await expect(bridge.do({ do: 'step', session: 's1', at: 12 })).rejects.toThrow('not paused at 12');
    bridge.close();
  });

  it('forgets a deleted session, so that a new one with its id gets its events from seq 1', async () => {
    const m = manual();
    const bridge = new WailsBridge(m.schedule);
    const got: number[] = [];
    bridge.onEvents((b) => got.push(...b.map((e) => e.seq)));
    wails.App['Do'] = vi.fn(async () => ({}));
    const e1 = new EventLog('s1').user('hi');
    wails.emit(CHANNELS.event, e1);
    m.frame();
    wails.emit(CHANNELS.event, e1);
    m.frame();
    expect(got).toEqual([1]);
    await bridge.do({ do: 'delete', session: 's1' });
    expect(wails.App['Do']).toHaveBeenCalledWith({ do: 'delete', session: 's1' });
    wails.emit(CHANNELS.event, e1);
    m.frame();
    expect(got).toEqual([1, 1]);
    bridge.close();
  });

  it('calls the safety methods with the Go names and fills in the lists Go leaves nil where the window keeps them', async () => {
    const bridge = new WailsBridge(manual().schedule);
    wails.App['Do'] = vi.fn(async () => ({}));
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
    const info = { dir: '/w', trusted: false, has_settings: false, settings: {}, allow_network: false, grants: null };
    wails.App['Workspace'] = vi.fn(async () => info);
    wails.App['SetWorkspace'] = vi.fn(async () => ({ ...info, expose: ['/opt/sdk', '/data'] }));
    wails.App['Settings'] = async () => ({ max_rounds: 5, num_ctx_cap: 4096, temperature: 0, permission_mode: 'ask_all', tools: null, rules: null, system_prompt: '' });
    wails.App['SaveSettings'] = vi.fn(async () => undefined);

    const p = await bridge.protections();
    expect(p.Writes).toEqual({ Name: 'Writes', Active: false, Detail: 'no Landlock' });
    expect(p.Sockets).toEqual({ Name: 'Sockets', Active: true, Detail: 'no host sockets' });
    // The workspace as Go sends it (nil slices as null, omitempty ones left out).
    expect(await bridge.workspace('/w')).toEqual(info);
    expect(wails.App['Workspace']).toHaveBeenCalledWith('/w');
    // A change answers with the workspace as it now is.
    const after = await bridge.setWorkspace('/w', { expose: ['/opt/sdk', '/data'] });
    expect(wails.App['SetWorkspace']).toHaveBeenCalledWith('/w', { expose: ['/opt/sdk', '/data'] });
    expect(after).toMatchObject({ dir: '/w', expose: ['/opt/sdk', '/data'], grants: null });
    expect(await bridge.pickFolder('Choose a folder commands may read')).toBe('/opt/sdk');
    expect(wails.App['PickFolder']).toHaveBeenCalledWith('Choose a folder commands may read');
    wails.App['SetWorkspace'] = () => Promise.reject('/home/me cannot be shown to commands: it is or holds your home folder');
    await expect(bridge.setWorkspace('/w', { expose: ['/home/me'] })).rejects.toThrow('it is or holds your home folder');
    wails.App['SetWorkspace'] = vi.fn(async () => info);
    await bridge.setWorkspace('/w', { trust: true });
    await bridge.setWorkspace('/w', { network: false });
    await bridge.setWorkspace('/w', { forget_grants: true });
    expect((wails.App['SetWorkspace'] as ReturnType<typeof vi.fn>).mock.calls).toEqual([
      ['/w', { trust: true }],
      ['/w', { network: false }],
      ['/w', { forget_grants: true }],
    ]);
    wails.App['Do'] = vi.fn(async () => ({ restore: { done: false, restored: null, conflicts: [{ path: 'a', reason: 'it was changed outside Loupe' }] } }));
    // A command's answer is what Go sent.
    expect((await bridge.do({ do: 'restore_files', session: 's1', seq: 7, force: false })).restore).toEqual({
      done: false,
      restored: null,
      conflicts: [{ path: 'a', reason: 'it was changed outside Loupe' }],
    });
    expect(wails.App['Do']).toHaveBeenCalledWith({ do: 'restore_files', session: 's1', seq: 7 });
    wails.App['Do'] = vi.fn(async () => ({ restore: { done: true, restored: ['a'], conflicts: null } }));
    expect((await bridge.do({ do: 'undo_run', session: 's1', run: 2, force: true })).restore).toEqual({ done: true, restored: ['a'], conflicts: null });
    expect(wails.App['Do']).toHaveBeenCalledWith({ do: 'undo_run', session: 's1', run: 2, force: true });
    const settings = await bridge.getSettings();
    expect(settings).toMatchObject({ permission_mode: 'ask_all', tools: {}, rules: [] });
    await bridge.saveSettings({ ...settings, rules: [{ effect: 'deny', path: '.env*' }], tools: { run_command: 'ask' } });
    expect(wails.App['SaveSettings']).toHaveBeenCalledWith(expect.objectContaining({ rules: [{ effect: 'deny', path: '.env*' }], tools: { run_command: 'ask' } }));
    wails.App['Do'] = () => Promise.reject('permission: this can only be answered for this call (it touches something protected)');
    await expect(bridge.do({ do: 'answer', session: 's1', call_id: 'c2', allow: true, scope: 'workspace' })).rejects.toThrow('only be answered for this call');
    bridge.close();
  });

  it('opens links through the runtime, not in the window', () => {
    const bridge = new WailsBridge(manual().schedule);
    bridge.openURL('https://ollama.com');
    expect(wails.runtime.BrowserOpenURL).toHaveBeenCalledWith('https://ollama.com');
    bridge.close();
  });
});
