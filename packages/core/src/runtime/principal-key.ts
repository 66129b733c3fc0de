import type { AuthInfo } from '@modelcontextprotocol/server';
import type { CallRequest } from './call-request.js';

/**
 * The key of a call's authenticated principal (client id and subject), the same as a session's
 * owner: what task ownership and rate limits count a caller by. Undefined without a principal.
 */
export function principalOf(call: CallRequest): string | undefined {
  return principalKey(call.ctx.principal);
}

/** The key of `principal` (see `principalOf`). */
export function principalKey(principal: AuthInfo | undefined): string | undefined {
  if (!principal) return undefined;
  const sub = (principal.extra as { sub?: unknown } | undefined)?.sub;
  return `principal:${principal.clientId}\u0000${typeof sub === 'string' ? sub : ''}`;
}
