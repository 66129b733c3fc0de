import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// One run over every workspace package that has tests; each keeps its own config (and its own
// tsconfig.json, which oxc reads for the decorator flags). Kept in .ci/ so the repository's top
// level stays the agreed set.
export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    projects: [
      'packages/*/vitest.config.ts',
      // @armature/redis's scale-out tests again, on a three-master Redis Cluster.
      'packages/redis/vitest.cluster.config.ts',
      'apps/*/vitest.config.ts',
      'docs/vitest.config.ts',
    ],
  },
});
