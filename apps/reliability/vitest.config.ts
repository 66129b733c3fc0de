import { defineConfig } from 'vitest/config';

// The quick run spawns the built script (and it spawns its servers): give it room, but bounded.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], testTimeout: 250_000 },
});
