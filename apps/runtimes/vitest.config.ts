import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // The conformance runs start the built server under Bun/Deno and the suite (Node 22) as child processes.
    hookTimeout: 60_000,
  },
});
