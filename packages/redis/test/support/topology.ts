import { RedisCluster, RedisServer } from '@armature/test-redis';

/**
 * Which Redis a test shares: one redis-server, or (`ARMATURE_TEST_REDIS=cluster`, set by
 * vitest.cluster.config.ts) a three-master Redis Cluster.
 */
export const ON_CLUSTER = process.env.ARMATURE_TEST_REDIS === 'cluster';

/** What an instance process is told of the Redis (see fixtures/redis-env.mjs). */
export type RedisEnv = { REDIS_URL: string } | { REDIS_CLUSTER: string };

/** The Redis of a test, on either topology. */
export interface TestRedis {
  /** Where `redisState` connects: `{ url }` or `{ cluster }`. */
  readonly target: { url: string } | { cluster: { host: string; port: number }[] };
  readonly env: RedisEnv;
  /** The one redis-server; undefined on the cluster. */
  readonly server?: RedisServer;
  /** Stops it all (an outage); `start` brings the same data back. */
  stop(): Promise<void>;
  start(): Promise<void>;
  dispose(): Promise<void>;
}

export async function startTestRedis(): Promise<TestRedis> {
  if (ON_CLUSTER) {
    const cluster = await RedisCluster.start();
    return {
      target: { cluster: cluster.addresses },
      env: { REDIS_CLUSTER: cluster.spec },
      stop: () => cluster.stop(),
      start: () => cluster.restart(),
      dispose: () => cluster.dispose(),
    };
  }
  const server = await RedisServer.start();
  return {
    target: { url: server.url },
    env: { REDIS_URL: server.url },
    server,
    stop: () => server.stop(),
    start: () => server.start(),
    dispose: () => server.dispose(),
  };
}
