import type { AuthInfo } from '@modelcontextprotocol/server';
import type { createLocalJWKSet, createRemoteJWKSet, JSONWebKeySet, JWTPayload } from 'jose';
import { InvalidTokenError, type TokenVerifier } from './token-verifier.js';

export interface JwtVerifierOptions {
  /** The authorization server(s) whose tokens are accepted (`iss`). */
  issuer: string | string[];
  /**
   * This server's resource identifier: tokens must name it in `aud` (RFC 8707), so a token minted
   * for another service is refused here.
   */
  audience: string | string[];
  /** Where the issuer publishes its keys (fetched and cached by jose). */
  jwksUri?: string | URL;
  /** Or the keys themselves. */
  jwks?: JSONWebKeySet;
  /** Accepted signing algorithms. Default RS256, ES256, PS256, EdDSA (never `none`, never HMAC). */
  algorithms?: string[];
  /** Seconds of clock skew tolerated on `exp`/`nbf`. Default 30. */
  clockToleranceSeconds?: number;
}

type KeySet = ReturnType<typeof createRemoteJWKSet> | ReturnType<typeof createLocalJWKSet>;

function scopesOf(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  if (Array.isArray(payload.scp)) return payload.scp.filter((s): s is string => typeof s === 'string');
  if (typeof payload.scp === 'string') return payload.scp.split(' ').filter(Boolean);
  return [];
}

/**
 * Verifies JWT access tokens (RFC 9068) against the issuer's JWKS with jose: signature, issuer,
 * audience, expiry and subject (required) and not-before.
 *
 * @example
 * ```ts
 * const verifier = new JwtVerifier({
 *   issuer: 'https://auth.example.com',
 *   audience: 'https://mcp.example.com/mcp',
 *   jwksUri: 'https://auth.example.com/.well-known/jwks.json',
 * });
 * ```
 */
export class JwtVerifier implements TokenVerifier {
  /** jose and the key set, loaded when the verifier is made: apps without JWTs never load jose. */
  private readonly ready: Promise<{ jose: typeof import('jose'); keys: KeySet }>;

  constructor(private readonly options: JwtVerifierOptions) {
    if (!options.jwks && !options.jwksUri) throw new TypeError('JwtVerifier needs `jwksUri` or `jwks`');
    if (options.jwks && !Array.isArray(options.jwks.keys))
      throw new TypeError('JwtVerifier: `jwks` must be a JSON Web Key Set ({ keys: [...] })');
    const jwksUri = options.jwksUri === undefined ? undefined : new URL(options.jwksUri);
    this.ready = import('jose').then((jose) => ({
      jose,
      keys: options.jwks ? jose.createLocalJWKSet(options.jwks) : jose.createRemoteJWKSet(jwksUri as URL),
    }));
    // A failure is reported by the first verify(), not as an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  async verify(token: string): Promise<AuthInfo> {
    const { jose, keys } = await this.ready;
    const { errors, jwtVerify } = jose;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.options.issuer,
        audience: this.options.audience,
        algorithms: this.options.algorithms ?? ['RS256', 'ES256', 'PS256', 'EdDSA'],
        clockTolerance: this.options.clockToleranceSeconds ?? 30,
        // RFC 9068 §2.2: access tokens carry `sub`; sessions are bound to it.
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw new InvalidTokenError('the token has expired');
      if (error instanceof errors.JWTClaimValidationFailed)
        throw new InvalidTokenError(`the token's "${error.claim}" claim is not accepted`);
      throw new InvalidTokenError('the token could not be verified');
    }
    const clientId = [payload.client_id, payload.azp, payload.sub].find((v): v is string => typeof v === 'string') ?? 'unknown';
    const audience = Array.isArray(this.options.audience) ? this.options.audience[0] : this.options.audience;
    return {
      token,
      clientId,
      scopes: scopesOf(payload),
      ...(typeof payload.exp === 'number' ? { expiresAt: payload.exp } : {}),
      ...(audience ? { resource: new URL(audience) } : {}),
      extra: { sub: payload.sub, iss: payload.iss, claims: payload },
    };
  }
}
