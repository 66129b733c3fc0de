import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The tests and the generated code in test/generated import the package by its name, as users do;
// here that name is the sources, so a test run needs no build.
const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@armature\/openapi\/generate$/, replacement: src('generate/index.ts') },
      { find: /^@armature\/openapi$/, replacement: src('index.ts') },
    ],
  },
  test: { include: ['test/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 90_000, fileParallelism: false },
});
