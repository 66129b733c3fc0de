import type { AuthInfo } from '@modelcontextprotocol/server';
import { hasScopes } from './scopes.js';
import { InvalidTokenError, subjectOf, type TokenVerifier } from './token-verifier.js';

/** OAuth 2.1 resource-server settings of an HTTP endpoint (MCP authorization, RFC 9728, RFC 6750). */
export interface AuthOptions {
  /** Checks bearer tokens (e.g. `new JwtVerifier({...})`). */
  verifier: TokenVerifier;
  /** This server's resource identifier (its canonical URL, e.g. `https://mcp.example.com/mcp`). */
  resource: string;
  /** Authorization servers clients should get tokens from, advertised in the metadata. */
  authorizationServers: string[];
  /** Scopes this server understands, advertised in the metadata. */
  scopesSupported?: string[];
  /** Scopes every request needs, whatever it calls. */
  requiredScopes?: string[];
  /** Human-readable name in the metadata. */
  resourceName?: string;
  /**
   * At most `limit` requests per `windowMs` (whole seconds) from one client address may fail
   * authentication (no token, a bad, forged or expired one); its next requests get 429 with
   * `Retry-After`, their token not even verified, until the window ends. Counted in the app's
   * rate-limit store (shared with `redisState`), `trustProxy` honoured. Default
   * `{ limit: 60, windowMs: 60_000 }`; `false` turns it off.
   */
  failedAuthLimit?: { limit: number; windowMs: number } | false;
}

/**
 * What admitting a request reads of it: its method, URL and headers. A web `Request` is one; the
 * node:http adapter passes a view of its `IncomingMessage` instead of building a `Request`.
 */
export interface RequestHead {
  readonly method: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null };
}

export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** Who owns a session or stream: the client and the subject (the verifier guarantees one). */
export function ownerOf(principal: AuthInfo): string {
  return `${principal.clientId}\u0000${subjectOf(principal) ?? ''}`;
}

let warnedNoSubject = false;

function quote(value: string): string {
  return `"${value.replace(/["\\]/g, '')}"`;
}

/**
 * The resource-server half of MCP authorization: Protected Resource Metadata (RFC 9728), bearer
 * tokens from the `Authorization` header only (never the query string), 401 with
 * `WWW-Authenticate` naming the metadata, 403 `insufficient_scope` naming the scopes needed.
 */
export class BearerAuth {
  readonly metadataUrl: string;

  constructor(readonly options: AuthOptions) {
    const resource = new URL(options.resource);
    // RFC 9728 §3.1: the well-known path is inserted before the resource's own path.
    const suffix = resource.pathname === '/' ? '' : resource.pathname;
    this.metadataUrl = `${resource.origin}${PROTECTED_RESOURCE_METADATA_PATH}${suffix}`;
  }

  /** The Protected Resource Metadata document. */
  metadata(): Record<string, unknown> {
    return {
      resource: this.options.resource,
      authorization_servers: this.options.authorizationServers,
      bearer_methods_supported: ['header'],
      ...(this.options.scopesSupported ? { scopes_supported: this.options.scopesSupported } : {}),
      ...(this.options.resourceName ? { resource_name: this.options.resourceName } : {}),
    };
  }

  /** Answers the metadata for GET on the well-known paths; undefined for anything else. */
  serveMetadata(request: RequestHead): Response | undefined {
    const { pathname } = new URL(request.url);
    if (!pathname.startsWith(PROTECTED_RESOURCE_METADATA_PATH)) return undefined;
    if (request.method !== 'GET') return new Response(null, { status: 405, headers: { allow: 'GET' } });
    return Response.json(this.metadata(), { headers: { 'cache-control': 'max-age=3600' } });
  }

  private challenge(status: 401 | 403 | 400, params: Record<string, string>, message: string): Response {
    const header = `Bearer ${Object.entries({ ...params, resource_metadata: this.metadataUrl })
      .map(([k, v]) => `${k}=${quote(v)}`)
      .join(', ')}`;
    return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }), {
      status,
      headers: { 'content-type': 'application/json', 'www-authenticate': header },
    });
  }

  /** The verified caller, or the response refusing the request. */
  async authenticate(request: RequestHead): Promise<{ principal: AuthInfo } | { response: Response }> {
    const url = new URL(request.url);
    if (url.searchParams.has('access_token')) {
      // RFC 6750 §2.3 allows it; MCP authorization forbids tokens in the URI (they end up in logs).
      return {
        response: this.challenge(
          400,
          { error: 'invalid_request', error_description: 'send the token in the Authorization header, not the URL' },
          'Bad Request: access tokens are not accepted in the query string',
        ),
      };
    }
    const header = request.headers.get('authorization');
    const match = header ? /^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(header) : null;
    const required = this.options.requiredScopes ?? [];
    if (!match?.[1]) {
      const params: Record<string, string> = required.length > 0 ? { scope: required.join(' ') } : {};
      if (header)
        Object.assign(params, { error: 'invalid_request', error_description: 'the Authorization header must be "Bearer <token>"' });
      return { response: this.challenge(401, params, 'Unauthorized: a bearer token is required') };
    }
    let principal: AuthInfo;
    try {
      principal = await this.options.verifier.verify(match[1]);
    } catch (error) {
      const reason = error instanceof InvalidTokenError ? error.message : 'the token could not be verified';
      return { response: this.challenge(401, { error: 'invalid_token', error_description: reason }, `Unauthorized: ${reason}`) };
    }
    if (principal.expiresAt !== undefined && principal.expiresAt * 1000 < Date.now()) {
      return {
        response: this.challenge(
          401,
          { error: 'invalid_token', error_description: 'the token has expired' },
          'Unauthorized: the token has expired',
        ),
      };
    }
    if (subjectOf(principal) === undefined) {
      const message =
        'Internal Server Error: the TokenVerifier returned a principal without a subject; return `extra: { sub: <user id> }` from verify() so each user gets their own sessions';
      if (!warnedNoSubject) {
        warnedNoSubject = true;
        process.stderr.write(`[armature] BearerAuth.authenticate: ${message}\n`);
      }
      return {
        response: new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message }, id: null }), {
          status: 500,
          headers: { 'content-type': 'application/json' },
        }),
      };
    }
    if (!hasScopes(principal, required)) return { response: this.insufficientScope(required) };
    return { principal };
  }

  /** 403 naming every scope the call needs (the client can ask the user for them: step-up). */
  insufficientScope(scopes: readonly string[]): Response {
    return this.challenge(
      403,
      { error: 'insufficient_scope', scope: scopes.join(' ') },
      `Forbidden: this needs the scopes ${scopes.join(', ')}`,
    );
  }
}
