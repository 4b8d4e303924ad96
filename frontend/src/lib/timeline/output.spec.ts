import { describe, expect, it } from 'vitest';
import { EventLog } from '../testing/events';
import type { Delta, OutputPiece } from '../types';
import { applyDeltas } from './live';
import { applyOutput, elapsedText, hiddenBytes, omittedText, OUTPUT_KEEP, outputKey, settleOutput } from './output';

const out = (call_id: string, output: OutputPiece[], omitted = 0, run = 1, session_id = 's1'): Delta => ({
  session_id,
  run,
  round: 1,
  content: '',
  thinking: '',
  call_id,
  output,
  omitted,
});
const o = (text: string): OutputPiece => ({ stream: 'stdout', text });
const e = (text: string): OutputPiece => ({ stream: 'stderr', text });

describe('call output', () => {
  it('keeps each call its output in order, joining runs of one stream', () => {
    let m = applyOutput(new Map(), [out('c1', [o('a'), e('warn\n')]), out('c2', [o('other')]), out('c1', [e('more\n'), o('b')])]);
    m = applyOutput(m, [out('c1', [o('c\n')])]);
    expect(m.get(outputKey('s1', 'c1'))?.segments).toEqual([o('a'), e('warn\nmore\n'), o('bc\n')]);
    expect(m.get(outputKey('s1', 'c2'))?.segments).toEqual([o('other')]);
  });

  it('leaves token deltas to the live text, and the live text leaves output alone', () => {
    const text: Delta = { session_id: 's1', run: 1, round: 1, content: 'Hi', thinking: '' };
    const m0 = new Map();
    expect(applyOutput(m0, [text])).toBe(m0);
    const live = applyDeltas(new Map(), [text, out('c1', [o('x')])]);
    expect([...live.values()]).toEqual([{ content: 'Hi', thinking: '' }]);
  });

  it('does not change the map it was given', () => {
    const m0 = new Map();
    applyOutput(m0, [out('c1', [o('a')])]);
    expect(m0.size).toBe(0);
  });

  it('says how much the backend left out, as its running count', () => {
    let m = applyOutput(new Map(), [out('c1', [o('head')])]);
    m = applyOutput(m, [out('c1', [], 1200)]);
    m = applyOutput(m, [out('c1', [], 5000)]);
    const c = m.get(outputKey('s1', 'c1'))!;
    expect(hiddenBytes(c)).toBe(5000);
    expect(omittedText(hiddenBytes(c))).toBe('… 5,000 bytes more');
    expect(omittedText(0)).toBe('');
    expect(omittedText(1)).toBe('… 1 byte more');
  });

  it('keeps at most OUTPUT_KEEP characters and counts the bytes past it', () => {
    const big = 'x'.repeat(OUTPUT_KEEP - 2);
    const m = applyOutput(new Map(), [out('c1', [o(big)]), out('c1', [e('éééé')], 10)]);
    const c = m.get(outputKey('s1', 'c1'))!;
    expect(c.chars).toBe(OUTPUT_KEEP);
    expect(c.segments[1]).toEqual(e('éé'));
    // Two é of two bytes each came past the window's cap, beside the backend's 10.
    expect(hiddenBytes(c)).toBe(14);
  });

  it('drops a call once its result is committed, and every call of a run that ended', () => {
    const log = new EventLog('s1');
    log.user('x');
    log.request();
    log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'run_command', args: {} }] });
    const m = applyOutput(new Map(), [out('c1', [o('a')]), out('c2', [o('b')]), out('c3', [o('c')], 0, 2), out('c1', [o('z')], 0, 1, 's2')]);
    const afterResult = settleOutput(m, [log.result({ call_id: 'c1', name: 'run_command', content: 'a' })]);
    expect(afterResult.has(outputKey('s1', 'c1'))).toBe(false);
    expect(afterResult.has(outputKey('s1', 'c2'))).toBe(true);
    expect(afterResult.has(outputKey('s2', 'c1'))).toBe(true);
    const afterEnd = settleOutput(afterResult, [log.end('answered')]);
    expect([...afterEnd.keys()].sort()).toEqual([outputKey('s1', 'c3'), outputKey('s2', 'c1')].sort());
    expect(settleOutput(afterEnd, [log.notice('x', 'y')])).toBe(afterEnd);
  });

  it('tells the elapsed time with one decimal, in minutes past one', () => {
    expect(elapsedText(1000, 13_345)).toBe('12.3 s');
    expect(elapsedText(1000, 500)).toBe('0.0 s');
    expect(elapsedText(0, 125_000)).toBe('2 min 5 s');
  });
});
