import type { RateLimitStore, RateLimitVerdict } from '@armature/core';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Connection } from './connection.js';

/**
 * Rate-limit counts on Redis, shared by every instance: `rate-limiter-flexible`'s Redis limiter
 * (one per limit and window) counts each hit with one atomic script (INCRBY, and PEXPIRE on a
 * key's first hit), so instances never lose a hit to a race, and Redis drops a key when its
 * window ends (memory bounded by Redis's own expiry).
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly limiters = new Map<string, RateLimiterRedis>();

  constructor(
    private readonly connection: Connection,
    private readonly prefix: string,
  ) {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitVerdict> {
    try {
      const res = await this.limiterFor(limit, windowMs).consume(key);
      return { allowed: true, retryAfterMs: res.msBeforeNext };
    } catch (refused) {
      if (refused instanceof RateLimiterRes) return { allowed: false, retryAfterMs: refused.msBeforeNext };
      throw refused;
    }
  }

  async peek(key: string, limit: number, windowMs: number): Promise<RateLimitVerdict> {
    const res = await this.limiterFor(limit, windowMs).get(key);
    if (res === null || res.consumedPoints < limit) return { allowed: true, retryAfterMs: res?.msBeforeNext ?? 0 };
    return { allowed: false, retryAfterMs: res.msBeforeNext };
  }

  private limiterFor(limit: number, windowMs: number): RateLimiterRedis {
    const id = `${limit}/${windowMs}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: this.connection.client,
        keyPrefix: `${this.prefix}rate:${id}`,
        points: limit,
        duration: windowMs / 1000,
        // The connection queues nothing while Redis is away: fail the hit at once, as every command does.
        rejectIfRedisNotReady: true,
      });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}
