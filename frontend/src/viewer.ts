// The shared replay's page: the window's own views over the one session the
// page holds (lib/viewer), read-only. Built as the `viewer` mode of the
// Vite config into one file that backend/viewer fills with a session.
import './app.css';
import { mount } from 'svelte';
import { ViewerBridge } from './lib/viewer/bridge';
import { sharedOfPage } from './lib/viewer/data';
import AppShell from './views/AppShell.svelte';

const target = document.getElementById('app');
if (!target) throw new Error('viewer.html has no #app element');

try {
  const bridge = new ViewerBridge(sharedOfPage(document));
  mount(AppShell, { target, props: { bridge, shared: bridge.sessionId } });
} catch (e) {
  // Drawn as text: whatever the file holds is never markup.
  target.textContent = `This replay cannot be shown: ${e instanceof Error ? e.message : String(e)}`;
}
