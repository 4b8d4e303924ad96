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
  },
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: true,
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.spec.ts'],
    setupFiles: ['src/test/setup.ts'],
    pool: 'threads',
    maxWorkers: 2,
  },
});
