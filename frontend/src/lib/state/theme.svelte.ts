// Light / dark theme: follows the OS unless the user picked one.

export type ThemeMode = 'system' | 'light' | 'dark';

const STORAGE_KEY = 'loupe.theme';

export interface ThemeEnv {
  storage?: Pick<Storage, 'getItem' | 'setItem'> | null;
  matchMedia?: ((q: string) => MediaQueryList) | null;
}

export class ThemeState {
  mode = $state<ThemeMode>('system');
  #systemDark = $state(false);
  #env: ThemeEnv;
  #query: MediaQueryList | null = null;
  #onChange = (e: MediaQueryListEvent) => {
    this.#systemDark = e.matches;
  };

  resolved = $derived<'light' | 'dark'>(this.mode === 'system' ? (this.#systemDark ? 'dark' : 'light') : this.mode);

  constructor(env: ThemeEnv = defaultEnv()) {
    this.#env = env;
    const saved = env.storage?.getItem(STORAGE_KEY);
    if (saved === 'light' || saved === 'dark' || saved === 'system') this.mode = saved;
    this.#query = env.matchMedia?.('(prefers-color-scheme: dark)') ?? null;
    this.#systemDark = this.#query?.matches ?? false;
  }

  /** Follows OS changes; returns the cleanup. */
  watch(): () => void {
    const q = this.#query;
    q?.addEventListener('change', this.#onChange);
    return () => q?.removeEventListener('change', this.#onChange);
  }

  set(mode: ThemeMode): void {
    this.mode = mode;
    this.#env.storage?.setItem(STORAGE_KEY, mode);
  }

  /** system -> light -> dark -> system. */
  cycle(): void {
    this.set(this.mode === 'system' ? 'light' : this.mode === 'light' ? 'dark' : 'system');
  }
}

function defaultEnv(): ThemeEnv {
  let storage: Storage | null = null;
  try {
    storage = typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    // Storage can be blocked (private mode): the theme just isn't remembered.
    storage = null;
  }
  return {
    storage,
    matchMedia: typeof matchMedia === 'function' ? (q) => matchMedia(q) : null,
  };
}
