/**
 * The JSON-RPC error code of a request refused by a rate limit (a server error of the -32000 range;
 * JSON-RPC has no standard one). Its `data.retryAfterSeconds` says when to retry.
 */
export const RATE_LIMITED = -32029;

/** What one hit of a rate-limit key got: allowed or not, and when the key's window ends. */
export interface RateLimitVerdict {
  readonly allowed: boolean;
  /** Milliseconds until the key's window ends (and its count starts again). */
  readonly retryAfterMs: number;
}

/**
 * Where rate-limit counts live: in this process (`MemoryRateLimitStore`, the default) or shared by
 * several instances (`redisState()` provides one), so that every instance counts the same hits.
 */
export interface RateLimitStore {
  /**
   * Counts one hit of `key` under a limit of `limit` hits per fixed window of `windowMs` (a whole
   * number of seconds), the window starting with the key's first hit.
   */
  hit(key: string, limit: number, windowMs: number): Promise<RateLimitVerdict>;
  /**
   * Whether a hit of `key` now would be allowed, without counting one: refused while the key has
   * reached `limit` within its window. The budget of failed authentications asks it before a
   * token is verified.
   */
  peek(key: string, limit: number, windowMs: number): Promise<RateLimitVerdict>;
}
