// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { ReplayBridge } from '../replay/bridge';
import { recording } from '../replay/recordings';
import { LiveState } from './live.svelte';

const settle = () => new Promise((r) => setTimeout(r, 0));

/** Live text and output fed by a replay's two streams, as LoupeApp feeds them. */
function setup(name: string) {
  const replay = new ReplayBridge(recording(name));
  const live = new LiveState();
  const offs = [replay.onDeltas((b) => live.applyDeltas(b)), replay.onEvents((b) => live.settle(b))];
  return { replay, live, stop: () => offs.forEach((off) => off()) };
}

describe('LiveState', () => {
  it('shows streaming text until the response is committed', async () => {
    const { live, replay, stop } = setup('stop_streaming');
    await replay.do({ do: 'send', session: 'session-1', text: 'Greet me' });
    await settle();
    expect(live.textOf('session-1', 1, 1)?.content).toBe('Hello there');
    // Another session's round with the same numbers is not this one.
    expect(live.textOf('session-2', 1, 1)).toBeUndefined();
    await replay.do({ do: 'stop', session: 'session-1' });
    await settle();
    expect(live.textOf('session-1', 1, 1)).toBeUndefined();
    stop();
  });

  it("shows a running command's output, stdout and stderr apart, until its result is committed", async () => {
    const { live, replay, stop } = setup('stop_command');
    await replay.do({ do: 'send', session: 'session-1', text: 'Run the tests' });
    await settle();
    expect(live.outputOf('session-1', 'call_1')?.segments).toEqual([
      { stream: 'stdout', text: 'compiling\n' },
      { stream: 'stderr', text: 'warning: slow test\n' },
    ]);
    await replay.do({ do: 'stop_call', session: 'session-1', call_id: 'call_1' });
    await settle();
    expect(live.outputOf('session-1', 'call_1')).toBeUndefined();
    stop();
  });
});
