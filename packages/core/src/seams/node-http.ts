import type { ServerResponse } from 'node:http';

/**
 * Whether Node has already sent `100 Continue` on `res` (its `_sent100`, not in its typings), or
 * undefined when that cannot be told: the caller then sends one itself, which a client must accept
 * (RFC 9110 §15.2: a client parses one or more 1xx responses before the final one).
 */
export function continueSent(res: ServerResponse): boolean | undefined {
  const sent = (res as { _sent100?: unknown })._sent100;
  return typeof sent === 'boolean' ? sent : undefined;
}
