export { LoupeApp, hasCapability, sortSessions, type View, type Toast } from './app.svelte';
export { SessionState } from './session.svelte';
export { ThemeState, type ThemeMode } from './theme.svelte';
export { getLoupe, setLoupe, getTheme, setTheme } from './context';
