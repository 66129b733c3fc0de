import { defineConfig } from 'vitest/config';

// The scale-out tests (several instances behaving as one, a kill among them) again, on a
// three-master Redis Cluster (ARMATURE_TEST_REDIS=cluster: see test/support/cluster.ts), with the
// tests of the cluster itself (test/cluster-*.test.ts). The tests that stop Redis or read one
// server's keys run on one Redis only (vitest.config.ts).
export default defineConfig({
  test: {
    name: '@armature/redis (cluster)',
    include: [
      'test/multi-instance.test.ts',
      'test/load-kill.test.ts',
      'test/owners.test.ts',
      'test/tasks.test.ts',
      'test/task-retries.test.ts',
      'test/reconnect.test.ts',
      'test/cluster-*.test.ts',
    ],
    env: { ARMATURE_TEST_REDIS: 'cluster' },
    testTimeout: 30_000,
    hookTimeout: 90_000,
    fileParallelism: false,
  },
});
