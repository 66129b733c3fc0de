import { defineConfig } from 'vitest/config';

// On one redis-server. vitest.cluster.config.ts runs the scale-out tests again on a Redis Cluster.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/cluster-*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 90_000,
    fileParallelism: false,
  },
});
