export { LoupeApp, hasCapability, sortSessions, type View, type Toast, type RestoreConfirm, type SettingsSection } from './app.svelte';
export { WorkspaceState } from './workspace.svelte';
export { SessionState, pendingBody } from './session.svelte';
export { ThemeState, type ThemeMode } from './theme.svelte';
export { getLoupe, setLoupe, getTheme, setTheme } from './context';
