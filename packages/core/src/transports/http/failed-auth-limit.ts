import { retryAfterSeconds } from '../../messages/call-messages.js';
import { wireMessages } from '../../messages/wire-messages.js';
import type { ServerEvents } from '../../observability/server-events.js';
import { type RateLimitErrorShape, rateLimitErrorOf } from '../../state/rate-limit-error.js';
import type { RateLimitStore } from '../../state/rate-limit-store.js';
import { jsonRpcErrorResponse } from '../wire/json-rpc-error-response.js';
import { checkHttpLimit, type HttpRateLimitOptions } from './http-rate-limit.js';

/** Failed authentications let through per client address before its requests are refused unverified. */
export const DEFAULT_FAILED_AUTH_LIMIT: HttpRateLimitOptions = { limit: 60, windowMs: 60_000 };

/**
 * The budget of failed authentications of each client address (`auth.failedAuthLimit`), in its own
 * count of the app's rate-limit store. An address that has spent it gets 429 with `Retry-After`
 * before its token is even looked at, so a flood of forged tokens costs one signature check per
 * failure allowed, not per request. Requests without a known address (the web-standard handler
 * called without `remoteAddress`) are not counted: one shared count would let any client lock
 * every other out.
 */
export class FailedAuthLimit {
  constructor(
    private readonly options: HttpRateLimitOptions,
    private readonly store: RateLimitStore,
    private readonly events?: ServerEvents,
    private readonly errorShape: RateLimitErrorShape = 'armature',
  ) {
    checkHttpLimit(options, 'auth.failedAuthLimit');
  }

  /** The 429 for an address that has spent its budget, or undefined to go on and verify its token. */
  async refusal(address: string | undefined): Promise<Response | undefined> {
    if (address === undefined) return undefined;
    const { limit, windowMs } = this.options;
    const verdict = await this.store.peek(keyOf(address), limit, windowMs);
    if (verdict.allowed) return undefined;
    const seconds = retryAfterSeconds(verdict.retryAfterMs);
    const message = wireMessages.failedAuthLimited(limit, windowMs, seconds);
    this.events?.emit({
      event: 'refused',
      reason: 'failed-auth-limit',
      message,
      client: `ip:${address}`,
      retryAfterMs: verdict.retryAfterMs,
    });
    const { code, data } = rateLimitErrorOf(this.errorShape, verdict.retryAfterMs);
    return jsonRpcErrorResponse(429, code, message, null, { 'retry-after': String(seconds) }, data);
  }

  /** Counts one failed authentication of `address`. */
  async failed(address: string | undefined): Promise<void> {
    if (address !== undefined) await this.store.hit(keyOf(address), this.options.limit, this.options.windowMs);
  }
}

function keyOf(address: string): string {
  return `auth-failed|ip:${address}`;
}
