// Which page the window shows (home, a new session, a session, Settings,
// the models, two sessions compared),
// the session open in it, and the help overlay. Opening a session shows it
// at once and fills it with its snapshot when that arrives.
import type { Bridge } from '../bridge/types';
import type { Summary } from '../types';
import { message } from './errors';
import { SessionState } from './session.svelte';
import type { SettingsSection, SettingsState } from './settings.svelte';
import type { SessionList } from './summaries.svelte';

/** compare: two sessions side by side (CompareState). */
export type View = 'home' | 'new' | 'session' | 'settings' | 'models' | 'compare';

export class Router {
  view = $state<View>('home');
  /** The session open in the window, or null. */
  current = $state.raw<SessionState | null>(null);
  helpOpen = $state(false);

  readonly #bridge: Bridge;
  readonly #sessions: SessionList;
  readonly #settings: SettingsState;

  constructor(bridge: Bridge, sessions: SessionList, settings: SettingsState) {
    this.#bridge = bridge;
    this.#sessions = sessions;
    this.#settings = settings;
  }

  /**
   * Opens a session; with `at`, scrolled to the card of that event (a
   * search result), and with `match`, that text marked in the card.
   */
  async openSession(id: string, at: number | null = null, match: string | null = null): Promise<void> {
    if (this.current?.id === id) {
      if (at != null) {
        this.current.revealSeq = at;
        this.current.revealMatch = match;
      }
      this.view = 'session';
      return;
    }
    const state = new SessionState(this.#sessions.find(id) ?? blankSummary(id));
    state.revealSeq = at;
    state.revealMatch = at != null ? match : null;
    this.current = state;
    this.view = 'session';
    try {
      const snap = await this.#bridge.openSession(id);
      if (this.current !== state) return; // the user moved on
      state.setSummary(snap.summary);
      state.applyEvents(snap.events);
    } catch (e) {
      state.loadError = message(e);
    } finally {
      state.loading = false;
    }
  }

  /** The session is gone: if it was open, the window goes home. */
  leave(id: string): void {
    if (this.current?.id === id) {
      this.current = null;
      this.view = 'home';
    }
  }

  /** Opens the Settings page at a section. */
  openSettings(section: SettingsSection | null = null): void {
    this.#settings.opening(section);
    this.view = 'settings';
  }
}

/** What is known of a session not in the list yet: its id. */
function blankSummary(id: string): Summary {
  return {
    id,
    title: '',
    workspace: '',
    model: '',
    created_at: '',
    updated_at: '',
    last_reason: '',
    event_count: 0,
    open_run: 0,
    running: false,
    standing: '',
    stepping: false,
    breakpoints: { points: [], tools: [] },
    pinned: false,
    rounds: 0,
  };
}
