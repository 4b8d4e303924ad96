/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// Under Vitest, Svelte must resolve its browser build (mount, not SSR) for
// @testing-library/svelte to render components in jsdom.
const testing = Boolean(process.env.VITEST);

export default defineConfig({
  plugins: [svelte()],
  resolve: testing ? { conditions: ['browser'] } : undefined,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // The Svelte compile step dominates a small build; the timing report
    // it triggers on a 2-core machine is noise, not a problem to fix.
    rolldownOptions: { checks: { bundlerTimings: false } },
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
});
