import './app.css';
import { mount, unmount } from 'svelte';
import { createBridge } from './lib/bridge';
import AppShell from './views/AppShell.svelte';

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

const made = await createBridge();
if (!made) {
  target.textContent = 'This page is Loupe\u2019s window: open it from the Loupe app.';
} else {
  const { bridge, demo } = made;
  const app = mount(AppShell, { target, props: { bridge, demo } });
  // In development a reload of this module must not leave a second set of
  // runtime listeners behind.
  if (import.meta.hot) {
    import.meta.hot.dispose(() => {
      void unmount(app);
      bridge.close();
    });
  }
}
