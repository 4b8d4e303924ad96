import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeBridge, makeSummary } from '../bridge/fake';
import { EventLog } from '../bridge/fixtures';
import type { SessionSnapshot } from '../types';
import { LoupeApp } from './app.svelte';

const settle = () => new Promise((r) => setTimeout(r, 0));

function setup(opts: ConstructorParameters<typeof FakeBridge>[0] = {}) {
  const fake = new FakeBridge({ sessions: [makeSummary({ id: 's1', title: 'One' })], ...opts });
  const app = new LoupeApp(fake);
  const stop = app.start();
  return { fake, app, stop };
}

describe('LoupeApp', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('loads status, sessions, settings and models on start', async () => {
    const { app, fake, stop } = setup({
      models: [{ name: 'm', size: 1, family: '', parameter_size: '', quantization: '', capabilities: ['tools'], context_length: 1, modified_at: '' }],
    });
    await settle();
    expect(app.status?.reachable).toBe(true);
    expect(app.sessions.map((s) => s.id)).toEqual(['s1']);
    expect(app.settings?.permission_mode).toBe('ask');
    expect(app.models.map((m) => m.name)).toEqual(['m']);
    expect(fake.callsOf('listModels')).toHaveLength(1);
    stop();
  });

  it('keeps checking an unreachable Ollama and loads models once it answers', async () => {
    vi.useFakeTimers();
    const { app, fake, stop } = setup({ status: { reachable: false, message: 'Start Ollama with "ollama serve".' } });
    await vi.advanceTimersByTimeAsync(0);
    expect(app.status?.message).toContain('ollama serve');
    expect(app.modelsLoaded).toBe(true);
    expect(fake.callsOf('listModels')).toHaveLength(0);
    fake.statusInfo = { ...fake.statusInfo, reachable: true };
    await vi.advanceTimersByTimeAsync(5000);
    expect(app.status?.reachable).toBe(true);
    expect(fake.callsOf('listModels')).toHaveLength(1);
    stop();
  });

  it('merges live events that arrive while the snapshot is loading', async () => {
    const log = new EventLog('s1');
    log.user('hi');
    log.request();
    const snapshotEvents = [...log.events];
    const live = log.response({ content: 'hello' });
    const { app, fake, stop } = setup();
    let resolve!: (s: SessionSnapshot) => void;
    fake.openSession = () => new Promise((r) => (resolve = r));
    const opening = app.openSession('s1');
    fake.emitEvent(live);
    fake.emitEvent(new EventLog('other').user('not mine'));
    await settle();
    resolve({ summary: makeSummary({ id: 's1' }), events: [...snapshotEvents, live], approvals: [] });
    await opening;
    expect(app.current?.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(app.current?.loading).toBe(false);
    stop();
  });

  it('keeps the draft and shows why when Send is refused', async () => {
    const { app, fake, stop } = setup();
    await app.openSession('s1');
    fake.failures['send'] = 'gemma3:1b does not support tools';
    app.current!.draft = 'do it';
    await app.send();
    expect(app.current!.draft).toBe('do it');
    expect(app.current!.sendError).toBe('gemma3:1b does not support tools');
    delete fake.failures['send'];
    await app.send();
    expect(app.current!.draft).toBe('');
    expect(app.current!.sendError).toBeNull();
    expect(app.current!.running).toBe(true);
    expect(fake.callsOf('send')).toEqual([
      ['s1', 'do it'],
      ['s1', 'do it'],
    ]);
    stop();
  });

  it('tracks approvals and answers them once', async () => {
    const { app, fake, stop } = setup();
    await app.openSession('s1');
    fake.emitApproval({ id: 'ap1', session_id: 's1', call_id: 'c1', tool: 'run_command', args: {}, display: null, summary: '' });
    await settle();
    expect(app.approvalForCall('c1')?.id).toBe('ap1');
    expect(app.waiting.has('s1')).toBe(true);
    await Promise.all([app.answer('ap1', true), app.answer('ap1', true)]);
    expect(fake.callsOf('answerFor')).toEqual([['ap1', true, 'once']]);
    expect(app.approvalForCall('c1')).toBeUndefined();
    stop();
  });

  it('updates the open session from session events and run_end', async () => {
    const { app, fake, stop } = setup();
    await app.openSession('s1');
    fake.emitSession(makeSummary({ id: 's1', title: 'Renamed', running: true, updated_at: '2026-02-01T00:00:00Z' }));
    await settle();
    expect(app.current!.summary.title).toBe('Renamed');
    expect(app.current!.running).toBe(true);
    const log = new EventLog('s1');
    log.user('x');
    fake.emitEvent(log.events[0]!);
    fake.emitEvent(log.end('cancelled'));
    await settle();
    expect(app.current!.running).toBe(false);
    stop();
  });

  it('shows streaming text until the response is committed', async () => {
    const { app, fake, stop } = setup();
    await app.openSession('s1');
    const log = new EventLog('s1');
    log.user('x');
    log.request();
    fake.emitDelta({ session_id: 's1', run: 1, round: 1, content: 'Hel', thinking: '' });
    fake.emitDelta({ session_id: 's1', run: 1, round: 1, content: 'lo', thinking: '' });
    await settle();
    expect(app.liveText(1, 1)?.content).toBe('Hello');
    fake.emitEvent(log.response({ content: 'Hello' }));
    await settle();
    expect(app.liveText(1, 1)).toBeUndefined();
    stop();
  });

  it('deletes a session and leaves it if it was open', async () => {
    const { app, stop } = setup();
    await app.openSession('s1');
    await app.deleteSession('s1');
    expect(app.sessions).toEqual([]);
    expect(app.current).toBeNull();
    expect(app.view).toBe('home');
    stop();
  });

  it('caches one Raw source per event', async () => {
    const { app, fake, stop } = setup();
    const log = new EventLog('s1');
    log.user('x');
    const req = log.request();
    for (const e of log.events) fake.emitEvent(e);
    const a = app.rawSource(req);
    expect(app.rawSource(req)).toBe(a);
    expect(a.exact).toBe(true);
    expect(JSON.parse(await a.load()).model).toBe('qwen3:0.6b');
    stop();
  });
});

describe('sortSessions', () => {
  it('puts the most recently updated first, whatever the time zone offset', async () => {
    const { sortSessions } = await import('./app.svelte');
    const list = sortSessions([
      makeSummary({ id: 'old', updated_at: '2026-01-05T10:00:00+02:00' }),
      makeSummary({ id: 'new', updated_at: '2026-01-05T09:30:00Z' }),
    ]);
    expect(list.map((s) => s.id)).toEqual(['new', 'old']);
  });
});
