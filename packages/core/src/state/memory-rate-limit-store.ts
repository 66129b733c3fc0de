import type { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitStore, RateLimitVerdict } from './rate-limit-store.js';

type Library = typeof import('rate-limiter-flexible');
let loading: Promise<Library> | undefined;
let loaded: Library | undefined;

/**
 * `rate-limiter-flexible`, loaded at the first hit: its entry module loads every limiter it ships
 * (Redis, Mongo, SQL, ...: 37 CommonJS modules, 150 KB of a bundle, about 0.7 MB of heap), so an
 * app that never limits a call does not pay for it at start.
 */
function load(): Promise<Library> {
  loading ??= import('rate-limiter-flexible').then((module) => {
    loaded = module;
    return module;
  });
  return loading;
}

/** Keys held at most by default: about 7 MB of heap (measured with 100,000 distinct callers), however many come. */
export const DEFAULT_MAX_RATE_LIMIT_KEYS = 10_000;

/** One limit and window: its limiter, and its keys at their limit with the end of their window, earliest first. */
interface Limit {
  readonly limiter: RateLimiterMemory;
  readonly limited: Map<string, number>;
}

/**
 * Rate-limit counts of this process, kept by `rate-limiter-flexible`'s memory limiter (one per
 * limit and window). That limiter frees a key when its window ends but would hold every key seen
 * within one: here at most `maxKeys` are held. Room for a new key is made by dropping the key under
 * its limit least recently hit (it starts a fresh window if it comes back), or one whose window has
 * ended; a key at its limit is never dropped within its window, so a flood of distinct callers
 * cannot buy a limited caller a fresh count. When every key held is limited, a new key is refused
 * (not counted) until the first of those windows ends: refusing a newcomer for a while is the price
 * of never letting a limited caller through, and filling the store with limited keys takes
 * `maxKeys` distinct callers each spending its whole limit.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly limits = new Map<string, Limit>();
  /** Keys under their limit, least recently hit first, with the limit counting them. */
  private readonly open = new Map<string, Limit>();
  private limitedCount = 0;

  constructor(private readonly maxKeys = DEFAULT_MAX_RATE_LIMIT_KEYS) {}

  /** How many keys the limiters hold now, as they report it (`dump()`): what the store costs in memory. */
  heldKeys(): number {
    let count = 0;
    for (const { limiter } of this.limits.values()) count += limiter.dump().storage.length;
    return count;
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitVerdict> {
    const limiters = loaded ?? (await load());
    const counting = this.limitOf(limiters.RateLimiterMemory, limit, windowMs);
    const slot = `${limit}/${windowMs}|${key}`;
    const held = this.open.has(slot) || counting.limited.has(slot);
    if (!held && this.open.size + this.limitedCount >= this.maxKeys) {
      const room = this.makeRoom(Date.now());
      if (room === undefined) return { allowed: false, retryAfterMs: this.firstWindowEnd() - Date.now() };
      await room;
    }
    let res: RateLimiterRes;
    let allowed = true;
    try {
      res = await counting.limiter.consume(slot);
    } catch (refused) {
      if (!(refused instanceof limiters.RateLimiterRes)) throw refused;
      res = refused;
      allowed = false;
    }
    this.open.delete(slot);
    if (allowed && res.remainingPoints > 0) {
      if (counting.limited.delete(slot)) this.limitedCount--;
      this.open.set(slot, counting);
    } else if (allowed || !counting.limited.has(slot)) {
      // It reached its limit in this window (a mark left from an earlier window is replaced).
      if (counting.limited.delete(slot)) this.limitedCount--;
      counting.limited.set(slot, Date.now() + res.msBeforeNext);
      this.limitedCount++;
    }
    return { allowed, retryAfterMs: res.msBeforeNext };
  }

  async peek(key: string, limit: number, windowMs: number): Promise<RateLimitVerdict> {
    const endsAt = this.limits.get(`${limit}/${windowMs}`)?.limited.get(`${limit}/${windowMs}|${key}`);
    const now = Date.now();
    return endsAt !== undefined && endsAt > now ? { allowed: false, retryAfterMs: endsAt - now } : { allowed: true, retryAfterMs: 0 };
  }

  /**
   * Drops one key to make room (from the bookkeeping now, from its limiter by the promise), or
   * returns undefined when every key held is at its limit within its window.
   */
  private makeRoom(now: number): Promise<unknown> | undefined {
    const first = this.open.entries().next();
    if (!first.done) {
      const [slot, { limiter }] = first.value;
      this.open.delete(slot);
      return limiter.delete(slot);
    }
    // Only the first key of each limit is looked at, so this costs the same however many are held:
    // keys mostly reach a limit in the order their windows end, and one ending earlier behind
    // it is dropped after it (a newcomer waits a little longer; no limited key is forgotten).
    for (const { limiter, limited } of this.limits.values()) {
      const oldest = limited.entries().next();
      if (oldest.done || oldest.value[1] > now) continue;
      limited.delete(oldest.value[0]);
      this.limitedCount--;
      return limiter.delete(oldest.value[0]);
    }
    return undefined;
  }

  /** When the first window of a limited key ends: when a new key can be let in again. */
  private firstWindowEnd(): number {
    let first = Number.POSITIVE_INFINITY;
    for (const { limited } of this.limits.values()) {
      const oldest = limited.values().next();
      if (!oldest.done) first = Math.min(first, oldest.value);
    }
    return first;
  }

  private limitOf(Limiter: Library['RateLimiterMemory'], limit: number, windowMs: number): Limit {
    const id = `${limit}/${windowMs}`;
    let counting = this.limits.get(id);
    if (!counting) {
      counting = { limiter: new Limiter({ points: limit, duration: windowMs / 1000 }), limited: new Map() };
      this.limits.set(id, counting);
    }
    return counting;
  }
}
