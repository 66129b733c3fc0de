import type { AuthInfo } from '@modelcontextprotocol/server';

/** Why a bearer token was refused; becomes `401` with `error="invalid_token"`. */
export class InvalidTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidTokenError';
  }
}

/**
 * Checks a bearer token and says who is calling. Throw `InvalidTokenError` (or anything) to refuse
 * it. Implementations must check the audience (RFC 8707: the token was issued for this server) and
 * expiry (or return `expiresAt`, checked by the endpoint); `JwtVerifier` does both.
 *
 * The returned principal must name its user in `extra.sub` (a non-empty string, like a JWT's
 * `sub`): sessions, event streams and per-client caps are bound to `clientId` + `extra.sub`, and a
 * principal without it is refused with 500 rather than sharing one owner between users.
 *
 * @example
 * ```ts
 * const verifier: TokenVerifier = {
 *   async verify(token) {
 *     const user = await lookUp(token);
 *     return { token, clientId: user.app, scopes: user.scopes, expiresAt: user.expiresAt, extra: { sub: user.id } };
 *   },
 * };
 * ```
 */
export interface TokenVerifier {
  verify(token: string): Promise<AuthInfo>;
}

/** The principal's subject (`extra.sub`), or undefined when the verifier gave none. */
export function subjectOf(principal: AuthInfo): string | undefined {
  const sub = (principal.extra as { sub?: unknown } | undefined)?.sub;
  return typeof sub === 'string' && sub !== '' ? sub : undefined;
}
