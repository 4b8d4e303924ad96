// The browser demo: what the page shows outside the Loupe window (the Vite
// dev server, screenshots). It plays recordings of the Go engine, so it
// shows what the engine really does. Only development builds load it
// (lib/bridge/index.ts); scripts/check-bundle.mjs fails a production
// build that holds it.
import type { Bridge } from '../bridge/types';
import type { LocalOllama, Summary } from '../types';
import { ReplayBridge } from './bridge';
import { repeatRun, runOf } from './long';
import { unconfinedProtections } from './machine';
import { recordedPulls } from './pulls';
import { parseRecording, type Recording } from './recording';
import longRead from './recordings/long_read.json';
import newSession from './recordings/new_session.json';
import tour from './recordings/tour.json';

export type DemoScenario = 'sample' | 'empty' | 'offline' | 'long' | 'reopened' | 'unsandboxed';

/** The scenario a page address asks for with ?demo=…; the sample otherwise. */
export function demoScenario(search: string): DemoScenario {
  const p = new URLSearchParams(search).get('demo');
  return p === 'offline' || p === 'empty' || p === 'long' || p === 'reopened' || p === 'unsandboxed' ? p : 'sample';
}

/** A recording of `runs` copies of the tour's first run, all stored: a long timeline. */
export function longRecording(runs: number): Recording {
  const base = parseRecording(tour);
  const events = repeatRun(runOf(base, 1), runs, 'demo-long');
  const last = events.at(-1);
  return {
    scenario: 'long',
    about: `${runs} copies of one recorded run, to see that long timelines stay fast.`,
    session: {
      ...(base.session as unknown as Summary),
      id: 'demo-long',
      title: `A long session (${runs} runs)`,
      last_reason: 'answered',
      event_count: last?.seq ?? 0,
      updated_at: last?.time ?? '',
    },
    settings: base.settings,
    steps: [...events.map((e) => ({ event: e })), { mark: 'end' }],
    raw_requests: {},
  };
}

/**
 * The demo's bridge. The sample opens on the tour's first run; sending any
 * message plays its second run at a pace a person can follow (an edit that
 * asks first, then its undo).
 */
/** The demo machine's Ollama: installed, not started. */
const demoLocal: LocalOllama = {
  on_this_machine: true,
  installed: true,
  binary: '/usr/local/bin/ollama',
  binary_version: '0.17.4',
  started_by_loupe: false,
  log_path: '/home/me/.local/share/loupe/ollama-serve.log',
  install: '',
  install_url: '',
  last_error: '',
};

export function createDemoBridge(scenario: DemoScenario): Bridge {
  const pick = '/home/me/project';
  switch (scenario) {
    case 'empty':
      return new ReplayBridge(parseRecording(newSession), { lenient: true, pick, pulls: recordedPulls(), pullStepMs: 150 });
    case 'offline':
      return new ReplayBridge(parseRecording(newSession), {
        lenient: true,
        status: {
          reachable: false,
          version: '',
          message: 'Loupe could not reach Ollama at http://127.0.0.1:11434. Start it with "ollama serve", or set OLLAMA_HOST to where it runs.',
          local: demoLocal,
        },
        // Start Ollama works in the demo: the status it leads to.
        start: { status: { reachable: true, version: '0.17.4', message: '', local: { ...demoLocal, started_by_loupe: true } } },
        pulls: recordedPulls(),
        pullStepMs: 150,
      });
    case 'long':
      return new ReplayBridge(longRecording(150), { from: 'end', lenient: true });
    case 'reopened':
      // A session opened again: its long read shows in part, and Show all fetches the rest.
      return new ReplayBridge(parseRecording(longRead), { from: 'reopened', lenient: true });
    case 'unsandboxed':
      return new ReplayBridge(parseRecording(tour), { from: 'run 1 done', paceMs: 400, lenient: true, pick, protections: unconfinedProtections() });
    default:
      return new ReplayBridge(parseRecording(tour), { from: 'run 1 done', paceMs: 400, lenient: true, pick });
  }
}
