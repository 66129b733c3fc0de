import { retryAfterSeconds } from '../messages/call-messages.js';
import { RATE_LIMITED } from './rate-limit-store.js';

/**
 * How a refusal by a rate limit is told on the wire: `'armature'` (the default) answers
 * `RATE_LIMITED` (-32029) with `data.retryAfterSeconds` and `data.retryAfterMs`, a tool call a tool
 * error; `'sep-3304'` follows the draft SEP-3304 (Standardizing Rate-Limiting Errors): `-32023`
 * with `data.retryAfterMs` for every call, tools included.
 */
export type RateLimitErrorShape = 'armature' | 'sep-3304';

/** SEP-3304's `RateLimited` code, from the JSON-RPC range the specification reserves. */
export const SEP_3304_RATE_LIMITED = -32023;

/** The JSON-RPC `code` and `data` of a refusal that says when to retry, in `shape`. */
export function rateLimitErrorOf(shape: RateLimitErrorShape, retryAfterMs: number): { code: number; data: Record<string, number> } {
  if (shape === 'sep-3304') return { code: SEP_3304_RATE_LIMITED, data: { retryAfterMs } };
  return { code: RATE_LIMITED, data: { retryAfterSeconds: retryAfterSeconds(retryAfterMs), retryAfterMs } };
}
