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
 * expiry; `JwtVerifier` does both.
 */
export interface TokenVerifier {
  verify(token: string): Promise<AuthInfo>;
}
