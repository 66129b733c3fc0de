import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { CallPlan } from '../builder/definitions.js';
import type { RateLimitPlan } from '../builder/rate-limit-plans.js';
import { callMessages, messageOf } from '../messages/call-messages.js';
import type { RateLimitKey } from '../metadata/rate-limit-rule.js';
import type { ServerEvents } from '../observability/server-events.js';
import { type RateLimitErrorShape, rateLimitErrorOf } from '../state/rate-limit-error.js';
import type { RateLimitStore, RateLimitVerdict } from '../state/rate-limit-store.js';
import type { CallRequest } from './call-request.js';
import { addressOf, callerOf } from './principal-key.js';

/** A call a rate limit refused: what the caller is told, and when it may retry (none: its store could not count it). */
export interface RateLimitRefusal {
  readonly message: string;
  readonly retryAfterMs?: number;
}

/**
 * Counts each call against its plan's rate limits (the app's, the class's, the method's, in that
 * order, each its own count in the store) and refuses it at the first one reached, telling the
 * app's event hub once.
 */
export class RateLimiting {
  constructor(
    /** Where the counts live: the endpoint-wide HTTP limit counts there too. */
    readonly store: RateLimitStore,
    private readonly events: ServerEvents,
    /** How a refusal is told on the wire (the app's `rateLimitError` option). */
    readonly errorShape: RateLimitErrorShape = 'armature',
  ) {}

  /**
   * The JSON-RPC error answering a refused call; undefined for a tool call answered with a tool
   * error the model reads (the `'armature'` shape, or a store that could not count the call).
   */
  errorOf(refusal: RateLimitRefusal, tool: boolean): ProtocolError | undefined {
    if (tool && (this.errorShape === 'armature' || refusal.retryAfterMs === undefined)) return undefined;
    return rateLimitedError(refusal, this.errorShape);
  }

  /** Undefined when every limit of `plan` lets the call through; else why not. */
  async check(plan: CallPlan, label: string, request: CallRequest): Promise<RateLimitRefusal | undefined> {
    for (const limit of plan.rateLimits) {
      let verdict: RateLimitVerdict;
      try {
        verdict = await this.store.hit(keyOf(limit, plan, request), limit.limit, limit.windowMs);
      } catch (error) {
        // A limit that cannot be counted is not waved through: the call is refused, saying why.
        return { message: callMessages.rateLimitUncounted(label, messageOf(error)) };
      }
      if (verdict.allowed) continue;
      const message = callMessages.rateLimited(label, limit.limit, limit.windowMs, limit.by, limit.source, verdict.retryAfterMs);
      const client = callerOf(request);
      this.events.emit({
        event: 'refused',
        reason: 'rate-limit',
        message,
        method: request.method,
        requestId: request.ctx.requestId,
        ...(client === undefined ? {} : { client }),
        retryAfterMs: verdict.retryAfterMs,
      });
      return { message, retryAfterMs: verdict.retryAfterMs };
    }
    return undefined;
  }
}

/** A refusal as a JSON-RPC error in `shape` (resources, prompts, completions, tasks): `data` says when to retry. */
export function rateLimitedError(refusal: RateLimitRefusal, shape: RateLimitErrorShape): ProtocolError {
  if (refusal.retryAfterMs === undefined) return new ProtocolError(ProtocolErrorCode.InternalError, refusal.message);
  const { code, data } = rateLimitErrorOf(shape, refusal.retryAfterMs);
  return new ProtocolError(code, refusal.message, data);
}

/** The count a call adds to: the limit's own, and within it the caller's, session's or handler's as `by` says. */
function keyOf(limit: RateLimitPlan, plan: CallPlan, request: CallRequest): string {
  let key = limit.id;
  for (const part of limit.by) key += `|${partOf(part, plan, request)}`;
  return key;
}

function partOf(part: RateLimitKey, plan: CallPlan, request: CallRequest): string {
  switch (part) {
    case 'principal':
      return callerOf(request) ?? 'anonymous';
    case 'client': {
      const address = addressOf(request);
      return address === undefined ? 'local' : `ip:${address}`;
    }
    case 'session':
      // A stateless (2026-07-28) HTTP request has no session: it counts as its caller. Stdio is one
      // connection per process; in-memory connections carry no session id and share one count.
      return request.ctx.source.sessionId ?? (request.ctx.source.http ? (callerOf(request) ?? 'anonymous') : 'connection');
    case 'tool':
      return `${plan.kind}:${plan.name}`;
  }
}
