import { DEFAULT_TASK_LIMITS, type TaskLimits, type TaskQuota } from '@armature/core';
import { RedisServer } from '@armature/test-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisState } from '../src/index.js';

// The whole server's task caps (maxOpenTasks, maxResultBytes) in the Redis quota's scripts, on a
// real redis-server: every caller counts, and expired or released tasks stop counting.

let redis: RedisServer;
let state: ReturnType<typeof redisState>;
let quota: TaskQuota;

beforeAll(async () => {
  redis = await RedisServer.start({ durable: false });
  state = redisState({ url: redis.url, keyPrefix: 'totals:' });
  // The commands connection opens in the background: wait until it answers.
  for (
    let i = 0;
    i < 100 &&
    !(await state.ping?.().then(
      () => true,
      () => false,
    ));
    i++
  )
    await new Promise((r) => setTimeout(r, 50));
  quota = state.tasks?.quota as TaskQuota;
});

afterAll(async () => {
  await state?.close();
  await redis?.dispose();
});

const LIMITS: TaskLimits = { ...DEFAULT_TASK_LIMITS, maxOpenTasks: 3, maxResultBytes: 1_000 };

describe('the Redis quota, for the whole server', () => {
  it('caps open tasks and kept result bytes over every caller; a released or expired task frees its share', async () => {
    const now = Date.now();
    const share = (owner: string, taskId: string, ttlMs = 60_000) => ({
      owner,
      taskId,
      expiresAt: now + ttlMs,
      leaseExpiresAt: now + 60_000,
    });
    expect(await quota.admit(share('ip:1', 'a'), LIMITS, now)).toBeUndefined();
    expect(await quota.admit(share('ip:2', 'b'), LIMITS, now)).toBeUndefined();
    expect(await quota.admit(share('ip:3', 'c', 100), LIMITS, now)).toBeUndefined();
    expect(await quota.admit(share('ip:4', 'd'), LIMITS, now)).toBe('maxOpenTasks');

    expect(await quota.keep('ip:1', 'a', 600, LIMITS, now)).toEqual({ kept: true });
    expect(await quota.keep('ip:2', 'b', 600, LIMITS, now)).toEqual({ kept: false, used: 600, limit: 'maxResultBytes' });
    await quota.release('ip:1', 'a');
    expect(await quota.keep('ip:2', 'b', 600, LIMITS, now)).toEqual({ kept: true });

    // 'a' released, 'c' expired (its ttl was 100 ms): two shares are free for other callers, not three.
    expect(await quota.admit(share('ip:4', 'd'), LIMITS, now + 200)).toBeUndefined();
    expect(await quota.admit(share('ip:5', 'e'), LIMITS, now + 200)).toBeUndefined();
    expect(await quota.admit(share('ip:6', 'f'), LIMITS, now + 200)).toBe('maxOpenTasks');
    // The bytes of 'a' left the total with it: 'b' holds 600 of 1,000.
    expect(await quota.keep('ip:4', 'd', 500, LIMITS, now + 200)).toEqual({ kept: false, used: 600, limit: 'maxResultBytes' });
  });
});
