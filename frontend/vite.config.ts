/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { singleFile } from './scripts/single-file.ts';

// Under Vitest, Svelte must resolve its browser build (mount, not SSR) for
// @testing-library/svelte to render components in jsdom.
const testing = Boolean(process.env.VITEST);

// `vite build --mode viewer` builds the second entry, the shared replay's
// page (viewer.html, src/viewer.ts), as one file with everything inlined,
// where Go embeds it (backend/viewer/dist). The window's build (dist/)
// never holds it.
export default defineConfig(({ mode }) => ({
  plugins: mode === 'viewer' ? [svelte(), singleFile('viewer.html')] : [svelte()],
  resolve: testing ? { conditions: ['browser'] } : undefined,
  base: mode === 'viewer' ? './' : undefined,
  build: {
    outDir: mode === 'viewer' ? '../backend/viewer/dist' : 'dist',
    // The viewer's folder keeps its README.
    emptyOutDir: mode !== 'viewer',
    target: 'es2022',
    sourcemap: false,
    ...(mode === 'viewer' ? { assetsInlineLimit: Number.MAX_SAFE_INTEGER, cssCodeSplit: false } : {}),
    // The Svelte compile step dominates a small build; the timing report
    // it triggers on a 2-core machine is noise, not a problem to fix.
    rolldownOptions: {
      checks: { bundlerTimings: false },
      ...(mode === 'viewer' ? { input: 'viewer.html', output: { codeSplitting: false } } : {}),
    },
  },
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: true,
  },
  test: {
    environment: 'node',
    include: ['src/**/*.spec.ts'],
    pool: 'threads',
    maxWorkers: 2,
  },
}));
