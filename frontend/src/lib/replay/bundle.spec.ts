// scripts/check-bundle.mjs keeps the demo and the replay bridge out of the
// production bundle by looking for strings only they hold. These specs
// check that it fails a bundle holding them, and that the strings are still
// what the replay code and the recordings hold.
import { describe, expect, it } from 'vitest';
import { bundleProblems, MARKERS } from '../../../scripts/check-bundle.mjs';
import { REPLAY_MARK } from './bridge';
import { recording } from './recordings';

describe('check-bundle', () => {
  it('passes a bundle without replay or demo code', () => {
    expect(bundleProblems([['assets/index.js', 'console.log("the window")']])).toEqual([]);
    expect(bundleProblems([['viewer.html', '<html><script type="module">console.log("the replay")</script>']])).toEqual([]);
  });

  it('fails a bundle with the replay bridge or a recording in it, or with no script at all', () => {
    expect(bundleProblems([['assets/demo.js', `throw new Error("${REPLAY_MARK}: the UI sent")`]])).toEqual([`assets/demo.js holds "${REPLAY_MARK}"`]);
    expect(bundleProblems([['assets/index.js', 'const r = { scenario: "tour", raw_requests: {} }']])).toEqual(['assets/index.js holds "raw_requests"']);
    expect(bundleProblems([['index.html', '<html>']])).toEqual(['no JavaScript in it: build first']);
    expect(bundleProblems([['index.html', '<script type="module" src="/assets/index.js"></script>']])).toEqual(['no JavaScript in it: build first']);
  });

  it('looks for what the replay code and the recordings really hold', () => {
    expect(MARKERS).toContain(REPLAY_MARK);
    expect(Object.keys(recording('tour'))).toContain('raw_requests');
  });
});
