import type { AuthInfo } from '@modelcontextprotocol/server';
import { clientAddressOf } from '../context/client-address-of.js';
import type { CallRequest } from './call-request.js';

/**
 * The key of a call's authenticated principal (client id and subject), the same as a session's
 * owner: what task ownership and rate limits count a caller by. Undefined without a principal.
 */
export function principalOf(call: CallRequest): string | undefined {
  return principalKey(call.ctx.principal);
}

/**
 * Who a call counts as for per-caller caps: its principal, else its client address (HTTP, the
 * trusted proxies' report with `trustProxy`), else undefined (stdio, in memory: nothing known).
 */
export function callerOf(call: CallRequest): string | undefined {
  const principal = principalOf(call);
  if (principal !== undefined) return principal;
  const address = addressOf(call);
  return address === undefined ? undefined : `ip:${address}`;
}

/** The client address of an HTTP call. */
export function addressOf(call: CallRequest): string | undefined {
  const http = call.ctx.source.http;
  // Reading `req` on the request engine builds the web Request: only HTTP requests have one.
  return http ? clientAddressOf(http.req) : undefined;
}

/** The key of `principal` (see `principalOf`). */
export function principalKey(principal: AuthInfo | undefined): string | undefined {
  if (!principal) return undefined;
  const sub = (principal.extra as { sub?: unknown } | undefined)?.sub;
  return `principal:${principal.clientId}\u0000${typeof sub === 'string' ? sub : ''}`;
}
