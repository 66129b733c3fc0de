import { ArmatureBuildError } from '../../messages/build-error.js';
import { retryAfterSeconds } from '../../messages/call-messages.js';
import { MESSAGES, problem } from '../../messages/message-catalog.js';
import { wireMessages } from '../../messages/wire-messages.js';
import { rateLimitFaults } from '../../metadata/rate-limit-rule.js';
import type { ServerEvents } from '../../observability/server-events.js';
import { type RateLimitErrorShape, rateLimitErrorOf } from '../../state/rate-limit-error.js';
import type { RateLimitStore } from '../../state/rate-limit-store.js';
import { jsonRpcErrorResponse } from '../wire/json-rpc-error-response.js';
import type { Caller } from './http-caller.js';

/**
 * The endpoint-wide limit (`listenHttp({ rateLimit })`): at most `limit` HTTP requests per
 * `windowMs` (whole seconds) from each client, counted by its bearer token's subject, else its
 * address (`trustProxy` honoured). Every request counts, whatever it carries.
 */
export interface HttpRateLimitOptions {
  readonly limit: number;
  readonly windowMs: number;
}

/** Throws the start-up error (ARM304) naming `option` (`rateLimit`, `auth.failedAuthLimit`) for each bad value of `limit`. */
export function checkHttpLimit(limit: HttpRateLimitOptions, option: string): void {
  const problems = rateLimitFaults(limit, false).map((fault) =>
    problem(MESSAGES.invalidRateLimit, 'listenHttp', option, fault.field, fault.value, fault.requirement),
  );
  if (problems.length > 0) throw new ArmatureBuildError(problems, 'Armature cannot serve HTTP', 'in the HTTP options');
}

/**
 * Counts each admitted request against the endpoint-wide limit, from its headers alone: a client
 * over it gets 429 with `Retry-After` before its body is read.
 */
export class HttpRateLimit {
  constructor(
    private readonly options: HttpRateLimitOptions,
    private readonly store: RateLimitStore,
    private readonly events?: ServerEvents,
    private readonly errorShape: RateLimitErrorShape = 'armature',
  ) {
    checkHttpLimit(options, 'rateLimit');
  }

  /** The 429 for a caller over the limit, or undefined to let the request in. */
  async refusal(caller: Caller): Promise<Response | undefined> {
    const client = caller.client ?? 'anonymous';
    const { limit, windowMs } = this.options;
    const verdict = await this.store.hit(`http|${client}`, limit, windowMs);
    if (verdict.allowed) return undefined;
    const seconds = retryAfterSeconds(verdict.retryAfterMs);
    const message = wireMessages.httpRateLimited(limit, windowMs, seconds);
    this.events?.emit({ event: 'refused', reason: 'rate-limit', message, client, retryAfterMs: verdict.retryAfterMs });
    const { code, data } = rateLimitErrorOf(this.errorShape, verdict.retryAfterMs);
    return jsonRpcErrorResponse(429, code, message, null, { 'retry-after': String(seconds) }, data);
  }
}
