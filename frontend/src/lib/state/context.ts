import { createContext } from 'svelte';
import type { LoupeApp } from './app.svelte';
import type { ThemeState } from './theme.svelte';

/** The app state, set once by the root view. */
export const [getLoupe, setLoupe] = createContext<LoupeApp>();
export const [getTheme, setTheme] = createContext<ThemeState>();
