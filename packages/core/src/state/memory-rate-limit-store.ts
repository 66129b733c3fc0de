import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitStore, RateLimitVerdict } from './rate-limit-store.js';

/** Keys held at most by default: about 7 MB of heap (measured with 100,000 distinct callers), however many come. */
export const DEFAULT_MAX_RATE_LIMIT_KEYS = 10_000;

/**
 * Rate-limit counts of this process, kept by `rate-limiter-flexible`'s memory limiter (one per
 * limit and window). That limiter frees a key when its window ends but would hold every key seen
 * within one: here at most `maxKeys` are held, the least recently hit key dropped first (it starts
 * a fresh window if it comes back), so a flood of distinct callers cannot grow memory without end.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly limiters = new Map<string, RateLimiterMemory>();
  /** Every key held, least recently hit first, with the limiter holding it. */
  private readonly held = new Map<string, RateLimiterMemory>();

  constructor(private readonly maxKeys = DEFAULT_MAX_RATE_LIMIT_KEYS) {}

  /** How many keys the limiters hold now, as they report it (`dump()`): what the store costs in memory. */
  heldKeys(): number {
    let count = 0;
    for (const limiter of this.limiters.values()) count += limiter.dump().storage.length;
    return count;
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitVerdict> {
    const limiter = this.limiterFor(limit, windowMs);
    const slot = `${limit}/${windowMs}|${key}`;
    this.held.delete(slot);
    this.held.set(slot, limiter);
    if (this.held.size > this.maxKeys) {
      const [oldest, holder] = this.held.entries().next().value as [string, RateLimiterMemory];
      this.held.delete(oldest);
      await holder.delete(oldest);
    }
    try {
      const res = await limiter.consume(slot);
      return { allowed: true, retryAfterMs: res.msBeforeNext };
    } catch (refused) {
      if (refused instanceof RateLimiterRes) return { allowed: false, retryAfterMs: refused.msBeforeNext };
      throw refused;
    }
  }

  private limiterFor(limit: number, windowMs: number): RateLimiterMemory {
    const id = `${limit}/${windowMs}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new RateLimiterMemory({ points: limit, duration: windowMs / 1000 });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}
