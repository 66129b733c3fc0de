import { defineConfig } from 'vitest/config';

// One run over every workspace package that has tests; each keeps its own config (and tsconfig,
// which oxc reads for the decorator flags).
export default defineConfig({
  test: { projects: ['packages/*/vitest.config.ts', 'apps/*/vitest.config.ts', 'docs/vitest.config.ts'] },
});
