/**
 * What a rate limit counts separately: the caller (`principal`: the bearer token's subject, or the
 * client address when unauthenticated), the client address (`client`), the session (`session`),
 * or the tool, resource, prompt or completion called (`tool`). Combined, each combination has its
 * own count (`['principal', 'tool']`: each caller, each tool).
 */
export type RateLimitKey = 'principal' | 'client' | 'session' | 'tool';

/**
 * At most `limit` calls per `windowMs` (a whole number of seconds, in ms) for each key of `by`
 * (default `['principal']`). The window is fixed: it starts with a key's first call.
 */
export interface RateLimitRule {
  readonly limit: number;
  readonly windowMs: number;
  readonly by?: readonly RateLimitKey[];
}

const KEYS: readonly RateLimitKey[] = ['principal', 'client', 'session', 'tool'];

/** One value of a rate limit that cannot be counted by, and what it must be. */
export interface RateLimitFault {
  readonly field: string;
  readonly value: string;
  readonly requirement: string;
}

function shown(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : Array.isArray(value) ? JSON.stringify(value) : String(value);
}

/**
 * What is wrong with a rate limit as written (nothing: an empty list). `keyed` is false for the
 * endpoint-wide HTTP limit, which always counts per caller and takes no `by`.
 */
export function rateLimitFaults(rule: unknown, keyed = true): RateLimitFault[] {
  if (typeof rule !== 'object' || rule === null) {
    return [{ field: 'the value', value: shown(rule), requirement: 'an object { limit, windowMs }' }];
  }
  const { limit, windowMs, by } = rule as Record<string, unknown>;
  const faults: RateLimitFault[] = [];
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1) {
    faults.push({ field: 'limit', value: shown(limit), requirement: 'a whole number of calls, 1 or more' });
  }
  // The shared (Redis) store keeps windows in whole seconds: 1,500 ms would silently count 1 s there.
  if (typeof windowMs !== 'number' || !Number.isSafeInteger(windowMs) || windowMs < 1000 || windowMs % 1000 !== 0) {
    faults.push({
      field: 'windowMs',
      value: shown(windowMs),
      requirement: 'a whole number of seconds in ms (1000 or more): the shared store counts whole seconds',
    });
  }
  if (!keyed) {
    if (by !== undefined)
      faults.push({ field: 'by', value: shown(by), requirement: 'absent: the HTTP limit counts each client address or bearer subject' });
  } else if (
    by !== undefined &&
    (!Array.isArray(by) || by.length === 0 || by.some((key) => !KEYS.includes(key)) || new Set(by).size !== by.length)
  ) {
    faults.push({
      field: 'by',
      value: shown(by),
      requirement: `a non-empty list of distinct keys among ${KEYS.map((k) => `'${k}'`).join(', ')}`,
    });
  }
  return faults;
}
