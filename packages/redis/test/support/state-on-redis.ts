import type { SharedState } from '@armature/core';
import { RedisServer } from '@armature/test-redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { redisState } from '../../src/index.js';

/** A test file's own redis-server, a `redisState` on it and a plain client beside it. */
export interface StateOnRedis {
  readonly state: SharedState;
  /** A client of its own, to build and read keys directly. */
  readonly raw: Redis;
}

/**
 * Starts a redis-server (no persistence) before the file's tests and a `redisState` on it with
 * `keyPrefix`, connected (as an app's start waits for it), and stops both after them.
 */
export function stateOnRedis(keyPrefix: string): StateOnRedis {
  let redis: RedisServer | undefined;
  const held: { state?: SharedState; raw?: Redis } = {};
  beforeAll(async () => {
    redis = await RedisServer.start({ durable: false });
    held.state = redisState({ url: redis.url, keyPrefix });
    // The app subscribes when it starts, and that waits for the connections.
    await held.state.bus.subscribe('changes', () => undefined);
    held.raw = new Redis(redis.url);
  });
  afterAll(async () => {
    await Promise.all([held.state?.close(), held.raw?.quit()]);
    await redis?.dispose();
  });
  return {
    get state() {
      return held.state as SharedState;
    },
    get raw() {
      return held.raw as Redis;
    },
  };
}
