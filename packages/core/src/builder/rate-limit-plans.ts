import type { BuildProblem } from '../messages/build-error.js';
import { MESSAGES, problem } from '../messages/message-catalog.js';
import { type RateLimitKey, type RateLimitRule, rateLimitFaults } from '../metadata/rate-limit-rule.js';

/** A rate limit as calls check it: its own count (`id`), what it allows, and what it counts separately. */
export interface RateLimitPlan {
  /** Where it was written, and which of the limits written there (`Search.find#0`, `rateLimits#1`): the count's name. */
  readonly id: string;
  readonly limit: number;
  readonly windowMs: number;
  readonly by: readonly RateLimitKey[];
  /** Where the user wrote it, for messages: `@RateLimit on Search.find`, `createMcpApp rateLimits[0]`. */
  readonly source: string;
}

/**
 * The plan of one rate limit written at `where` (the `n`-th there), or undefined after adding a
 * problem per bad value. `source` names what the user wrote (`@RateLimit`, `rateLimits[0]`).
 */
export function rateLimitPlan(
  rule: unknown,
  where: string,
  n: number,
  source: string,
  problems: BuildProblem[],
): RateLimitPlan | undefined {
  const faults = rateLimitFaults(rule);
  for (const fault of faults) problems.push(problem(MESSAGES.invalidRateLimit, where, source, fault.field, fault.value, fault.requirement));
  if (faults.length > 0) return undefined;
  const { limit, windowMs, by } = rule as RateLimitRule;
  return Object.freeze({
    id: `${where}#${n}`,
    limit,
    windowMs,
    by: Object.freeze([...(by ?? ['principal'])]),
    source: where === 'createMcpApp' ? `createMcpApp ${source}` : `${source} on ${where}`,
  });
}
